// db-schema-watch: event triggers that send `NOTIFY <db-channel>, 'reload schema'` after DDL, so a
// CREATE TABLE, ALTER, CREATE FUNCTION or GRANT reaches the API without a signal. This is PostgREST's
// "finer-grained event trigger" recipe (docs: Schema Cache → Automatic Schema Cache Reloading) with
// one change: instead of a list of command tags to watch, every command is watched except the ones
// that never change what dbrest serves (temporary objects, indexes, REFRESH MATERIALIZED VIEW), so
// GRANT, REVOKE and ALTER DEFAULT PRIVILEGES (which follow-privileges OpenAPI depends on) count too.
//
// The objects live in a schema named `dbrest` (created if missing): dbrest's own, apart from any
// schema an API exposes. Only a superuser may create an event trigger (PostgreSQL 18 included); the
// function runs for whoever issues the DDL and needs no grant. `schemaWatchSql` is the script a
// superuser runs by hand (the README prints it; `dbrest doctor` may offer it); `installSchemaWatch`
// runs it when what is installed differs from it.
import pg from 'pg';
import { quoteIdent } from './reload.js';

export const WATCH_SCHEMA = 'dbrest';
export const WATCH_DDL_TRIGGER = 'dbrest_watch_ddl';
export const WATCH_DROP_TRIGGER = 'dbrest_watch_drop';

/** Body of the ddl_command_end function: CREATE, ALTER, GRANT, COMMENT … on anything not temporary. */
function ddlBody(channel: string): string {
  return `
BEGIN
  IF EXISTS (
    SELECT FROM pg_catalog.pg_event_trigger_ddl_commands()
    WHERE schema_name IS DISTINCT FROM 'pg_temp'
      AND command_tag NOT IN ('CREATE INDEX', 'ALTER INDEX', 'REINDEX', 'REFRESH MATERIALIZED VIEW')
  ) THEN
    NOTIFY ${quoteIdent(channel)}, 'reload schema';
  END IF;
END
`;
}

/** Body of the sql_drop function: DROP of anything not temporary (ddl_command_end lists no dropped objects). */
function dropBody(channel: string): string {
  return `
BEGIN
  IF EXISTS (
    SELECT FROM pg_catalog.pg_event_trigger_dropped_objects()
    WHERE NOT is_temporary AND object_type <> 'index'
  ) THEN
    NOTIFY ${quoteIdent(channel)}, 'reload schema';
  END IF;
END
`;
}

/** The install script: idempotent (it replaces what an earlier run made); run it as a superuser. */
export function schemaWatchSql(channel: string): string {
  const schema = quoteIdent(WATCH_SCHEMA);
  return `CREATE SCHEMA IF NOT EXISTS ${schema};

CREATE OR REPLACE FUNCTION ${schema}.watch_ddl() RETURNS event_trigger
  LANGUAGE plpgsql AS $watch$${ddlBody(channel)}$watch$;

CREATE OR REPLACE FUNCTION ${schema}.watch_drop() RETURNS event_trigger
  LANGUAGE plpgsql AS $watch$${dropBody(channel)}$watch$;

DROP EVENT TRIGGER IF EXISTS ${WATCH_DDL_TRIGGER};
CREATE EVENT TRIGGER ${WATCH_DDL_TRIGGER} ON ddl_command_end EXECUTE FUNCTION ${schema}.watch_ddl();

DROP EVENT TRIGGER IF EXISTS ${WATCH_DROP_TRIGGER};
CREATE EVENT TRIGGER ${WATCH_DROP_TRIGGER} ON sql_drop EXECUTE FUNCTION ${schema}.watch_drop();
`;
}

/** Both triggers are there, on their events, with the functions this version of dbrest writes. */
const CURRENT_SQL = `
SELECT count(*) = 2 AS current
FROM pg_catalog.pg_event_trigger e
JOIN pg_catalog.pg_proc p ON p.oid = e.evtfoid
WHERE (e.evtname, e.evtevent::text, p.prosrc) IN (($1, 'ddl_command_end', $2), ($3, 'sql_drop', $4))`;

export type SchemaWatchOutcome =
  | { readonly kind: 'present' }
  | { readonly kind: 'installed' }
  /** Not installed: the role may not (not a superuser), or another failure; `reason` says which. */
  | { readonly kind: 'failed'; readonly reason: string; readonly privilege: boolean };

/**
 * Install the watch on `client`'s database unless it is already there as written. Runs in one
 * transaction under an advisory lock, so servers starting together do not race. A disabled trigger
 * (ALTER EVENT TRIGGER … DISABLE) counts as present: someone turned it off on purpose.
 */
export async function installSchemaWatch(client: pg.ClientBase, channel: string): Promise<SchemaWatchOutcome> {
  const isCurrent = async () =>
    (await client.query<{ current: boolean }>(CURRENT_SQL, [WATCH_DDL_TRIGGER, ddlBody(channel), WATCH_DROP_TRIGGER, dropBody(channel)])).rows[0]?.current === true;
  try {
    // Checked first: an unchanged install runs no DDL (which would itself notify every listener).
    if (await isCurrent()) return { kind: 'present' };
    await client.query('BEGIN');
    try {
      await client.query(`SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('dbrest.schema_watch'))`);
      const raced = await isCurrent();
      if (!raced) await client.query(schemaWatchSql(channel));
      await client.query('COMMIT');
      return { kind: raced ? 'present' : 'installed' };
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  } catch (e) {
    const code = (e as { code?: string }).code;
    return { kind: 'failed', reason: (e as Error).message, privilege: code === '42501' };
  }
}

/** installSchemaWatch on a connection of its own to `uri` (given up after `timeoutMs` to connect). */
export async function ensureSchemaWatch(uri: string, channel: string, timeoutMs = 10_000): Promise<SchemaWatchOutcome> {
  const client = new pg.Client({ connectionString: uri, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await installSchemaWatch(client, channel);
  } catch (e) {
    return { kind: 'failed', reason: (e as Error).message, privilege: false };
  } finally {
    await client.end().catch(() => undefined);
  }
}
