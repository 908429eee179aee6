// The database of a command other than serve (`introspect`, `openapi`, `db-uri`): db-uri when set,
// else the embedded default of the directory, as `serve` runs it (the running one, or one started for
// the command's duration and stopped after it; src/embedded/default.ts). Progress goes to stderr, so
// the command's stdout stays its answer.
import path from 'node:path';
import chalk from 'chalk';
import type { AppConfig } from '../config/types.js';
import { embeddedConfig, openEmbeddedDefault, type EmbeddedDefault } from '../embedded/default.js';

interface Writer {
  write(s: string): unknown;
}

/**
 * Runs `fn` with the configuration serve would use (for the embedded default: its URI, anonymous role
 * and the examples' mounts) and, when embedded, the database handle. Returns fn's exit code, or 1
 * when the embedded database cannot be started.
 */
export async function withCommandDatabase(
  config: AppConfig,
  command: string,
  stderr: Writer,
  fn: (effective: AppConfig, embedded: EmbeddedDefault | null) => Promise<number>,
): Promise<number> {
  if (config.dbUri !== null) return fn(config, null);
  const say = (m: string) => void stderr.write(`${chalk.dim(`dbrest ${m}`)}\n`);
  let embedded: EmbeddedDefault;
  try {
    say(`no db-uri: using the embedded PostgreSQL of ${path.resolve(config.dbEmbeddedDir)}`);
    embedded = await openEmbeddedDefault({ dataDir: path.resolve(config.dbEmbeddedDir), durable: config.dbEmbeddedDurable, command, say });
  } catch (e) {
    stderr.write(`${chalk.red('✖')} the embedded PostgreSQL did not start: ${(e as Error).message}\n`);
    return 1;
  }
  try {
    return await fn(embeddedConfig(config, embedded.uri, say), embedded);
  } finally {
    await embedded.close();
  }
}
