// `dbrest types [config-file] [--schema S]… [--output FILE]`: TypeScript types of the exposed
// schemas for a typed @supabase/postgrest-js client (`new PostgrestClient<Database>(url)`). Wiring
// only: the schema cache comes from catalog/load.ts (as `introspect`'s does), the text from
// typegen/typescript.ts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import chalk from 'chalk';
import pg from 'pg';
import { loadSchemaCache } from '../catalog/load.js';
import type { AppConfig } from '../config/types.js';
import { generateTypescript } from '../typegen/typescript.js';
import type { CliIo } from './check-config.js';
import { catalogProgress, terminalProgress } from '../observe/progress.js';
import { withCommandDatabase } from './database.js';

export interface TypesRunOptions {
  readonly io: CliIo;
  /** `--schema` values as given (each may be a comma list); the configured db-schemas when empty. */
  readonly schemas: ReadonlyArray<string>;
  /** `--output FILE`, relative to the working directory; stdout when absent. */
  readonly output?: string | undefined;
}

/** `--schema a,b --schema c` → [a, b, c], without blanks or repeats. */
export function schemaList(values: ReadonlyArray<string>): string[] {
  return [...new Set(values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== ''))];
}

/** Returns the exit code. */
export async function runTypes(config: AppConfig, opts: TypesRunOptions): Promise<number> {
  // No db-uri: the embedded default, as `serve` runs it (its database, or one started for the command).
  return withCommandDatabase(config, 'types', opts.io.stderr, (effective) => generate(effective.dbUri!, effective, opts));
}

async function generate(uri: string, config: AppConfig, opts: TypesRunOptions): Promise<number> {
  const { io } = opts;
  const requested = schemaList(opts.schemas);
  const schemas = requested.length > 0 ? requested : [...config.dbSchemas];
  // Progress for a person watching (a big catalog takes seconds); nothing when stderr is a pipe or file.
  const progress = terminalProgress(io.stderr);
  const client = new pg.Client({ connectionString: uri });
  client.on('error', () => undefined);
  try {
    await client.connect();
    progress.update(`schema cache: connected; reading ${schemas.join(', ')}…`);
    const { cache, fetchMs, buildMs } = await loadSchemaCache(client, schemas, null, catalogProgress(progress)).finally(() => progress.clear());
    progress.note(chalk.dim(`${cache.relations.length} relations, ${cache.routines.length} functions, ${cache.types?.length ?? 0} types (fetched in ${fetchMs.toFixed(0)} ms, built in ${buildMs.toFixed(0)} ms)`));
    const text = generateTypescript(cache);
    if (opts.output === undefined) {
      io.stdout.write(text);
    } else {
      const file = path.resolve(io.cwd, opts.output);
      writeFileSync(file, text);
      progress.note(chalk.dim(`wrote ${file}`));
    }
    return 0;
  } catch (e) {
    io.stderr.write(`${chalk.red('✖')} types failed: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}
