// planRead: QueryParams + SchemaCache → ReadPlan (PostgREST's Plan.readPlan). Resolves the select
// tree (columns, casts, JSON paths, aggregates, embeds through plan/embed.ts), then hangs filters,
// logic trees, orders and ranges on the nodes their embed paths name. Pure; errors as values.
// planReadFromCall is the same over a function call's rows (GET /rpc/f on set-returning functions).
import type { Column, QualifiedName, Relationship, Routine, SchemaCache } from '../catalog/types.js';
import { computedFieldsOf } from '../catalog/lookup.js';
import type { AppConfig } from '../config/types.js';
import { errors } from '../errors/catalog.js';
import { statusForSqlState } from '../errors/sqlstate.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import type { EmbedPath, JsonPathStep, OrderTerm, QueryParams, RangeHeader, SelectItem } from '../request/types.js';
import { findRelation, isToOne, relationNotFound, resolveRelationship } from './embed.js';
import { checkEmbedBudget } from './embed-budget.js';
import { notEmbedded, resolveField, resolveLogic, resolveOrder, type NodeScope } from './filters.js';
import { resolveEmbedRange, resolveRootRange, type RangeParams } from './range.js';
import type {
  EmbedJoin,
  PlannedEmbed,
  PlannedLogic,
  PlannedOrder,
  PlannedSelect,
  ReadNode,
  ReadPlan,
  ReadSource,
  ResolvedRange,
} from './types.js';

export type CountPreference = 'exact' | 'planned' | 'estimated' | null;
export type ReadConfig = Pick<AppConfig, 'dbMaxRows' | 'dbAggregatesEnabled'> & Partial<Pick<AppConfig, 'urlUseLegacyTargetNames' | 'dbMaxEmbedDepth' | 'dbMaxEmbeds'>>;

export interface ReadInput {
  readonly schema: string;
  readonly relation: string;
  readonly query: QueryParams;
  readonly range: RangeHeader | null;
  readonly count: CountPreference;
}

export interface CallReadInput {
  readonly schema: string;
  readonly source: Extract<ReadSource, { kind: 'call' }>;
  readonly query: QueryParams;
  readonly range: RangeHeader | null;
  readonly count: CountPreference;
}

/** `GET /<relation>?select=…&<filters>&order=…&limit=…` → ReadPlan. */
export function planRead(input: ReadInput, cache: SchemaCache, cfg: ReadConfig): Result<ReadPlan> {
  const rel = findRelation(cache, input.schema, input.relation);
  if (!rel) return err(relationNotFound(cache, input.schema, input.relation));
  const name: QualifiedName = { schema: rel.schema, name: rel.name };
  return planTree({ kind: 'relation', name }, name, rel.columns, input, cache, cfg);
}

/**
 * The rows of a function call, shaped by the same select/filters/order/range. Embeds need
 * `source.relation` (the table whose row type the function returns).
 */
export function planReadFromCall(input: CallReadInput, cache: SchemaCache, cfg: ReadConfig): Result<ReadPlan> {
  const relation = input.source.relation;
  const columns = input.source.columns.length > 0
    ? input.source.columns
    : relation ? (findRelation(cache, relation.schema, relation.name)?.columns ?? []) : [];
  return planTree(input.source, relation, columns, input, cache, cfg);
}

// ---- the tree ---------------------------------------------------------------------------------

interface Ctx {
  readonly cache: SchemaCache;
  readonly cfg: ReadConfig;
  readonly schema: string;
}

/** A node while it is being built: filters/order/range are attached after the select tree. */
interface Draft {
  relation: QualifiedName | null;
  name: string;
  alias: string;
  /** See NodeScope.sqlName. */
  sqlName: string;
  depth: number;
  /** null when unknown (call sources the cache does not describe). */
  columns: ReadonlyArray<Column> | null;
  /** Computed fields of the relation (functions over its row type). */
  computed: ReadonlyArray<Routine>;
  select: PlannedSelect[];
  embeds: Array<{ embed: Omit<PlannedEmbed, 'node'>; requested: string; draft: Draft }>;
  where: PlannedLogic[];
  order: PlannedOrder[] | null;
  range: ResolvedRange;
  aggregates: boolean;
  hoisted: boolean;
}

function planTree(
  source: ReadSource,
  relation: QualifiedName | null,
  columns: ReadonlyArray<Column>,
  input: { schema: string; query: QueryParams; range: RangeHeader | null; count: CountPreference },
  cache: SchemaCache,
  cfg: ReadConfig,
): Result<ReadPlan> {
  const ctx: Ctx = { cache, cfg, schema: input.schema };
  const q = input.query;
  // Before any relationship is resolved: an over-budget select costs no more than its parse.
  const overBudget = checkEmbedBudget(q.select, cfg);
  if (overBudget !== null) return err(overBudget);
  const selectItems: ReadonlyArray<SelectItem> =
    q.select === null || q.select.length === 0 ? [{ kind: 'star' }] : q.select;

  const rootName = relation?.name ?? 'pgrst_call';
  const root = buildNode(ctx, {
    relation,
    name: rootName,
    alias: rootName,
    sqlName: rootName,
    depth: 0,
    columns: source.kind === 'call' && columns.length === 0 && relation === null ? null : columns,
    items: selectItems,
  });
  if (!root.ok) return root;

  const targets: TargetNames = { legacy: cfg.urlUseLegacyTargetNames ?? true, used: new Map() };
  // Filters and logic trees, in query-string order, on the node their path names.
  for (const { path, tree } of q.logic) {
    const node = findDraft(root.value, path, targets);
    if (!node.ok) return node;
    const r = resolveLogic(scopeOf(node.value), tree);
    if (!r.ok) return r;
    node.value.where.push(r.value);
  }
  // order: the first `order` for a path wins (PostgREST folds from the right).
  for (const { path, terms } of q.order) {
    const node = findDraft(root.value, path, targets);
    if (!node.ok) return node;
    if (node.value.order !== null) continue;
    const r = resolveOrder(scopeOf(node.value), terms.map((t) => orderByAlias(node.value, t)));
    if (!r.ok) return r;
    node.value.order = r.value;
  }
  // limit/offset: the last one for a path wins; every node is capped by db-max-rows.
  const rangeByPath = new Map<string, RangeParams>();
  for (const r of q.ranges) {
    const node = findDraft(root.value, r.path, targets);
    if (!node.ok) return node;
    rangeByPath.set(pathKey(r.path), { offset: r.offset, limit: r.limit });
  }
  const rootRange = resolveRootRange(rangeByPath.get(pathKey([])) ?? null, input.range, cfg.dbMaxRows);
  if (!rootRange.ok) return rootRange;
  root.value.range = rootRange.value;
  const ranged = applyEmbedRanges(root.value, [], rangeByPath, cfg.dbMaxRows);
  if (!ranged.ok) return ranged;

  const frozen = freeze(root.value);
  const defaultSelect =
    q.select === null || (q.select.length === 1 && q.select[0]!.kind === 'star');
  return ok({ source, root: frozen, range: frozen.range, count: input.count, defaultSelect, legacyTargets: [...targets.used] });
}

const pathKey = (path: EmbedPath): string => JSON.stringify(path);

function applyEmbedRanges(
  draft: Draft,
  path: string[],
  ranges: Map<string, RangeParams>,
  maxRows: number | null,
): Result<true> {
  for (const e of draft.embeds) {
    const childPath = [...path, e.requested];
    const aliasPath = [...path, e.embed.outputName];
    const params = ranges.get(pathKey(childPath)) ?? ranges.get(pathKey(aliasPath)) ?? null;
    const r = resolveEmbedRange(params, maxRows);
    if (!r.ok) return r;
    e.draft.range = r.value;
    const nested = applyEmbedRanges(e.draft, childPath, ranges, maxRows);
    if (!nested.ok) return nested;
  }
  return ok(true);
}

/** The node an embed path names: each step is an embed's relation name as written, or its alias. */
function findDraft(root: Draft, path: EmbedPath, targets: TargetNames): Result<Draft> {
  let node = root;
  for (const step of path) {
    let next = node.embeds.find((e) => e.embed.outputName === step);
    if (!next) {
      // An aliased embed named by its relation (`select=alias:target(*)&target.order=id`): allowed
      // with a deprecation warning under url-use-legacy-target-names (the default), else DBRST108.
      const byName = node.embeds.find((e) => e.requested === step);
      if (!byName) return err(notEmbedded(step));
      if (!targets.legacy) return err(notEmbedded(step, byName.embed.outputName));
      targets.used.set(step, byName.embed.outputName);
      next = byName;
    }
    node = next.draft;
  }
  return ok(node);
}

/**
 * `select=ident:id&order=ident`: an order term naming a plain (not aggregated) selected field by its
 * alias sorts by that field, unless the node has a column or computed field of that name.
 */
function orderByAlias(node: Draft, term: OrderTerm): OrderTerm {
  if (term.relation !== null || term.field.jsonPath.length > 0) return term;
  const name = term.field.name;
  if (node.columns?.some((c) => c.name === name) || node.computed.some((f) => f.name === name)) return term;
  const hit = node.select.find((s) => s.kind === 'field' && s.aggregate === null && s.outputName === name);
  if (!hit || hit.kind !== 'field') return term;
  return { ...term, field: { name: hit.field.column, jsonPath: [...hit.field.jsonPath, ...term.field.jsonPath] } };
}

/** How embed paths may name an aliased embed, and the relation names used for one (for the warning). */
interface TargetNames {
  readonly legacy: boolean;
  readonly used: Map<string, string>;
}

function scopeOf(d: Draft): NodeScope {
  return { name: d.name, sqlName: d.sqlName, columns: d.columns, computed: d.computed, embeds: d.embeds.map((e) => ({ ...e.embed, node: freeze(e.draft) })), ...(d.relation ? { relation: d.relation } : {}) };
}

function freeze(d: Draft): ReadNode {
  return {
    relation: d.relation,
    name: d.name,
    alias: d.alias,
    depth: d.depth,
    columns: d.columns ?? [],
    select: d.select,
    embeds: d.embeds.map((e) => ({ ...e.embed, node: freeze(e.draft) })),
    where: d.where,
    order: d.order ?? [],
    range: d.range,
    aggregates: d.aggregates,
    hoisted: d.hoisted,
  };
}

// ---- select -----------------------------------------------------------------------------------

/**
 * `select=count` and `rel(count)`: a bare `count` where the node has no column or computed field of
 * that name is the `count()` aggregate (PostgREST keeps this spelling for backwards compatibility).
 */
function bareCount(item: SelectItem, scope: NodeScope): SelectItem {
  if (item.kind !== 'field' || item.field.name !== 'count' || item.field.jsonPath.length > 0 || item.aggregate !== null) return item;
  if (scope.columns === null || scope.columns.some((c) => c.name === 'count') || (scope.computed ?? []).some((f) => f.name === 'count')) return item;
  return { kind: 'count', alias: item.alias, cast: item.cast };
}

interface NodeSpec {
  relation: QualifiedName | null;
  name: string;
  alias: string;
  /** See NodeScope.sqlName. */
  sqlName: string;
  depth: number;
  columns: ReadonlyArray<Column> | null;
  items: ReadonlyArray<SelectItem>;
}

function buildNode(ctx: Ctx, spec: NodeSpec): Result<Draft> {
  const draft: Draft = {
    relation: spec.relation,
    name: spec.name,
    alias: spec.alias,
    sqlName: spec.sqlName,
    depth: spec.depth,
    columns: spec.columns,
    computed: spec.relation ? computedFieldsOf(ctx.cache, spec.relation) : [],
    select: [],
    embeds: [],
    where: [],
    order: null,
    range: { offset: 0, limit: null },
    aggregates: false,
    hoisted: false,
  };
  const scope: NodeScope = { name: spec.name, sqlName: spec.sqlName, columns: spec.columns, computed: draft.computed, embeds: [], ...(spec.relation ? { relation: spec.relation } : {}) };
  const lateralAliases = new Set<string>();

  // Embeds first: a relationship that does not exist is reported before a column that does not
  // (PostgREST resolves the relationships of the tree before PostgreSQL sees any column).
  const items = spec.items.map((listed) => bareCount(listed, scope));
  const ordered = [...items.filter((i) => i.kind === 'embed'), ...items.filter((i) => i.kind !== 'embed')];
  for (const item of ordered) {
    switch (item.kind) {
      case 'star':
        draft.select.push({ kind: 'star' });
        break;
      case 'count': {
        if (!ctx.cfg.dbAggregatesEnabled) return err(aggregatesNotAllowed());
        const cast = validateCast(item.cast);
        if (!cast.ok) return cast;
        draft.select.push({ kind: 'count', cast: cast.value, outputName: item.alias ?? 'count' });
        draft.aggregates = true;
        break;
      }
      case 'field': {
        if (item.aggregate !== null && !ctx.cfg.dbAggregatesEnabled) return err(aggregatesNotAllowed());
        const field = resolveField(scope, item.field);
        if (!field.ok) return field;
        const cast = validateCast(item.cast);
        if (!cast.ok) return cast;
        const aggregateCast = validateCast(item.aggregateCast);
        if (!aggregateCast.ok) return aggregateCast;
        draft.select.push({
          kind: 'field',
          field: field.value,
          cast: cast.value,
          aggregate: item.aggregate,
          aggregateCast: aggregateCast.value,
          outputName: item.alias ?? defaultOutputName(item.field.name, item.field.jsonPath, item.aggregate),
        });
        if (item.aggregate !== null) draft.aggregates = true;
        break;
      }
      case 'embed': {
        const embed = buildEmbed(ctx, spec, item, lateralAliases);
        if (!embed.ok) return embed;
        draft.embeds.push(embed.value);
        // Aggregates inside a to-one spread are computed here, grouped by this node's columns.
        if (embed.value.embed.spread && embed.value.embed.toOne && embed.value.draft.aggregates) {
          embed.value.draft.hoisted = true;
          draft.aggregates = true;
        }
        break;
      }
      default: {
        const never: never = item;
        throw new Error(`unexpected select item ${JSON.stringify(never)}`);
      }
    }
  }

  // With an aggregate, `*` becomes the columns so they can be grouped (PostgREST's expandStars).
  if (draft.aggregates && spec.columns !== null) {
    const cols = spec.columns;
    draft.select = draft.select.flatMap((s): PlannedSelect[] =>
      s.kind !== 'star'
        ? [s]
        : cols.map((c) => ({
            kind: 'field',
            field: { column: c.name, jsonPath: [], toJsonb: false, type: c.type },
            cast: null,
            aggregate: null,
            aggregateCast: null,
            outputName: c.name,
          })),
    );
  }
  return ok(draft);
}

/** PostgREST's naming of an unaliased item: `sum`, the last JSON key, or the column. */
function defaultOutputName(column: string, path: ReadonlyArray<JsonPathStep>, aggregate: string | null): string {
  if (aggregate !== null) return aggregate;
  if (path.length === 0) return column;
  const last = path[path.length - 1]!;
  if (typeof last.key === 'string') return last.key;
  // `data->1->mycol->>2` → mycol; `data->3` → data
  for (let i = path.length - 1; i >= 0; i--) {
    const k = path[i]!.key;
    if (typeof k === 'string') return k;
  }
  return column;
}

type EmbedItem = Extract<SelectItem, { kind: 'embed' }>;

/** PostgreSQL's duplicate_alias as PostgREST forwards it for two embeds of one name at one level. */
function duplicateEmbed(lateralAlias: string): ApiError {
  return {
    code: '42712',
    status: statusForSqlState('42712', false),
    message: `table name "${lateralAlias}" specified more than once`,
    details: null,
    hint: null,
  };
}

function buildEmbed(
  ctx: Ctx,
  parent: NodeSpec,
  item: EmbedItem,
  lateralAliases: Set<string>,
): Result<{ embed: Omit<PlannedEmbed, 'node'>; requested: string; draft: Draft }> {
  if (parent.relation === null) {
    return err(
      errors.DBRST200(`Could not find a relationship between '${parent.name}' and '${item.relation}' in the schema cache`, {
        details: `Searched for a foreign key relationship between '${parent.name}' and '${item.relation}' in the schema '${ctx.schema}', but no matches were found.`,
      }),
    );
  }
  const rel = resolveRelationship(ctx.cache, ctx.schema, parent.relation.name, item.relation, item.hint);
  if (!rel.ok) return rel;
  const relationship: Relationship = rel.value;
  const toOne = isToOne(relationship);
  // PostgREST v13+: a to-many spread folds each column into an array. That needs no
  // db-aggregates-enabled (its SpreadQueriesSpec runs with aggregates off); only aggregate functions do.

  const target = findRelation(ctx.cache, relationship.to.schema, relationship.to.name);
  const depth = parent.depth + 1;
  const outputName = item.alias ?? item.relation;
  const lateralAlias = `${parent.relation.name}_${outputName}_${depth}`;
  const alias = `${relationship.to.name}_${depth}`;

  const child = buildNode(ctx, {
    relation: relationship.to,
    name: relationship.to.name,
    alias,
    // PostgREST joins a many-to-many's target through the junction without aliasing it.
    sqlName: relationship.kind !== 'computed' && relationship.cardinality === 'm2m' ? relationship.to.name : alias,
    depth,
    columns: target?.columns ?? [],
    items: item.select,
  });
  if (!child.ok) return child;
  // Two embeds with one output name would be two keys of one name in each row, and a client keeps
  // only the last. PostgREST names their LATERALs alike, so PostgreSQL refuses the statement (42712).
  if (lateralAliases.has(lateralAlias)) return err(duplicateEmbed(lateralAlias));
  lateralAliases.add(lateralAlias);
  if (item.spread && !toOne && child.value.aggregates) {
    return err(
      errors.DBRST127('Feature not implemented', {
        details: 'Aggregates are not implemented for one-to-many or many-to-many spreads.',
      }),
    );
  }
  let join: EmbedJoin;
  if (relationship.kind === 'computed') {
    join = { kind: 'computed', relationship, parentType: parent.relation };
  } else {
    join = {
      kind: 'fk',
      relationship,
      columns: relationship.cardinality === 'm2m' ? [] : relationship.columns,
      junction:
        relationship.cardinality === 'm2m' && relationship.junction
          ? {
              table: relationship.junction.table,
              parentColumns: relationship.junction.columnsFrom,
              childColumns: relationship.junction.columnsTo,
            }
          : null,
    };
  }

  return ok({
    embed: {
      outputName,
      toOne,
      joinType: item.joinType ?? 'left',
      spread: item.spread,
      silent: isSilent(child.value),
      lateralAlias,
      join,
    },
    requested: item.relation,
    draft: child.value,
  });
}

/** `rel()` (and `rel(nested())`): joined, filtered on, but absent from the JSON. */
function isSilent(d: Draft): boolean {
  return d.select.length === 0 && d.embeds.every((e) => e.embed.silent);
}

// ---- errors -------------------------------------------------------------------------------------

const aggregatesNotAllowed = (): ApiError => errors.DBRST123('Use of aggregate functions is not allowed');

/** Casts are written into SQL, so only type-name characters pass: `int`, `double precision`, `text[]`. */
const CAST = /^[A-Za-z_][A-Za-z0-9_ ]*(\[\])*$/;

function validateCast(cast: string | null): Result<string | null> {
  if (cast === null) return ok(null);
  const trimmed = cast.trim().replace(/\s+/g, ' ');
  if (!CAST.test(trimmed)) {
    return err(
      errors.DBRST100(`failed to parse cast (${cast})`, {
        details: 'A cast must be a type name of letters, digits, underscores and spaces, optionally followed by []',
      }),
    );
  }
  return ok(trimmed);
}
