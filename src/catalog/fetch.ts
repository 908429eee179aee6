// The one impure file of the schema cache: runs the catalog queries (src/catalog/sql/*.ts) in one
// read-only, repeatable-read transaction - one consistent snapshot - and returns their rows
// untouched, plus how long it took. Turning rows into a SchemaCache is build.ts's job.
import { performance } from 'node:perf_hooks';
import type { RawCatalog, RawColumn, RawRelationRow } from './raw.js';
import { COMPUTED_RELATIONSHIPS_SQL } from './sql/computed-relationships.js';
import { FOREIGN_KEYS_SQL } from './sql/foreign-keys.js';
import { MEDIA_HANDLERS_SQL } from './sql/media-handlers.js';
import { COLUMNS_SQL, RELATIONS_SQL } from './sql/relations.js';
import { REPRESENTATIONS_SQL } from './sql/representations.js';
import { ROUTINES_SQL } from './sql/routines.js';
import { TYPES_SQL } from './sql/types.js';
import { SERVER_VERSION_SQL } from './sql/version.js';
import { VIEW_SOURCES_SQL } from './sql/view-sources.js';

/** What fetchCatalog needs of a connection: a pg.Client or a pg.PoolClient (not a Pool: the
 * queries must share one transaction). */
export interface CatalogClient {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** The helper connection (a pg.Client): fetchCatalog ends it when it comes too late to be of use. */
export interface CatalogHelper extends CatalogClient {
  end(): Promise<void>;
}

/**
 * Several statements in one simple-protocol query (one round trip: on a cold start the event loop
 * is busy loading modules, and every extra trip waits for a turn of it); each one's rows.
 */
async function many(client: CatalogClient, ...statements: string[]): Promise<unknown[][]> {
  const res = (await client.query(statements.join(';\n'))) as { rows: unknown[] } | Array<{ rows: unknown[] }>;
  return Array.isArray(res) ? res.map((r) => r.rows) : [res.rows];
}

/**
 * The settings of a catalog transaction. An empty search_path makes format_type() and
 * regprocedure qualify every name outside pg_catalog, so the types and signatures we store are
 * unambiguous (PostgREST does the same). work_mem: a big catalog's column list (tens of MB of
 * JSON) is sorted in memory, not on disk.
 */
const CATALOG_SETTINGS_SQL = "SELECT set_config('search_path', '', true), set_config('work_mem', '64MB', true)";
/**
 * The connection that reads the columns also turns nested loops off: the planner cannot estimate
 * how many relations the schema filter keeps (it guesses a handful), so it would probe
 * pg_attribute, pg_type, pg_attrdef… by index once per column; with thousands of tables hash joins
 * cost about a tenth less there (measured at 5,000 tables). The other queries are faster with
 * nested loops (the computed relationships' 25 ms → 2 ms), so the helper keeps them.
 */
const COLUMNS_SETTINGS_SQL = "SELECT set_config('enable_nestloop', 'off', true)";
const BEGIN_SQL = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';
/** `client`'s transaction: the snapshot, the settings, and nested loops off for the columns. */
const CLIENT_BEGIN = [BEGIN_SQL, CATALOG_SETTINGS_SQL, COLUMNS_SETTINGS_SQL] as const;

/**
 * Share `client`'s snapshot with `helper` (pg_export_snapshot / SET TRANSACTION SNAPSHOT), so the
 * two can read the catalog in parallel and still see one consistent state. False when the server
 * will not (a standby, a pooler in the way) or the helper cannot join within HELPER_WAIT_MS: then
 * everything runs on `client`. The export runs at
 * the transaction's top level: PostgreSQL refuses it inside a subtransaction (a savepoint), so a
 * failure ends `client`'s transaction and starts it again, before anything was read in it.
 */
async function shareSnapshot(client: CatalogClient, helper: CatalogHelper): Promise<boolean> {
  let id: string;
  try {
    const { rows } = await client.query('SELECT pg_catalog.pg_export_snapshot() AS id');
    id = String((rows[0] as { id?: unknown } | undefined)?.id ?? '');
  } catch {
    await many(client, 'ROLLBACK', ...CLIENT_BEGIN);
    return false;
  }
  // A snapshot id is hex digits and dashes; checked, as SET TRANSACTION SNAPSHOT takes no parameter.
  if (!/^[0-9A-Fa-f-]+$/.test(id)) return false;
  const joined = many(helper, BEGIN_SQL, `SET TRANSACTION SNAPSHOT '${id}'`, CATALOG_SETTINGS_SQL).then(() => true, () => false);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), HELPER_WAIT_MS)));
  const outcome = await Promise.race([joined, waited]);
  clearTimeout(timer);
  if (outcome === true) return true;
  if (outcome === false) {
    await helper.query('ROLLBACK').catch(() => undefined);
    return false;
  }
  // Late: a pooler has no server connection for the helper while `client` holds one (several
  // workers loading at once through a PgBouncer pool of two: each one's client held a connection
  // and each helper waited for another, for ever). The load goes on on `client` alone, and the
  // helper is ended now: its BEGIN, still queued in the pooler, would otherwise get the next free
  // server connection and keep it in a transaction (aborted once the snapshot is gone) until the
  // caller closed the helper, after its next query on `client`, which waits for that connection:
  // for ever with a pool of one, or with two workers on a pool of two. (A pg.Client not in
  // pipeline mode drops its socket at once when ended with a query under way.)
  await helper.end().catch(() => undefined);
  return false;
}

/** How long the helper may wait to join `client`'s snapshot before the load goes on without it. */
const HELPER_WAIT_MS = 1000;

/**
 * Where a catalog load is, for a progress line (observe/progress.ts): the query or stage under
 * way and the counts read so far (null: not read yet).
 */
export interface CatalogProgress {
  readonly phase: 'relations' | 'columns' | 'foreign keys' | 'view sources' | 'functions' | 'computed relationships' | 'media handlers' | 'types' | 'building';
  readonly relations: number | null;
  readonly functions: number | null;
  /** The columns (the biggest query, run beside the others) are in. */
  readonly columnsRead: boolean;
}

/**
 * With a `helper` connection (not in a transaction), the biggest query (the columns) runs on
 * `client` while the others run on `helper`, in the same snapshot: on a big catalog that is most of
 * the fetch time saved from a cold start. The helper is left open for the caller to close, unless
 * it could not join within HELPER_WAIT_MS: then it is ended here (shareSnapshot).
 */
export async function fetchCatalog(
  client: CatalogClient,
  schemas: readonly string[],
  helper: CatalogHelper | null = null,
  onProgress: ((p: CatalogProgress) => void) | null = null,
): Promise<{ raw: RawCatalog; ms: number; parallel: boolean }> {
  const started = performance.now();
  const params = [[...schemas]];
  const run = async (on: CatalogClient, text: string, values?: unknown[]): Promise<unknown[]> => (await on.query(text, values)).rows;
  let state: CatalogProgress = { phase: 'relations', relations: null, functions: null, columnsRead: false };
  const tell = (next: Partial<CatalogProgress>): void => {
    state = { ...state, ...next };
    onProgress?.(state);
  };
  // Each of the other queries, with its phase announced before it runs.
  const step = async <T>(phase: CatalogProgress['phase'], on: CatalogClient, text: string, values?: unknown[]): Promise<T> => {
    if (onProgress) tell({ phase });
    return (await run(on, text, values)) as T;
  };
  await many(client, ...CLIENT_BEGIN);
  let shared = false;
  let raw: RawCatalog;
  try {
    shared = helper !== null && (await shareSnapshot(client, helper));
    const other = shared ? helper! : client;
    // The columns are about as much work as all the rest together. pg queues a client's queries:
    // on one client it all simply runs in turn.
    const [columns, rest] = await Promise.all([
      (run(client, COLUMNS_SQL, params) as Promise<Array<{ oid: number; columns: RawColumn[] }>>).then((rows) => {
        if (onProgress) tell({ columnsRead: true });
        return rows;
      }),
      (async () => {
        const version = await run(other, SERVER_VERSION_SQL);
        const relations = await step<Array<Omit<RawRelationRow, 'columns'>>>('relations', other, RELATIONS_SQL, params);
        if (onProgress) tell({ relations: relations.length });
        const foreignKeys = await step<unknown[]>('foreign keys', other, FOREIGN_KEYS_SQL, params);
        const viewSources = await step<unknown[]>('view sources', other, VIEW_SOURCES_SQL, params);
        const routines = await step<unknown[]>('functions', other, ROUTINES_SQL, params);
        if (onProgress) tell({ functions: routines.length });
        return {
          version,
          relations,
          foreignKeys,
          viewSources,
          routines,
          computedRelationships: await step<unknown[]>('computed relationships', other, COMPUTED_RELATIONSHIPS_SQL, params),
          mediaHandlers: await step<unknown[]>('media handlers', other, MEDIA_HANDLERS_SQL, params),
          representations: await run(other, REPRESENTATIONS_SQL),
          types: await step<unknown[]>('types', other, TYPES_SQL, params),
        };
      })(),
    ]);
    const byOid = new Map<number, RawColumn[]>();
    for (const c of columns) byOid.set(c.oid, c.columns);
    const relations: RawRelationRow[] = rest.relations.map((r) => ({ ...r, columns: byOid.get(r.oid) ?? [] }));
    raw = { ...rest, relations } as RawCatalog;
    await client.query('COMMIT');
    if (shared) await helper!.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (shared) await helper!.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
  return { raw, ms: performance.now() - started, parallel: shared };
}
