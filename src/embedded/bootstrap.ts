// Setup of the embedded database: a `dbrest` database, an `authenticator` login role (dbrest
// connects as it and switches to the request's role, as PostgREST deployments do) with a password
// of its own (never the superuser's: secrets.ts keeps each in its own file), and the bundled
// examples, each loaded once: dbrest_meta.examples records which, so an example added to a newer
// dbrest is loaded into a data directory made by an older one at its next start.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { examplesDir, listExamples, type Example } from './examples.js';
import { scramVerifier, verifierMatches } from './secrets.js';
import { withDatabase } from './uri.js';

export const EMBEDDED_DATABASE = 'dbrest';
export const EMBEDDED_ANON_ROLE = 'web_anon';
export const AUTHENTICATOR = 'authenticator';

/**
 * Returns the URI dbrest should use (as the authenticator, whose password is `password`). `superuserUri`
 * points at the cluster's `postgres` database. `progress` reports each step. The authenticator's password
 * is set whenever it is not `password` already: a cluster of an older dbrest gave it the superuser's.
 */
export async function bootstrapEmbedded(superuserUri: string, password: string, progress: (m: string) => void, fromDir: string = examplesDir): Promise<string> {
  const admin = new pg.Client({ connectionString: superuserUri });
  await admin.connect();
  let fresh = false;
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
      fresh = true;
    }
    // Passwords are sent as SCRAM verifiers: the password itself never reaches the server's logs.
    const role = await admin.query<{ rolpassword: string | null }>('SELECT rolpassword FROM pg_authid WHERE rolname = $1', [AUTHENTICATOR]);
    if (role.rowCount === 0) {
      await admin.query(`CREATE ROLE ${AUTHENTICATOR} LOGIN NOINHERIT PASSWORD ${pg.escapeLiteral(scramVerifier(password))}`);
    } else if (!verifierMatches(role.rows[0]!.rolpassword, password)) {
      await admin.query(`ALTER ROLE ${AUTHENTICATOR} PASSWORD ${pg.escapeLiteral(scramVerifier(password))}`);
      progress(`the ${AUTHENTICATOR} role has a password of its own now (it was not the one kept for it)`);
    }
  } finally {
    await admin.end();
  }
  const db = new pg.Client({ connectionString: withDatabase(superuserUri, EMBEDDED_DATABASE) });
  await db.connect();
  try {
    await loadExamples(db, fresh, progress, fromDir);
  } catch (e) {
    await db.end();
    if (fresh) {
      // Leave no half-made database behind: the next start tries again from scratch.
      const again = new pg.Client({ connectionString: superuserUri });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${EMBEDDED_DATABASE} WITH (FORCE)`).finally(() => again.end());
    }
    throw e;
  }
  await db.end();
  const u = new URL(withDatabase(superuserUri, EMBEDDED_DATABASE));
  u.username = AUTHENTICATOR;
  u.password = encodeURIComponent(password);
  return u.toString();
}

/**
 * Every example not loaded yet, each in its own transaction with its record. A data directory from
 * before the record existed has the quickstart (it was loaded when the database was made). An example
 * that fails to load is reported and skipped (the next start tries it again); quickstart failing on a
 * fresh database is fatal.
 */
async function loadExamples(db: pg.Client, fresh: boolean, progress: (m: string) => void, fromDir: string): Promise<void> {
  const known = await db.query("SELECT 1 FROM pg_namespace WHERE nspname = 'dbrest_meta'");
  await db.query('CREATE SCHEMA IF NOT EXISTS dbrest_meta');
  await db.query('CREATE TABLE IF NOT EXISTS dbrest_meta.examples (name text PRIMARY KEY, loaded_at timestamptz NOT NULL DEFAULT now())');
  if (!fresh && known.rowCount === 0) await db.query("INSERT INTO dbrest_meta.examples (name) VALUES ('quickstart') ON CONFLICT DO NOTHING");
  const loaded = new Set((await db.query<{ name: string }>('SELECT name FROM dbrest_meta.examples')).rows.map((r) => r.name));
  for (const example of listExamples(fromDir)) {
    if (loaded.has(example.name)) continue;
    try {
      await loadExample(db, example, progress);
    } catch (e) {
      if (example.name === 'quickstart' && fresh) throw e;
      progress(`example ${example.name} not loaded: ${(e as Error).message}`);
    }
  }
  await db.query(`GRANT ${EMBEDDED_ANON_ROLE} TO ${AUTHENTICATOR}`);
}

async function loadExample(db: pg.Client, example: Example, progress: (m: string) => void): Promise<void> {
  await db.query('BEGIN');
  try {
    for (const file of example.sqlFiles) {
      progress(`loading example ${example.name}/${path.basename(file)}`);
      await db.query(readFileSync(file, 'utf8'));
    }
    await db.query('INSERT INTO dbrest_meta.examples (name) VALUES ($1)', [example.name]);
    await db.query('COMMIT');
  } catch (e) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
