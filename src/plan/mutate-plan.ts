// planMutate: POST / PATCH / PUT / DELETE on a table or view → MutatePlan (PostgREST's
// Plan.mutatePlan + the write half of ApiRequest). Checks the payload keys, filters, `on_conflict`,
// PUT's rules and a limited PATCH/DELETE against the schema cache; plans the representation
// (`select=` with embeds over the written rows) through the read planner. Pure; errors as values.
// sql/mutate.ts turns the plan into ONE statement.
import { computedFieldsOf, findRelation } from '../catalog/lookup.js';
import type { Column, QualifiedName, Relation, SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import { parsePayload, type Payload } from '../request/payload.js';
import { isXmlType, jsonXmlProblem, xmlRefused } from '../request/xml-guard.js';
import type { ApiRequest } from '../request/api-request.js';
import type { LogicTree, QueryParams } from '../request/types.js';
import { relationNotFound } from './embed.js';
import { resolveLogic, resolveOrder, type NodeScope } from './filters.js';
import { planRead } from './read-plan.js';
import type { PlannedLogic, PlannedOrder, ReadPlan, ResolvedRange } from './types.js';

/** What the HTTP verb asks for (PostgREST's Mutation). */
export type MutationAction = 'create' | 'update' | 'upsert' | 'delete';

/** A column written from the payload: its type unpacks the JSON, its default fills a missing key. */
export interface PlannedColumn {
  readonly name: string;
  /** Type as the schema cache spells it (format_type), used in `json_to_recordset(…) AS _(col type)`. */
  readonly type: string;
  /** DEFAULT expression as the catalog printed it (pg_get_expr), for `Prefer: missing=default`. */
  readonly default: string | null;
  /** Domain representation: the payload value is read as json and passed through this cast function. */
  readonly fromJson?: QualifiedName;
}

/** The JSON payload as it travels: one parameter, unpacked in SQL. */
export interface MutationBody {
  readonly text: string;
  /** One object (json_to_record) or an array (json_to_recordset). */
  readonly isObject: boolean;
  /** The payload keys that are columns, in payload order. */
  readonly columns: ReadonlyArray<PlannedColumn>;
  /** `Prefer: missing=default`: a key absent from an element takes the column's DEFAULT. */
  readonly applyDefaults: boolean;
}

/** What the statement returns for each written row. */
export type Returning =
  /** `RETURNING 1`: only the count matters. */
  | { readonly kind: 'none' }
  | { readonly kind: 'columns'; readonly columns: ReadonlyArray<string> }
  /** `RETURNING "t".*` */
  | { readonly kind: 'all' };

/**
 * `PATCH /t?limit=10&order=id` (PostgREST v12's limited update/delete): the rows are chosen first
 * (`ORDER BY … LIMIT … OFFSET …`) and matched back by `identity` — the physical row (`tableoid`,
 * `ctid`) for tables, the primary key (else the order columns) for views.
 */
export interface LimitedRows {
  readonly order: ReadonlyArray<PlannedOrder>;
  readonly range: ResolvedRange;
  readonly identity: { readonly kind: 'ctid' } | { readonly kind: 'columns'; readonly columns: ReadonlyArray<string> };
}

export type Mutation =
  | {
      readonly kind: 'insert';
      readonly body: MutationBody;
      /** `ON CONFLICT (cols) DO UPDATE|DO NOTHING`; null for a plain insert. */
      readonly onConflict: { readonly action: 'merge' | 'ignore'; readonly columns: ReadonlyArray<string> } | null;
      /** PUT: the URL's primary key filters, applied to the payload row (alias `pgrst_body`). */
      readonly putConditions: ReadonlyArray<PlannedLogic>;
    }
  | {
      readonly kind: 'update';
      readonly body: MutationBody;
      readonly where: ReadonlyArray<PlannedLogic>;
      readonly limited: LimitedRows | null;
    }
  | { readonly kind: 'delete'; readonly where: ReadonlyArray<PlannedLogic>; readonly limited: LimitedRows | null };

export interface MutatePlan {
  readonly action: MutationAction;
  readonly relation: Relation;
  /** SQL alias of the target (its name): filters are written `"<alias>"."col"`. */
  readonly alias: string;
  readonly mutation: Mutation;
  readonly returning: Returning;
  /** `Prefer: return=…` (PostgREST's default is minimal). */
  readonly representation: 'minimal' | 'headers-only' | 'representation';
  /** The `select=` and embeds over the written rows; null unless return=representation. */
  readonly read: ReadPlan | null;
  readonly primaryKey: ReadonlyArray<string>;
  /** `Prefer: resolution=…` was used (Preference-Applied echoes it only then). */
  readonly resolutionApplied: boolean;
  /** Count the rows really inserted (merge-duplicates, PUT): 201 vs 200. */
  readonly countInserted: boolean;
  /** `Prefer: max-affected=n` with `handling=strict` (PATCH, DELETE): more rows → DBRST124, rolled back. */
  readonly maxAffected: number | null;
  /** A limited PATCH/DELETE may not change more than `limit` rows (a view's non-unique order). */
  readonly rowLimit: number | null;
}

export type MutateConfig = Pick<AppConfig, 'dbAggregatesEnabled'> & Partial<Pick<AppConfig, 'dbMaxEmbedDepth' | 'dbMaxEmbeds'>>;

const METHOD_ACTION: Readonly<Record<string, MutationAction>> = { POST: 'create', PATCH: 'update', PUT: 'upsert', DELETE: 'delete' };

export function planMutate(req: ApiRequest, relationName: string, cache: SchemaCache, cfg: MutateConfig): Result<MutatePlan> {
  const action = METHOD_ACTION[req.method];
  if (action === undefined) return err(errors.DBRST117(`Unsupported HTTP method: ${req.method}`));
  const q = req.query;
  const rootRange = q.ranges.find((r) => r.path.length === 0) ?? null;
  const hasRootRange = rootRange !== null && (rootRange.limit !== null || rootRange.offset !== 0);

  // ApiRequest-level checks first, as PostgREST makes them before planning.
  if (action === 'upsert' && hasRootRange) {
    return err(errors.DBRST114('limit/offset querystring parameters are not allowed for PUT'));
  }
  if ((action === 'update' || action === 'delete') && hasRootRange && !q.order.some((o) => o.path.length === 0)) {
    return err(limitNoOrder());
  }
  if ((action === 'update' || action === 'delete') && rootRange !== null && rootRange.limit !== null && rootRange.limit < 0) {
    // As a read answers it (plan/range.ts); a negative offset is a no-op below.
    return err(errors.DBRST103('Requested range not satisfiable', { details: 'Limit should be greater than or equal to zero.' }));
  }
  let payload: Payload | null = null;
  if (action !== 'delete') {
    const columns = action === 'create' || action === 'update' ? q.columns : null;
    const p = parsePayload(req.body, req.contentType, { columns, forCall: false });
    if (!p.ok) return p;
    payload = p.value;
  }

  const relation = findRelation(cache, req.schema, relationName);
  if (!relation) return err(relationNotFound(cache, req.schema, relationName));
  const alias = relation.name;
  // Computed fields filter a write as they filter a read (PostgREST: PATCH /t?computed=eq.x).
  const scope: NodeScope = {
    name: relation.name,
    columns: relation.columns,
    embeds: [],
    computed: computedFieldsOf(cache, relation),
    relation: { schema: relation.schema, name: relation.name },
  };
  const pk = relation.primaryKey;

  // Root filters and logic trees become the statement's WHERE; the rest shape the representation.
  // They are resolved last: PostgREST leaves an unknown column there to PostgreSQL (42703 at run
  // time), so every planning error (DBRST200, DBRST105, DBRST204, …) comes first.
  const rootLogic = (): Result<PlannedLogic[]> => {
    const out: PlannedLogic[] = [];
    for (const { path, tree } of q.logic) {
      if (path.length > 0) continue;
      const r = resolveLogic(scope, tree);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return ok(out);
  };

  const representation = req.preferences.return ?? 'minimal';
  // The read over the written rows is planned whatever `return=` says, as PostgREST plans it: a
  // filter, order or limit on an embedded resource the request does not embed, or an embed that
  // does not exist, is an error (DBRST108, DBRST200, …) — never a filter silently dropped, which
  // would turn `DELETE /t?other.id=eq.1` into a DELETE of every row.
  const planned = planRead(
    { schema: req.schema, relation: relation.name, query: nonRootQuery(q), range: null, count: null },
    cache,
    // db-max-rows does not cap a write's representation (PostgREST's treeRestrictRange).
    { dbMaxRows: null, dbAggregatesEnabled: cfg.dbAggregatesEnabled, dbMaxEmbedDepth: cfg.dbMaxEmbedDepth, dbMaxEmbeds: cfg.dbMaxEmbeds },
  );
  if (!planned.ok) return planned;
  const read: ReadPlan | null = representation === 'representation' ? planned.value : null;
  const returning = returningFor(representation, read, pk, action === 'create' || action === 'upsert');
  const strict = req.preferences.handling === 'strict';
  const base = {
    action,
    relation,
    alias,
    returning,
    representation,
    read,
    primaryKey: pk,
    maxAffected: strict && (action === 'update' || action === 'delete') ? req.preferences.maxAffected : null,
  } as const;

  switch (action) {
    case 'create': {
      const body = mutationBody(relation, payload!, req.preferences.missing === 'default');
      if (!body.ok) return body;
      // An insert has no WHERE; its root filters are still checked against the columns.
      const filters = rootLogic();
      if (!filters.ok) return filters;
      const resolution = req.preferences.resolution;
      const conflictColumns = q.onConflict ?? pk;
      // on_conflict names columns of the table: checked here, before the query, with the same
      // DBRST204 as an unknown payload key (PostgreSQL would say 42703 about the ON CONFLICT clause).
      if (resolution !== null) {
        const unknown = conflictColumns.find((c) => !relation.columns.some((col) => col.name === c));
        if (unknown !== undefined) return err(columnNotFound(relation, unknown));
      }
      const onConflict =
        resolution !== null && conflictColumns.length > 0
          ? { action: resolution === 'merge-duplicates' ? ('merge' as const) : ('ignore' as const), columns: conflictColumns }
          : null;
      return ok({
        ...base,
        mutation: { kind: 'insert', body: body.value, onConflict, putConditions: [] },
        resolutionApplied: resolution !== null && (pk.length > 0 || q.onConflict !== null),
        countInserted: onConflict?.action === 'merge',
        rowLimit: null,
      });
    }
    case 'upsert': {
      const put = putConditions(q, pk);
      if (!put.ok) return put;
      const body = mutationBody(relation, payload!, false);
      if (!body.ok) return body;
      const keys = new Set(body.value.columns.map((c) => c.name));
      if (!pk.every((c) => keys.has(c))) {
        return err(errors.DBRST115('Payload values do not match URL in primary key column(s)'));
      }
      const conds: PlannedLogic[] = [];
      for (const f of put.value) {
        const r = resolveLogic({ name: 'pgrst_body', columns: relation.columns, embeds: [] }, { kind: 'filter', filter: f });
        if (!r.ok) return r;
        conds.push(r.value);
      }
      return ok({
        ...base,
        mutation: { kind: 'insert', body: body.value, onConflict: { action: 'merge', columns: pk }, putConditions: conds },
        resolutionApplied: false,
        countInserted: true,
        rowLimit: null,
      });
    }
    case 'update':
    case 'delete': {
      let limited: LimitedRows | null = null;
      if (hasRootRange) {
        const terms = q.order.find((o) => o.path.length === 0)!.terms;
        const order = resolveOrder(scope, terms);
        if (!order.ok) return order;
        limited = {
          order: order.value,
          range: { offset: Math.max(0, rootRange!.offset), limit: rootRange!.limit },
          identity: identityFor(relation, order.value),
        };
      }
      const rowLimit = limited?.range.limit ?? null;
      if (action === 'delete') {
        const where = rootLogic();
        if (!where.ok) return where;
        return ok({ ...base, mutation: { kind: 'delete', where: where.value, limited }, resolutionApplied: false, countInserted: false, rowLimit });
      }
      const body = mutationBody(relation, payload!, req.preferences.missing === 'default');
      if (!body.ok) return body;
      const where = rootLogic();
      if (!where.ok) return where;
      return ok({
        ...base,
        mutation: { kind: 'update', body: body.value, where: where.value, limited },
        resolutionApplied: false,
        countInserted: false,
        rowLimit,
      });
    }
  }
}

/**
 * The query of the representation: root filters and range act in the write itself; the root
 * `order=` also orders the returned rows (PostgREST: `PATCH /t?order=id.desc` with
 * return=representation answers in that order).
 */
function nonRootQuery(q: QueryParams): QueryParams {
  return {
    ...q,
    logic: q.logic.filter((l) => l.path.length > 0),
    ranges: q.ranges.filter((r) => r.path.length > 0),
  };
}

/** DBRST204 for a payload key that is not a column (PostgREST's ColumnNotFound). */
function columnNotFound(relation: QualifiedName, column: string): ApiError {
  return errors.DBRST204(`Could not find the '${column}' column of '${relation.name}' in the schema cache`);
}

function mutationBody(relation: Relation, payload: Payload, applyDefaults: boolean): Result<MutationBody> {
  if (payload.kind !== 'json') throw new Error('a table write payload is always JSON'); // parsePayload(forCall: false)
  const columns: PlannedColumn[] = [];
  for (const key of payload.keys) {
    const col: Column | undefined = relation.columns.find((c) => c.name === key);
    if (!col) return err(columnNotFound(relation, key));
    const fromJson = col.representation?.fromJson;
    columns.push({ name: col.name, type: col.type, default: col.default, ...(fromJson ? { fromJson } : {}) });
  }
  // xml columns (and domains and arrays of xml): no DTD reaches PostgreSQL's XML parser (request/xml-guard.ts).
  const xmlKeys = relation.columns.filter((c) => payload.keys.includes(c.name) && (isXmlType(c.type) || c.baseType === 'xml')).map((c) => c.name);
  if (xmlKeys.length > 0) {
    const found = jsonXmlProblem(payload.text, xmlKeys);
    if (found !== null) return err(xmlRefused(`The value of ${found.key}`, found.problem));
  }
  return ok({ text: payload.text, isObject: payload.isObject, columns, applyDefaults });
}

/**
 * PUT must name the whole primary key with `eq` and nothing else (PostgREST's MutationSingleUpsert):
 * no `or`/`and` trees, no other root filter, no negation or `(any)`. DBRST105 otherwise, also when
 * the relation has no primary key.
 */
function putConditions(q: QueryParams, pk: ReadonlyArray<string>): Result<Array<Extract<LogicTree, { kind: 'filter' }>['filter']>> {
  const invalid = () => err(errors.DBRST105("Filters must include all and only primary key columns with 'eq' operators"));
  if (pk.length === 0) return invalid();
  const filters: Array<Extract<LogicTree, { kind: 'filter' }>['filter']> = [];
  for (const { path, tree } of q.logic) {
    if (tree.kind !== 'filter') return invalid();
    if (path.length > 0) continue;
    filters.push(tree.filter);
  }
  const names = new Set(filters.map((f) => f.field.name));
  const ok_ =
    names.size === pk.length &&
    pk.every((c) => names.has(c)) &&
    filters.every(
      (f) => !f.negated && f.field.jsonPath.length === 0 && f.operation.kind === 'simple' && f.operation.op === 'eq' && f.operation.quantifier === null,
    );
  return ok_ ? ok(filters) : invalid();
}

/**
 * The columns a write must return (PostgREST's inferColsEmbedNeeds): what `select=` reads, the
 * columns the embeds join on, and the primary key (for Location). `*` or a computed relationship
 * returns the whole row.
 */
function returningFor(
  representation: 'minimal' | 'headers-only' | 'representation',
  read: ReadPlan | null,
  pk: ReadonlyArray<string>,
  isInsert: boolean,
): Returning {
  if (representation === 'minimal') return { kind: 'none' };
  if (representation === 'headers-only') {
    return isInsert && pk.length > 0 ? { kind: 'columns', columns: pk } : { kind: 'none' };
  }
  if (read === null) return { kind: 'all' };
  const root = read.root;
  const cols = new Set<string>();
  for (const s of root.select) {
    if (s.kind === 'star') return { kind: 'all' };
    if (s.kind === 'field') {
      // A computed field is fn(row): it needs the whole row.
      if (s.field.computed) return { kind: 'all' };
      cols.add(s.field.column);
    }
  }
  for (const o of root.order) {
    if (o.embed !== null) continue;
    if (o.field.computed) return { kind: 'all' };
    cols.add(o.field.column);
  }
  for (const e of root.embeds) {
    if (e.join.kind === 'computed') return { kind: 'all' };
    if (e.join.junction) for (const [p] of e.join.junction.parentColumns) cols.add(p);
    else for (const [p] of e.join.columns) cols.add(p);
  }
  for (const c of pk) cols.add(c);
  return cols.size === 0 ? { kind: 'none' } : { kind: 'columns', columns: [...cols] };
}

/**
 * How a limited PATCH/DELETE finds the chosen rows again: the physical row for tables (unique
 * even when the order is not), the primary key for views, else the order columns (PostgREST v12;
 * the row limit check then catches a non-unique order).
 */
function identityFor(relation: Relation, order: ReadonlyArray<PlannedOrder>): LimitedRows['identity'] {
  if (relation.kind === 'table' || relation.kind === 'partitioned_table') return { kind: 'ctid' };
  if (relation.primaryKey.length > 0) return { kind: 'columns', columns: relation.primaryKey };
  return { kind: 'columns', columns: [...new Set(order.filter((o) => o.embed === null).map((o) => o.field.column))] };
}

/** PostgREST v12's PGRST109: a limited PATCH/DELETE needs an explicit order. */
function limitNoOrder(): ApiError {
  return errors.DBRST109("A 'limit' was applied without an explicit 'order'", { hint: "Apply an 'order' using unique column(s)" });
}
