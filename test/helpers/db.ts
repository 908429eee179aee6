// Test databases: every test file gets its own fresh database on the run's PostgreSQL (the embedded
// one test/run.mjs started, or DBREST_TEST_DB_URI), loaded from SQL fixture files, dropped at the end.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  /** URI of the new database, as the superuser of the test cluster. */
  readonly uri: string;
  readonly name: string;
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  /** Drops the database (terminating leftover connections). */
  drop(): Promise<void>;
}

export function clusterUri(): string {
  const uri = process.env.DBREST_TEST_DB_URI;
  if (!uri) throw new Error('DBREST_TEST_DB_URI is not set: run the tests with `npm test`');
  return uri;
}

export function withDatabase(uri: string, database: string): string {
  const u = new URL(uri);
  u.pathname = '/' + encodeURIComponent(database);
  return u.toString();
}

/** Repo-relative path of a fixture: tests run from the repository root. */
export const fixture = (...parts: string[]) => path.resolve(process.cwd(), 'test', 'fixtures', ...parts);

/**
 * SQL creating NOLOGIN roles unless they exist. Roles are cluster-wide and test files run at once:
 * a concurrent CREATE ROLE raises unique_violation rather than duplicate_object, so both are taken
 * as already there.
 */
export const nologinRolesSql = (...names: string[]): string =>
  names.map((n) => `DO $$ BEGIN CREATE ROLE "${n}" NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;`).join('\n');

/**
 * `sources` are file paths (ending .sql) or SQL text, run in order. Roles are cluster-wide, so
 * fixtures create them idempotently (DO blocks) and tests must not depend on them being fresh.
 */
export async function createTestDatabase(sources: ReadonlyArray<string> = []): Promise<TestDatabase> {
  const name = `dbrest_t_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: clusterUri() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const uri = withDatabase(clusterUri(), name);
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  client.on('error', () => undefined);
  for (const src of sources) {
    const text = src.endsWith('.sql') ? readFileSync(src, 'utf8') : src;
    try {
      await client.query(text);
    } catch (e) {
      await client.end();
      throw new Error(`loading ${src.endsWith('.sql') ? src : 'SQL'} failed: ${(e as Error).message}`);
    }
  }
  return {
    uri,
    name,
    async query(text, values) {
      return (await client.query(text, values as unknown[])).rows;
    },
    async drop() {
      await client.end().catch(() => undefined);
      const a = new pg.Client({ connectionString: clusterUri() });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}

/** One query on its own connection (for tests that look at a database dbrest made, or a cluster). */
export async function queryOnce(uri: string, text: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: uri });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}
