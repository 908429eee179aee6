// ReadPlan → SQL: one statement however deep the embedding, the JSON built in PostgreSQL
// (PostgREST's QueryBuilder.readPlanToQuery + Statements.prepareRead). Pure.
//
// Shape of a node (the root, or any embedded node inside its parent's LATERAL join):
//
//   SELECT <columns>, row_to_json("projects_clients_1".*) AS "clients",           -- to-one
//          COALESCE("projects_tasks_1"."projects_tasks_1", '[]') AS "tasks"        -- to-many
//   FROM "test"."projects" AS "projects"
//   LEFT JOIN LATERAL (SELECT … FROM "test"."clients" AS "clients_1"
//                      WHERE "clients_1"."id" = "projects"."client_id") AS "projects_clients_1" ON TRUE
//   LEFT JOIN LATERAL (SELECT json_agg("projects_tasks_1") AS "projects_tasks_1"
//                      FROM (SELECT … FROM "test"."tasks" AS "tasks_1" WHERE … ORDER BY … LIMIT …)
//                      AS "projects_tasks_1") AS "projects_tasks_1" ON TRUE
//   WHERE … [GROUP BY …] ORDER BY … LIMIT $n OFFSET $m
//
// `!inner` turns LEFT into INNER (to-many: ON the array IS NOT NULL, i.e. at least one child); a
// spread `...clients(…)` selects the LATERAL's columns into the parent (`"projects_clients_1".*`);
// a to-many spread `...tasks(name)` aggregates each column in its LATERAL
// (`json_agg("clients_tasks_1"."name") AS "name"`) and the parent selects `COALESCE(…, '[]')`.
//
// THE SEAM FOR WRITES AND RPC. Every builder takes the root FROM item as an optional `source`, so the
// same select/embeds apply to rows that are not a table:
//
//   buildResultEnvelope({
//     ctes: [sql`pgrst_mutation AS (INSERT INTO … RETURNING "test"."projects".*)`],
//     rows: buildReadBody(sql`pgrst_mutation`, plan),
//     totalCount: constant('NULL::bigint'),
//   })
//   → WITH pgrst_mutation AS (…), pgrst_source AS (SELECT … FROM pgrst_mutation AS "projects" …)
//     SELECT NULL::bigint AS total_count, … FROM (SELECT * FROM pgrst_source) AS _postgrest_t
//
// - buildReadBody(source, plan): the root node over `source AS "<root alias>"` with embeds and the
//   root's order, but WITHOUT the root's filters and range (PostgREST applies those in the mutation
//   itself; the order also sorts the representation of the written rows).
//   The source must expose every column the select list, the root's embeds' join conditions and
//   `*` need — RETURNING * (or the table's row) is always enough.
// - buildReadRowsStatement(plan, { source?, rootFilters?, rootOrder?, rootRange? }): the general
//   form ("selectRows"); defaults apply everything, as a GET does.
// - buildResultEnvelope({ ctes, rows, totalCount }): the one-row result every action returns:
//   total_count, page_count, body (JSON array text, '[]' when empty), response_headers,
//   response_status.
// - buildReadStatement(plan, { count, maxRows }): GET's whole statement, built from the above.
import type { AggregateName, PlannedEmbed, PlannedOrder, PlannedSelect, ReadNode, ReadPlan } from '../plan/types.js';
import { buildCountQuery, rootFromSql } from './count.js';
import { rangeFirst } from './range-first.js';
import { withResponseCap } from './response-cap.js';
import { embedFromSql, fieldSql, joinConditionsSql, logicSql, orderTermsSql, type EmbedExistsSql } from './filters.js';
import { catalogType, constant, empty, ident, join, qualified, rowCount, sql, type Sql } from './fragment.js';

export { buildCountQuery, buildPlannedCountStatement } from './count.js';

export interface RowsOptions {
  /** Root FROM item instead of the plan's own source, e.g. sql`pgrst_source` (a CTE). */
  readonly source?: Sql;
  /** Apply the root's filters and logic trees (default true). */
  readonly rootFilters?: boolean;
  /** Apply the root's ORDER BY (default true). */
  readonly rootOrder?: boolean;
  /** Apply the root's LIMIT/OFFSET (default true). */
  readonly rootRange?: boolean;
}

/** The rows of the read, as JSON-ready columns: `SELECT … FROM … WHERE … ORDER BY … LIMIT …`. */
export function buildReadRowsStatement(plan: ReadPlan, opts: RowsOptions = {}): Sql {
  return nodeQuery(plan.root, rootFromSql(plan, opts.source), [], {
    where: opts.rootFilters ?? true,
    order: opts.rootOrder ?? true,
    range: opts.rootRange ?? true,
  });
}

/** The select/embeds of `plan` over the rows of `source` (a CTE of written rows, a call). */
export function buildReadBody(source: Sql, plan: ReadPlan): Sql {
  return buildReadRowsStatement(plan, { source, rootFilters: false, rootOrder: true, rootRange: false });
}

/** `nullif(current_setting('response.headers', true), '')`: what the request's SQL set, if anything. */
export const responseHeadersSql = constant(`nullif(current_setting('response.headers', true), '')`);
export const responseStatusSql = constant(`nullif(current_setting('response.status', true), '')`);

/**
 * The one-row result: `total_count` (bigint or NULL), `page_count` (bigint), `body` (text: the JSON
 * array of `rows`, `[]` when empty), `response_headers`, `response_status` (text or NULL).
 * `ctes` are extra `name AS (…)` items written before `pgrst_source` (which holds `rows`).
 * `body` replaces the JSON array with another representation of the rows (sql/media.ts).
 */
export function buildResultEnvelope(parts: { ctes?: ReadonlyArray<Sql>; rows: Sql; totalCount: Sql; body?: Sql; maxResponseBytes?: number }): Sql {
  const ctes = [...(parts.ctes ?? []), sql`pgrst_source AS (${parts.rows})`];
  const body = parts.body ?? jsonArrayBody;
  // The cap's column is last, so the columns before keep their places (http/read.ts reads them by index).
  // count(*), not PostgREST's count(_postgrest_t): the whole row is never NULL, so the count is the
  // same, and PostgreSQL does not build each row's composite a second time beside json_agg's (W2:
  // 69,000 instructions less per execution, callgrind: test/bench/read-pg-cpu.ts's notes).
  const select = sql`SELECT ${parts.totalCount} AS total_count, ${pageCountSql} AS page_count, ${body} AS body, ${responseHeadersSql} AS response_headers, ${responseStatusSql} AS response_status FROM (SELECT * FROM pgrst_source) AS _postgrest_t`;
  return withResponseCap(sql`WITH ${join(ctes)} `, select, parts.maxResponseBytes);
}

const pageCountSql = constant('pg_catalog.count(*)');
const jsonArrayBody = constant(`coalesce(json_agg(_postgrest_t), '[]')::text`);

/**
 * GET's statement. `count: 'exact'` counts every filtered row; `'estimated'` counts up to
 * `maxRows + 1` rows (the caller takes the larger of that and the planned count once it passes
 * `maxRows`: estimatedTotal in sql/count.ts); null → NULL.
 */
export function buildReadStatement(
  plan: ReadPlan,
  opts: { readonly count: 'exact' | 'estimated' | null; readonly maxRows: number | null; readonly body?: Sql; readonly maxResponseBytes?: number },
): Sql {
  const parts = { rows: buildReadRowsStatement(plan), totalCount: totalCountSql(plan, opts), maxResponseBytes: opts.maxResponseBytes ?? 0 };
  return buildResultEnvelope(opts.body === undefined ? parts : { ...parts, body: opts.body });
}

function totalCountSql(plan: ReadPlan, opts: { count: 'exact' | 'estimated' | null; maxRows: number | null }): Sql {
  if (opts.count === null) return constant('NULL::bigint');
  // No db-max-rows, limit or offset: every filtered row is on the page, so the page's own count is
  // the total and the plan holds one count aggregate (PostgREST's countF does the same).
  if (opts.maxRows === null && plan.range.offset === 0 && plan.range.limit === null) return pageCountSql;
  const countQuery = buildCountQuery(plan);
  if (opts.count === 'exact' || opts.maxRows === null) {
    return sql`(SELECT pg_catalog.count(*) FROM (${countQuery}) AS pgrst_count)`;
  }
  // LIMIT max+1 rows so "more than max" is visible without counting everything.
  return sql`(SELECT pg_catalog.count(*) FROM (${countQuery} LIMIT ${rowCount(opts.maxRows + 1)}) AS pgrst_count)`;
}

// ---- nodes ----------------------------------------------------------------------------------------

interface Apply {
  readonly where: boolean;
  readonly order: boolean;
  readonly range: boolean;
}

const ALL: Apply = { where: true, order: true, range: true };

function nodeQuery(node: ReadNode, from: Sql, joinConds: ReadonlyArray<Sql>, apply: Apply): Sql {
  const { items, groupBy } = selectList(node);
  const joins = node.embeds.map((e) => lateralJoin(e, node.alias));

  const embedExists: EmbedExistsSql = (name, exists) => {
    const e = embedNamed(node, name);
    const L = ident(e.lateralAlias);
    if (e.toOne) return exists ? sql`${L} IS DISTINCT FROM NULL` : sql`${L} IS NOT DISTINCT FROM NULL`;
    return exists ? sql`${L}.${L} IS NOT NULL` : sql`${L}.${L} IS NULL`;
  };
  const conds = [...joinConds, ...(apply.where ? node.where.map((l) => logicSql(node.alias, l, embedExists)) : [])];

  const orderBy = apply.order && node.order.length > 0 ? sql` ORDER BY ${orderTermsSql(node.order, (o) => orderTarget(node, o))}` : empty;
  if (apply.range && rangeFirst(node)) {
    // The page is chosen on the relation alone, then only its rows are joined to the embeds
    // (re-sorted: the joins need not keep the subquery's order).
    let page = sql`SELECT ${ident(node.alias)}.* FROM ${from}`;
    if (conds.length > 0) page = sql`${page} WHERE ${join(conds, constant(' AND '))}`;
    page = sql`${page}${orderBy}${rangeSql(node)}`;
    return sql`SELECT ${join(items)} FROM (${page}) AS ${ident(node.alias)} ${join(joins, constant(' '))}${orderBy}`;
  }

  let q = sql`SELECT ${join(items)} FROM ${from}`;
  if (joins.length > 0) q = sql`${q} ${join(joins, constant(' '))}`;
  if (conds.length > 0) q = sql`${q} WHERE ${join(conds, constant(' AND '))}`;
  if (groupBy.length > 0) q = sql`${q} GROUP BY ${join(groupBy)}`;
  q = sql`${q}${orderBy}`;
  return apply.range ? sql`${q}${rangeSql(node)}` : q;
}

function rangeSql(node: ReadNode): Sql {
  let r = empty;
  if (node.range.limit !== null) r = sql`${r} LIMIT ${rowCount(node.range.limit)}`;
  if (node.range.offset > 0) r = sql`${r} OFFSET ${rowCount(node.range.offset)}`;
  return r;
}

/**
 * A term sorts by its field; in a grouped node, a term naming a grouped output column sorts by that
 * column's position instead (its JSON path keys are parameters, so the expressions would not match).
 */
function orderTarget(node: ReadNode, o: PlannedOrder): Sql {
  if (o.embed !== null) return fieldSql(embedNamed(node, o.embed).lateralAlias, o.field);
  if (node.aggregates) {
    const i = node.select.findIndex(
      (s) =>
        s.kind === 'field' &&
        s.aggregate === null &&
        s.cast === null &&
        s.field.column === o.field.column &&
        JSON.stringify(s.field.jsonPath) === JSON.stringify(o.field.jsonPath),
    );
    if (i >= 0) return ordinal(i + 1);
  }
  return fieldSql(node.alias, o.field);
}

function embedNamed(node: ReadNode, name: string): PlannedEmbed {
  const e = node.embeds.find((x) => x.outputName === name);
  if (!e) throw new Error(`no embed ${name} in ${node.name}`);
  return e;
}

// A to-many embed inside a to-many spread is aggregated per child like any other, so the spread's
// array holds one array per child (PostgREST: `"supervisor_ids":[[3,4],[1,2]]`), never flattened.
function lateralJoin(e: PlannedEmbed, parentAlias: string): Sql {
  const child = nodeQuery(e.node, embedFromSql(e, parentAlias), joinConditionsSql(e, parentAlias), ALL);
  const L = ident(e.lateralAlias);
  const kind = e.joinType === 'inner' ? constant('INNER JOIN LATERAL') : constant('LEFT JOIN LATERAL');
  if (e.toOne) return sql`${kind} (${child}) AS ${L} ON TRUE`;
  const on = e.joinType === 'inner' ? sql`${L}.${L} IS NOT NULL` : constant('TRUE');
  if (e.spread) {
    // To-many spread (PostgREST v13+): one array per output column, and `L.L` (true, or NULL when
    // there are no children) for `!inner` and the null-embed filter, as a to-many embed has.
    const arrays = outputNames(e.node).map((n) => sql`json_agg(${L}.${ident(n)}) AS ${ident(n)}`);
    return sql`${kind} (SELECT ${join([...arrays, sql`bool_or(TRUE) AS ${L}`])} FROM (${child}) AS ${L}) AS ${L} ON ${on}`;
  }
  return sql`${kind} (SELECT json_agg(${L}) AS ${L} FROM (${child}) AS ${L}) AS ${L} ON ${on}`;
}

const AGGREGATE = {
  count: constant('COUNT'),
  sum: constant('SUM'),
  avg: constant('AVG'),
  min: constant('MIN'),
  max: constant('MAX'),
} as const;

/** `CAST(x AS type)`: the type was validated by the planner (letters, digits, `_`, spaces, `[]`). */
const castSql = (x: Sql, type: string | null): Sql => (type === null ? x : sql`CAST(${x} AS ${catalogType(type)})`);

/** GROUP BY position of an output column (digits only, never request text). */
function ordinal(n: number): Sql {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`bad ordinal ${n}`);
  return constant(String(n) as `${number}`);
}

function selectItemSql(alias: string, s: PlannedSelect, columns: ReadNode['columns']): Sql {
  switch (s.kind) {
    case 'star':
      // Domain representations: `*` is spelled out when a column has a cast to json, which is
      // applied to it (PostgREST's domain representations); otherwise `alias.*`.
      if (!columns.some((c) => c.representation?.toJson)) return sql`${ident(alias)}.*`;
      return join(columns.map((c) => {
        const toJson = c.representation?.toJson;
        return toJson ? sql`${qualified(toJson)}(${ident(alias)}.${ident(c.name)}) AS ${ident(c.name)}` : sql`${ident(alias)}.${ident(c.name)}`;
      }));
    case 'count':
      return sql`${castSql(constant('COUNT(*)'), s.cast)} AS ${ident(s.outputName)}`;
    case 'field': {
      const plain = s.cast === null && s.aggregate === null && s.field.jsonPath.length === 0;
      // A domain representation shapes the column before any cast the request asks for, as
      // PostgREST's: `clr::text` is the text of the represented JSON, not of the stored value.
      if (s.field.toJson && s.aggregate === null && s.field.jsonPath.length === 0) {
        return sql`${castSql(sql`${qualified(s.field.toJson)}(${fieldSql(alias, s.field)})`, s.cast)} AS ${ident(s.outputName)}`;
      }
      if (plain && s.outputName === s.field.column && !s.field.computed) return fieldSql(alias, s.field);
      let x = castSql(fieldSql(alias, s.field), s.cast);
      if (s.aggregate !== null) x = castSql(sql`${AGGREGATE[s.aggregate]}(${x})`, s.aggregateCast);
      return sql`${x} AS ${ident(s.outputName)}`;
    }
    default: {
      const never: never = s;
      throw new Error(`unexpected select ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The SELECT list, and the GROUP BY when the node aggregates: every non-aggregate output by its
 * position (JSON path keys are parameters, so the expressions themselves would not match), and
 * embedded JSON as jsonb (see groupKey).
 */
function selectList(node: ReadNode): { items: Sql[]; groupBy: Sql[] } {
  const items: Sql[] = [];
  const groupBy: Sql[] = [];
  const grouped = node.aggregates && !node.hoisted;
  for (const s of node.select) {
    items.push(node.hoisted ? hoistedItemSql(node.alias, s, node.columns) : selectItemSql(node.alias, s, node.columns));
    const isAggregate = s.kind === 'count' || (s.kind === 'field' && s.aggregate !== null);
    if (grouped && !isAggregate) groupBy.push(ordinal(items.length));
  }
  for (const e of node.embeds) {
    if (e.silent) continue;
    const L = ident(e.lateralAlias);
    const asRow = e.toOne;
    if (e.spread && !asRow) {
      for (const name of outputNames(e.node)) {
        const array = sql`COALESCE(${L}.${ident(name)}, '[]')`;
        if (!grouped) {
          items.push(sql`${array} AS ${ident(name)}`);
          continue;
        }
        const key = groupKey(array);
        items.push(sql`${key} AS ${ident(name)}`);
        groupBy.push(key);
      }
      continue;
    }
    if (e.spread) {
      if (!grouped) {
        items.push(sql`${L}.*`);
        continue;
      }
      for (const o of spreadOutputs(e.node)) {
        if (o.json) {
          // An embed inside the spread (`...processes(factories(name),…)`): grouped by its jsonb.
          const key = groupKey(sql`${L}.${ident(o.name)}`);
          items.push(sql`${key} AS ${ident(o.name)}`);
          groupBy.push(key);
        } else if (o.aggregate === null) {
          items.push(sql`${L}.${ident(o.name)}`);
          groupBy.push(ordinal(items.length));
        } else {
          // Hoisted from the spread: aggregated here, over the spread's raw values.
          items.push(sql`${castSql(sql`${AGGREGATE[o.aggregate]}(${L}.${ident(o.name)})`, o.cast)} AS ${ident(o.name)}`);
        }
      }
      continue;
    }
    const json = asRow ? sql`row_to_json(${L}.*)` : sql`COALESCE(${L}.${L}, '[]')`;
    if (!grouped) {
      items.push(sql`${json} AS ${ident(e.outputName)}`);
      continue;
    }
    const key = groupKey(json);
    items.push(sql`${key} AS ${ident(e.outputName)}`);
    groupBy.push(key);
  }
  // `select=` with nothing to show still needs a valid list for SELECT.
  if (items.length === 0) items.push(empty);
  return { items, groupBy };
}

/**
 * Embedded JSON a grouped node outputs and groups by: json has no equality operator, so it goes
 * through jsonb as PostgREST's embeds do, which gives PostgREST's groups in its order (a hash of
 * the text would order them otherwise) and its jsonb formatting (`{"name": "Factory A"}`).
 */
function groupKey(json: Sql): Sql {
  return sql`(${json})::jsonb`;
}

/**
 * A hoisted node's item (a to-one spread whose aggregates its parent computes): an aggregate is
 * output as its raw value (`count()` as 1), under its output name.
 */
function hoistedItemSql(alias: string, s: PlannedSelect, columns: ReadNode['columns']): Sql {
  if (s.kind === 'count') return sql`1 AS ${ident(s.outputName)}`;
  if (s.kind === 'field' && s.aggregate !== null) return sql`${castSql(fieldSql(alias, s.field), s.cast)} AS ${ident(s.outputName)}`;
  return selectItemSql(alias, s, columns);
}

/**
 * The outputs of a to-one spread, with the aggregate its parent applies to each (hoisted ones), and
 * whether it is JSON (an embed, or a to-many spread's array: json has no equality operator).
 */
interface SpreadOutput {
  readonly name: string;
  readonly aggregate: AggregateName | null;
  readonly cast: string | null;
  readonly json: boolean;
}

function spreadOutputs(node: ReadNode): SpreadOutput[] {
  const out: SpreadOutput[] = [];
  for (const s of node.select) {
    if (s.kind === 'star') out.push(...node.columns.map((c) => ({ name: c.name, aggregate: null, cast: null, json: false })));
    else if (s.kind === 'count') out.push({ name: s.outputName, aggregate: node.hoisted ? 'count' : null, cast: s.cast, json: false });
    else out.push({ name: s.outputName, aggregate: node.hoisted ? s.aggregate : null, cast: s.aggregateCast, json: false });
  }
  for (const e of node.embeds) {
    if (e.silent) continue;
    if (e.spread && e.toOne) out.push(...spreadOutputs(e.node));
    else if (e.spread) out.push(...outputNames(e.node).map((name) => ({ name, aggregate: null, cast: null, json: true })));
    else out.push({ name: e.outputName, aggregate: null, cast: null, json: true });
  }
  return out;
}

/** The column names a node's SELECT produces (spreads flattened). */
function outputNames(node: ReadNode): string[] {
  const names: string[] = [];
  for (const s of node.select) {
    if (s.kind === 'star') names.push(...node.columns.map((c) => c.name));
    else names.push(s.outputName);
  }
  for (const e of node.embeds) {
    if (e.silent) continue;
    if (e.spread) names.push(...outputNames(e.node));
    else names.push(e.outputName);
  }
  return names;
}
