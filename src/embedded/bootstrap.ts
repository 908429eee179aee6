// First-start setup of the embedded database: a `dbrest` database, an `authenticator` login role
// (dbrest connects as it and switches to the request's role, as PostgREST deployments do), and the
// bundled examples, loaded once.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { withDatabase } from './uri.js';

export const EMBEDDED_DATABASE = 'dbrest';
export const EMBEDDED_ANON_ROLE = 'web_anon';
const AUTHENTICATOR = 'authenticator';

/** examples/ of this installation (next to dist/ and src/). */
export const examplesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples');

function exampleFiles(name: string): string[] {
  const dir = path.join(examplesDir, name);
  return readdirSync(dir).filter((f) => f.endsWith('.sql')).sort().map((f) => path.join(dir, f));
}

/**
 * Returns the URI dbrest should use (as the authenticator). `superuserUri` points at the
 * cluster's `postgres` database. `progress` reports each step.
 */
export async function bootstrapEmbedded(superuserUri: string, password: string, progress: (m: string) => void): Promise<string> {
  const admin = new pg.Client({ connectionString: superuserUri });
  await admin.connect();
  let fresh = false;
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
      fresh = true;
    }
    const role = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [AUTHENTICATOR]);
    if (role.rowCount === 0) {
      await admin.query(`CREATE ROLE ${AUTHENTICATOR} LOGIN NOINHERIT PASSWORD ${pg.escapeLiteral(password)}`);
    }
  } finally {
    await admin.end();
  }
  if (fresh) {
    const db = new pg.Client({ connectionString: withDatabase(superuserUri, EMBEDDED_DATABASE) });
    await db.connect();
    try {
      for (const file of exampleFiles('quickstart')) {
        progress(`loading example ${path.relative(path.dirname(examplesDir), file)}`);
        await db.query(readFileSync(file, 'utf8'));
      }
      await db.query(`GRANT ${EMBEDDED_ANON_ROLE} TO ${AUTHENTICATOR}`);
    } catch (e) {
      // Leave no half-loaded database behind: the next start tries again from scratch.
      await db.end();
      const again = new pg.Client({ connectionString: superuserUri });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${EMBEDDED_DATABASE} WITH (FORCE)`).finally(() => again.end());
      throw e;
    }
    await db.end();
  }
  const u = new URL(withDatabase(superuserUri, EMBEDDED_DATABASE));
  u.username = AUTHENTICATOR;
  u.password = encodeURIComponent(password);
  return u.toString();
}
