// MutatePlan → ONE statement (PostgREST's QueryBuilder.mutatePlanToQuery + Statements.prepareWrite).
// Pure. The payload is ONE json parameter unpacked in SQL, typed by the schema cache:
//
//   WITH pgrst_mutation AS (
//     INSERT INTO "s"."t" AS "t" ("a", "b")
//     SELECT pgrst_body."a", pgrst_body."b"
//     FROM pg_catalog.json_to_recordset($1::json) AS pgrst_body("a" integer, "b" text)
//     RETURNING "t".*),
//   pgrst_source AS (<select= and embeds over pgrst_mutation, sql/read.ts's buildReadBody>)
//   SELECT count, body, location, inserted, response.headers, response.status, postcondition
//   FROM (SELECT * FROM pgrst_source) _postgrest_t
//
// Checks PostgREST makes after the statement and answers by rolling back (max-affected, PUT's key
// match, a singular response) are written INTO the statement as a postcondition: when one fails the
// statement raises, the transaction's COMMIT becomes a rollback, and http/ reads the failure back with
// postconditionFailure(). So a write stays one round trip and never leaves partial changes.
import { randomBytes } from 'node:crypto';
import type { LimitedRows, MutatePlan, MutationBody, Returning } from '../plan/mutate-plan.js';
import { logicSql, orderSql } from './filters.js';
import { catalogExpression, catalogType, compile, constant, ident, join, qualified, rowCount, sql, value, type Sql, type Statement } from './fragment.js';
import { withResponseCap } from './response-cap.js';
import { mediaBodySql } from './media.js';
import { buildReadBody, responseHeadersSql, responseStatusSql } from './read.js';


// ---- postconditions -------------------------------------------------------------------------------

/** A check on the response rows that, failing, aborts the transaction (PostgREST's SQL.condemn). */
export interface Postcondition {
  /** The error http/ answers with; the failing row count travels with it. */
  readonly code: 'DBRST110' | 'DBRST115' | 'DBRST116' | 'DBRST124';
  /** True when the request must fail; may use `count`. */
  readonly fails: (count: Sql) => Sql;
}

/**
 * Random per process: a request body or a user's function may raise any text it likes, including a
 * fixed marker; only this process knows its own, so only its own postconditions match.
 */
export const POSTCONDITION_MARK = `dbrest-postcondition-${randomBytes(12).toString('hex')}`;

/**
 * `CASE WHEN <fails> THEN ('<mark> DBRST124 ' || count)::integer END`: plain SQL has
 * no RAISE, so a failed check makes an integer cast fail (22P02) with a recognisable text. The
 * text includes the aggregate, so PostgreSQL cannot fold the branch at plan time.
 */
export function postconditionSql(checks: ReadonlyArray<Postcondition>, count: Sql): Sql {
  if (checks.length === 0) return constant('NULL::integer');
  const whens = checks.map((c) => {
    const text = sql`(${value(`${POSTCONDITION_MARK} ${c.code} `, 'text')} || (${count})::text)::integer`;
    return sql`WHEN ${c.fails(count)} THEN ${text}`;
  });
  return sql`CASE ${join(whens, constant(' '))} END`;
}

// The mark is letters, digits and dashes: nothing to escape. Quoted whole, as PostgreSQL quotes the
// text it could not cast (in any lc_messages), so a value that merely contains it does not match.
const MARKED = new RegExp(`"${POSTCONDITION_MARK} (DBRST1\\d\\d) (\\d+)"`);

/** The failed postcondition behind a database error, or null when the error is a real one. */
export function postconditionFailure(e: { readonly code: string; readonly message: string }): { readonly code: Postcondition['code']; readonly rows: number } | null {
  if (e.code !== '22P02') return null;
  const m = MARKED.exec(e.message);
  if (!m) return null;
  return { code: m[1] as Postcondition['code'], rows: Number(m[2]) };
}

// ---- the statement ---------------------------------------------------------------------------------

export interface MutateStatementOptions {
  /** `Accept: application/vnd.pgrst.object+json`: exactly one row, else DBRST116 (rolled back). */
  readonly singular: boolean;
  /**
   * `Accept: text/csv`, `application/x-ndjson` or `application/geo+json` with return=representation:
   * the body is built in SQL as a read's is (sql/media.ts), not as the JSON array.
   */
  readonly text?: 'csv' | 'ndjson' | 'geojson';
  /** server-max-response-bytes: a larger body fails the statement (sql/response-cap.ts). */
  readonly maxResponseBytes?: number;
}

/**
 * One result row: `page_count` (bigint), `body` (JSON array text or NULL), `location` (JSON object
 * text of the single inserted row's key, or NULL), `inserted` (rows really inserted by an upsert, or
 * NULL), `response_headers`, `response_status`, `postcondition` (always NULL when it returns).
 */
export function buildMutateStatement(plan: MutatePlan, opts: MutateStatementOptions): Sql {
  const ctes: Sql[] = [];
  const m = plan.mutation;
  const limited = m.kind === 'insert' ? null : m.limited;
  if (limited) ctes.push(sql`pgrst_affected_rows AS (${affectedRowsSql(plan, limited)})`);
  ctes.push(sql`pgrst_mutation AS (${mutationSql(plan)})`);
  const representation = plan.representation === 'representation';
  const rowsFrom = representation && plan.read ? constant('pgrst_source') : constant('pgrst_mutation');
  if (representation && plan.read) ctes.push(sql`pgrst_source AS (${buildReadBody(constant('pgrst_mutation'), plan.read)})`);

  const count = constant('pg_catalog.count(_postgrest_t)');
  const body = !representation
    ? constant('NULL::text')
    : opts.text === 'csv'
      ? mediaBodySql({ kind: 'csv', header: rowsFrom })
      : opts.text === 'ndjson'
        ? mediaBodySql({ kind: 'ndjson', scalar: false })
        : opts.text === 'geojson'
          ? mediaBodySql({ kind: 'geojson' })
          : sql`coalesce(pg_catalog.json_agg(_postgrest_t), '[]')::text`;
  const location =
    m.kind === 'insert' && plan.action === 'create' && plan.representation === 'headers-only' && plan.primaryKey.length > 0
      ? sql`CASE WHEN ${count} = 1 THEN (pg_catalog.json_agg(_postgrest_t) -> 0)::text END`
      : constant('NULL::text');
  const inserted = plan.countInserted
    ? constant(`nullif(pg_catalog.current_setting('dbrest.inserted', true), '')::integer`)
    : constant('NULL::integer');

  const checks: Postcondition[] = [];
  if (plan.action === 'upsert') checks.push({ code: 'DBRST115', fails: (n) => sql`${n} <> 1` });
  if (opts.singular) checks.push({ code: 'DBRST116', fails: (n) => sql`${n} <> 1` });
  if (plan.maxAffected !== null) {
    const max = plan.maxAffected;
    checks.push({ code: 'DBRST124', fails: (n) => sql`${n} > ${value(max, 'bigint')}` });
  }
  if (plan.rowLimit !== null) {
    const max = plan.rowLimit;
    checks.push({ code: 'DBRST110', fails: (n) => sql`${n} > ${value(max, 'bigint')}` });
  }

  const select = sql`SELECT ${count} AS page_count, ${body} AS body, ${location} AS location, ${inserted} AS inserted, ${responseHeadersSql} AS response_headers, ${responseStatusSql} AS response_status, ${postconditionSql(checks, count)} AS postcondition FROM (SELECT * FROM ${rowsFrom}) AS _postgrest_t`;
  return withResponseCap(sql`WITH ${join(ctes)} `, select, opts.maxResponseBytes);
}

/**
 * A plain insert whose answer needs nothing from its rows (return=minimal, no count of really
 * inserted rows, no postcondition) goes out as two statements instead of the CTE: the INSERT
 * itself, its row count read from the command tag, then `SELECT <response.headers>,
 * <response.status>`. One batch, one implicit transaction as before; PostgreSQL spent 69 µs of CPU
 * per W4 batch this way against 78 µs for the CTE (test/bench/insert-cpu.ts, 9 × 1,000 batches).
 * Null when the request needs the CTE (buildMutateStatement). The GUC select runs after the INSERT's AFTER triggers, so it
 * also sees response.* they set (the CTE's outer SELECT, as PostgREST's, does not).
 */
export function plainInsertStatement(plan: MutatePlan, opts: Pick<MutateStatementOptions, 'singular'>): Sql | null {
  const m = plan.mutation;
  if (m.kind !== 'insert' || plan.action !== 'create' || plan.representation !== 'minimal') return null;
  if (plan.countInserted || opts.singular || plan.maxAffected !== null || plan.rowLimit !== null) return null;
  return mutationSql({ ...plan, returning: NO_RETURNING });
}

const NO_RETURNING = { kind: 'none' } as const satisfies Returning;

/** What follows a plain insert: the response.* GUCs, as the CTE's outer SELECT reads them. */
export const responseGucsStatement: Statement = compile(sql`SELECT ${responseHeadersSql} AS response_headers, ${responseStatusSql} AS response_status`);

/** The INSERT / UPDATE / DELETE (or the empty-update SELECT) that goes into `pgrst_mutation`. */
export function mutationSql(plan: MutatePlan): Sql {
  const m = plan.mutation;
  const target = sql`${qualified(plan.relation)} AS ${ident(plan.alias)}`;
  const returning = returningSql(plan.alias, plan.returning);
  const where = (conds: ReadonlyArray<Sql>) => (conds.length === 0 ? constant('') : sql` WHERE ${join(conds, constant(' AND '))}`);
  const noEmbeds = () => {
    throw new Error('a write filter cannot name an embedded resource');
  };
  switch (m.kind) {
    case 'insert': {
      const cols = m.body.columns;
      const colList = cols.length === 0 ? constant('') : sql` (${join(cols.map((c) => ident(c.name)))})`;
      const conds: Sql[] = [];
      // Count candidate rows (+1) and conflicting ones (-1): what remains was inserted (PostgREST).
      if (plan.countInserted) conds.push(insertedCounter(+1));
      for (const c of m.putConditions) conds.push(logicSql('pgrst_body', c, noEmbeds));
      let conflict = constant('');
      if (m.onConflict && m.onConflict.columns.length > 0) {
        const on = join(m.onConflict.columns.map(ident));
        if (m.onConflict.action === 'ignore' || cols.length === 0) {
          conflict = sql` ON CONFLICT (${on}) DO NOTHING`;
        } else {
          const set = join(cols.map((c) => sql`${ident(c.name)} = EXCLUDED.${ident(c.name)}`));
          const onUpdate = plan.countInserted ? sql` WHERE ${insertedCounter(-1)}` : constant('');
          conflict = sql` ON CONFLICT (${on}) DO UPDATE SET ${set}${onUpdate}`;
        }
      }
      const select = join(cols.map((c) => sql`pgrst_body.${ident(c.name)}`));
      return sql`INSERT INTO ${target}${colList} SELECT ${select} ${payloadFromSql(m.body)}${where(conds)}${conflict} ${returning}`;
    }
    case 'update': {
      const cols = m.body.columns;
      if (cols.length === 0) {
        // Nothing to set: no row changes, but the representation still has its columns.
        return sql`SELECT ${returningList(plan.alias, plan.returning)} FROM ${target} WHERE false`;
      }
      const set = join(cols.map((c) => sql`${ident(c.name)} = pgrst_body.${ident(c.name)}`));
      if (m.limited) {
        return sql`UPDATE ${target} SET ${set} ${payloadFromSql(m.body)}, pgrst_affected_rows${where([identityMatch(plan.alias, m.limited)])} ${returning}`;
      }
      const conds = m.where.map((l) => logicSql(plan.alias, l, noEmbeds));
      return sql`UPDATE ${target} SET ${set} ${payloadFromSql(m.body)}${where(conds)} ${returning}`;
    }
    case 'delete': {
      if (m.limited) {
        return sql`DELETE FROM ${target} USING pgrst_affected_rows${where([identityMatch(plan.alias, m.limited)])} ${returning}`;
      }
      const conds = m.where.map((l) => logicSql(plan.alias, l, noEmbeds));
      return sql`DELETE FROM ${target}${where(conds)} ${returning}`;
    }
  }
}

/**
 * The rows a limited PATCH/DELETE may touch: `SELECT <identity> FROM t WHERE … ORDER BY … LIMIT n
 * OFFSET m` (PostgREST's pgrst_affected_rows).
 */
function affectedRowsSql(plan: MutatePlan, limited: LimitedRows): Sql {
  const m = plan.mutation;
  const where = m.kind === 'insert' ? [] : m.where;
  const a = ident(plan.alias);
  const ids =
    limited.identity.kind === 'ctid'
      ? sql`${a}.tableoid AS pgrst_tableoid, ${a}.ctid AS pgrst_ctid`
      : join(limited.identity.columns.map((c) => sql`${a}.${ident(c)}`));
  const noEmbeds = () => {
    throw new Error('a write filter cannot name an embedded resource');
  };
  let q = sql`SELECT ${ids} FROM ${qualified(plan.relation)} AS ${a}`;
  if (where.length > 0) q = sql`${q} WHERE ${join(where.map((l) => logicSql(plan.alias, l, noEmbeds)), constant(' AND '))}`;
  if (limited.order.length > 0) q = sql`${q} ORDER BY ${orderSql(plan.alias, limited.order, noEmbeds)}`;
  if (limited.range.limit !== null) q = sql`${q} LIMIT ${rowCount(limited.range.limit)}`;
  if (limited.range.offset > 0) q = sql`${q} OFFSET ${rowCount(limited.range.offset)}`;
  return q;
}

function identityMatch(alias: string, limited: LimitedRows): Sql {
  const a = ident(alias);
  if (limited.identity.kind === 'ctid') {
    return sql`${a}.tableoid = pgrst_affected_rows.pgrst_tableoid AND ${a}.ctid = pgrst_affected_rows.pgrst_ctid`;
  }
  return join(
    limited.identity.columns.map((c) => sql`${a}.${ident(c)} = pgrst_affected_rows.${ident(c)}`),
    constant(' AND '),
  );
}

function returningList(alias: string, r: Returning): Sql {
  switch (r.kind) {
    case 'none':
      return constant('1');
    case 'all':
      return sql`${ident(alias)}.*`;
    case 'columns':
      return join(r.columns.map((c) => sql`${ident(alias)}.${ident(c)}`));
  }
}

const returningSql = (alias: string, r: Returning | typeof NO_RETURNING): Sql => (r === NO_RETURNING ? constant('') : sql`RETURNING ${returningList(alias, r)}`);

/**
 * `set_config('dbrest.inserted', n ± 1)`, always true: +1 per candidate row of an upsert, -1 per row
 * that took the DO UPDATE path, so the setting ends at the number of rows really inserted.
 */
function insertedCounter(delta: 1 | -1): Sql {
  const current = constant(`coalesce(nullif(pg_catalog.current_setting('dbrest.inserted', true), '')::integer, 0)`);
  return delta === 1
    ? sql`pg_catalog.set_config('dbrest.inserted', (${current} + 1)::text, true) <> '0'`
    : sql`pg_catalog.set_config('dbrest.inserted', (${current} - 1)::text, true) <> '-1'`;
}

// ---- the payload -------------------------------------------------------------------------------

/**
 * `FROM (SELECT $1::json AS json_data) pgrst_payload, LATERAL (SELECT … FROM json_to_recordset(…)
 * AS _(col type, …)) pgrst_body` (PostgREST's fromJsonBodyF). With `Prefer: missing=default` the
 * payload is jsonb and each element is laid over `{"col": <DEFAULT>, …}` (its own keys win).
 */
export function payloadFromSql(body: MutationBody, opts: { readonly limitOne?: boolean } = {}): Sql {
  const defaults = body.applyDefaults ? body.columns.filter((c) => c.default !== null) : [];
  const useDefaults = defaults.length > 0;
  const param = useDefaults ? value(body.text, 'jsonb') : value(body.text, 'json');
  const represented = body.columns.some((c) => c.fromJson);
  if (!useDefaults && !represented && body.columns.length > 0 && (body.isObject || !opts.limitOne)) {
    // The common case, without the layers: fewer plan nodes to start and a shorter text for
    // PostgreSQL to copy on every execution. json_to_record gives exactly one row, so a LIMIT 1
    // is only needed for an array.
    const fn = body.isObject ? constant('pg_catalog.json_to_record') : constant('pg_catalog.json_to_recordset');
    const typed = join(body.columns.map((c) => sql`${ident(c.name)} ${catalogType(c.type)}`));
    return sql`FROM ${fn}(${param}) AS pgrst_body(${typed})`;
  }
  let from = sql`FROM (SELECT ${param} AS json_data) pgrst_payload`;
  let src = constant('pgrst_payload.json_data');
  if (useDefaults) {
    // Every default is evaluated for every element, as PostgREST does: a sequence advances once
    // per row even for rows that give the column (postgrest-js "bulk upsert with column defaults").
    const defaultsObject = sql`pg_catalog.jsonb_build_object(${join(defaults.map((c) => sql`${value(c.name, 'text')}, ${catalogExpression(c.default!)}`))})`;
    const withDefaults = (elem: Sql) => sql`${defaultsObject} || ${elem}`;
    from = body.isObject
      ? sql`${from}, LATERAL (SELECT ${withDefaults(constant('pgrst_payload.json_data'))} AS val) pgrst_json_defs`
      : sql`${from}, LATERAL (SELECT pg_catalog.jsonb_agg(${withDefaults(constant('elem'))}) AS val FROM pg_catalog.jsonb_array_elements(pgrst_payload.json_data) AS elem) pgrst_json_defs`;
    src = constant('pgrst_json_defs.val');
  }
  const fn = useDefaults
    ? body.isObject ? constant('pg_catalog.jsonb_to_record') : constant('pg_catalog.jsonb_to_recordset')
    : body.isObject ? constant('pg_catalog.json_to_record') : constant('pg_catalog.json_to_recordset');
  const limit = opts.limitOne ? constant(' LIMIT 1') : constant('');
  let rows: Sql;
  if (body.columns.length === 0) {
    // `{}` is one row of nothing; `[{}, {}]` as many rows as elements.
    const elements = useDefaults ? constant('pg_catalog.jsonb_array_elements') : constant('pg_catalog.json_array_elements');
    rows = body.isObject ? sql`SELECT FROM (VALUES (1)) AS _` : sql`SELECT FROM ${elements}(${src}) AS _`;
  } else {
    // Domain representations: a column with a cast from json is read as json and converted.
    const names = join(body.columns.map((c) => (c.fromJson ? sql`${qualified(c.fromJson)}(_.${ident(c.name)}) AS ${ident(c.name)}` : ident(c.name))));
    const typed = join(body.columns.map((c) => sql`${ident(c.name)} ${c.fromJson ? constant('json') : catalogType(c.type)}`));
    rows = sql`SELECT ${names} FROM ${fn}(${src}) AS _(${typed})`;
  }
  return sql`${from}, LATERAL (${rows}${limit}) pgrst_body`;
}
