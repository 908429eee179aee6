// `dbrest openapi [config-file]`: print the root document of the default schema, in the configured
// openapi-version (2.0 unless `--openapi-version 3.1`), as GET / would answer it. Wiring only: the
// document comes from response/openapi (the same model and renderers as the server).
//
// Whose privileges: with openapi-mode = follow-privileges, those of db-anon-role (an anonymous
// request's view), or of the connecting user when no anonymous role is set; otherwise (also when
// openapi-mode = disabled, which only closes the HTTP endpoint) every relation and routine.
import chalk from 'chalk';
import pg from 'pg';
import { loadSchemaCache } from '../catalog/load.js';
import type { AppConfig } from '../config/types.js';
import { mountSchemas, resolveMounts } from '../mount/check.js';
import { accessQuestion, buildAccessStatement, readAccessRow } from '../response/openapi/access.js';
import { buildOpenApiDocument } from '../response/openapi/document.js';
import { quoteIdent } from '../sql/fragment.js';
import { VERSION } from '../version.js';
import { withCommandDatabase } from './database.js';

interface Output {
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
}

/** `runOpenapi(config)` prints to the process streams; the CLI passes its io in `ctx`. Returns the exit code. */
export async function runOpenapi(config: AppConfig, _loaded?: unknown, ctx?: { readonly io?: Output }): Promise<number> {
  return withCommandDatabase(config, 'openapi', ctx?.io?.stderr ?? process.stderr, (effective) => openapi(effective, ctx));
}

/** With db-uri unset, `config` is the embedded default's (its database, web_anon, the examples' mounts). */
async function openapi(config: AppConfig, ctx?: { readonly io?: Output }): Promise<number> {
  const out = ctx?.io?.stdout ?? process.stdout;
  const errOut = ctx?.io?.stderr ?? process.stderr;
  const schema = config.dbSchemas[0]!;
  const client = new pg.Client({ connectionString: config.dbUri! });
  client.on('error', () => undefined);
  try {
    await client.connect();
    // Route mounts may name schemas outside db-schemas: the cache holds them too (as the server's does).
    const { cache } = await loadSchemaCache(client, [...new Set([...config.dbSchemas, ...mountSchemas(config.routes, config.dbSchemas)])]);
    const mounts = config.routes.length > 0 ? resolveMounts(config.routes, cache, config.dbSchemas).groups : [];
    const question = accessQuestion(cache, schema, config.openapiMode === 'follow-privileges', mounts);
    const statement = buildAccessStatement(question);
    await client.query('BEGIN READ ONLY');
    if (question.followPrivileges && config.dbAnonRole) await client.query(`SET LOCAL ROLE ${quoteIdent(config.dbAnonRole)}`);
    const res = await client.query({ text: statement.text, values: [...statement.values], rowMode: 'array' });
    await client.query('ROLLBACK');
    const scope = readAccessRow(question, (res.rows[0] as unknown[] | undefined) ?? []);
    const doc = buildOpenApiDocument(cache, scope, config, config.openapiVersion, VERSION, mounts);
    out.write(JSON.stringify(doc, null, 2) + '\n');
    return 0;
  } catch (e) {
    errOut.write(`${chalk.red('✖')} openapi failed: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}
