// SQL for the expressions of a ReadPlan node: field references with JSON paths, filters (every
// PostgREST operator, not/any/all, logic trees), ORDER BY terms and the FROM/join conditions of an
// embedded node. Shared by sql/read.ts and sql/count.ts. Pure.
// Values are always bind parameters of unknown type, as PostgREST sends them: PostgreSQL then types
// `"t"."id" = $1` as the column's own type, so indexes apply and no cast from request text is
// needed. List values (`in.(…)`, `eq(any).{…}`) travel as one array-literal parameter (`= ANY($1)`).
import type { PlannedEmbed, PlannedField, PlannedLogic, PlannedOrder } from '../plan/types.js';
import type { Operation, SimpleOperator } from '../request/types.js';
import { constant, ident, join, qualified, sql, value, type Sql } from './fragment.js';

/** `"alias"."col"`, `"alias"."data"->$1->>$2`, `to_jsonb("alias"."n")->$1` (non-json columns). */
export function fieldSql(alias: string, f: PlannedField): Sql {
  const column = f.computed
    ? f.computed.rowType
      ? sql`${qualified(f.computed)}(${ident(alias)}::${qualified(f.computed.rowType)})`
      : sql`${qualified(f.computed)}(${ident(alias)})`
    : sql`${ident(alias)}.${ident(f.column)}`;
  if (f.jsonPath.length === 0) return column;
  let out = f.toJsonb ? sql`to_jsonb(${column})` : column;
  for (const step of f.jsonPath) {
    const arrow = step.op === '->' ? constant('->') : constant('->>');
    const key = typeof step.key === 'number' ? value(step.key, 'integer') : value(step.key);
    out = sql`${out}${arrow}${key}`;
  }
  return out;
}

const SIMPLE: Record<SimpleOperator, Sql> = {
  eq: constant('='),
  neq: constant('<>'),
  gt: constant('>'),
  gte: constant('>='),
  lt: constant('<'),
  lte: constant('<='),
  like: constant('LIKE'),
  ilike: constant('ILIKE'),
  match: constant('~'),
  imatch: constant('~*'),
  cs: constant('@>'),
  cd: constant('<@'),
  ov: constant('&&'),
  sl: constant('<<'),
  sr: constant('>>'),
  nxr: constant('&<'),
  nxl: constant('&>'),
  adj: constant('-|-'),
  isdistinct: constant('IS DISTINCT FROM'),
};

const FTS = {
  fts: constant('to_tsquery'),
  plfts: constant('plainto_tsquery'),
  phfts: constant('phraseto_tsquery'),
  wfts: constant('websearch_to_tsquery'),
} as const;

const IS = {
  null: constant('IS NULL'),
  not_null: constant('IS NOT NULL'),
  true: constant('IS TRUE'),
  false: constant('IS FALSE'),
  unknown: constant('IS UNKNOWN'),
} as const;

/** like/ilike take `*` for `%` (URLs cannot carry a bare `%` comfortably). */
const likePattern = (op: SimpleOperator, v: string): string => (op === 'like' || op === 'ilike' ? v.replace(/\*/g, '%') : v);

/**
 * A PostgreSQL array literal of text elements, every element quoted: `{"a","b,c","say \"hi\""}`.
 * Passed as an unknown-typed parameter, PostgreSQL reads it as an array of the column's type.
 */
export function arrayLiteral(values: ReadonlyArray<string>): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/** Operators whose value is a value of the column's type: a domain's cast from text applies to it. */
const TYPED_VALUE = new Set<SimpleOperator>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'isdistinct']);

function operationSql(field: PlannedField, left: Sql, op: Operation): Sql {
  const fromText = field.fromText;
  if (fromText) {
    // Domain representations: the filter value is text the domain's implicit cast function reads.
    if (op.kind === 'simple' && op.quantifier === null && TYPED_VALUE.has(op.op)) {
      return sql`${left} ${SIMPLE[op.op]} ${qualified(fromText)}(${value(op.value, 'text')})`;
    }
    if (op.kind === 'in') {
      return sql`${left} IN (SELECT ${qualified(fromText)}(pgrst_v) FROM unnest(${value(arrayLiteral(op.values), 'text[]')}) AS pgrst_v)`;
    }
  }
  switch (op.kind) {
    case 'simple':
      if (op.quantifier === null) return sql`${left} ${SIMPLE[op.op]} ${likePattern(op.op, op.value)}`;
      return sql`${left} ${SIMPLE[op.op]} ${op.quantifier === 'any' ? constant('ANY') : constant('ALL')}(${arrayLiteral(
        op.values.map((v) => likePattern(op.op, v)),
      )})`;
    case 'in':
      return sql`${left} = ANY(${arrayLiteral(op.values)})`;
    case 'is':
      return sql`${left} ${IS[op.value]}`;
    case 'fts': {
      const lang = op.language === null ? null : value(op.language, 'regconfig');
      const isTsvector = (field.type === 'tsvector' || field.tsvector === true) && field.jsonPath.length === 0;
      const doc = isTsvector ? left : lang ? sql`to_tsvector(${lang}, ${left})` : sql`to_tsvector(${left})`;
      const query = lang ? sql`${FTS[op.op]}(${lang}, ${op.value})` : sql`${FTS[op.op]}(${op.value})`;
      return sql`${doc} @@ ${query}`;
    }
    default: {
      const never: never = op;
      throw new Error(`unexpected operation ${JSON.stringify(never)}`);
    }
  }
}

/** How `clients=not.is.null` is written where it appears (a LATERAL alias, or an EXISTS). */
export type EmbedExistsSql = (embed: string, exists: boolean) => Sql;

/** A resolved logic tree over the node aliased `alias`. */
export function logicSql(alias: string, logic: PlannedLogic, embedExists: EmbedExistsSql): Sql {
  switch (logic.kind) {
    case 'and':
    case 'or': {
      const parts = logic.children.map((c) => logicSql(alias, c, embedExists));
      const body =
        parts.length === 0
          ? logic.kind === 'and' ? constant('TRUE') : constant('FALSE')
          : sql`(${join(parts, logic.kind === 'and' ? constant(' AND ') : constant(' OR '))})`;
      return logic.negated ? sql`NOT ${body}` : body;
    }
    case 'filter': {
      const cond = operationSql(logic.field, fieldSql(alias, logic.field), logic.operation);
      return logic.negated ? sql`NOT ${cond}` : cond;
    }
    case 'embed-exists':
      return embedExists(logic.embed, logic.exists);
    default: {
      const never: never = logic;
      throw new Error(`unexpected logic ${JSON.stringify(never)}`);
    }
  }
}

/** `ORDER BY …` terms over the node aliased `alias`; `embedAlias(name)` gives a to-one embed's LATERAL alias. */
export function orderSql(alias: string, order: ReadonlyArray<PlannedOrder>, embedAlias: (name: string) => string): Sql {
  return orderTermsSql(order, (o) => fieldSql(o.embed === null ? alias : embedAlias(o.embed), o.field));
}

/** `ORDER BY …` terms; `target(term)` is what each term sorts by (a field, or an output position). */
export function orderTermsSql(order: ReadonlyArray<PlannedOrder>, target: (term: PlannedOrder) => Sql): Sql {
  return join(
    order.map((o) => {
      const f = target(o);
      const dir = o.direction === 'asc' ? constant(' ASC') : o.direction === 'desc' ? constant(' DESC') : constant('');
      const nulls = o.nulls === 'first' ? constant(' NULLS FIRST') : o.nulls === 'last' ? constant(' NULLS LAST') : constant('');
      return sql`${f}${dir}${nulls}`;
    }),
  );
}

// ---- how an embedded node meets its parent ---------------------------------------------------

/**
 * `FROM` of an embedded node: the related table (plus the junction of an m2m), or the computed
 * relationship's function applied to the parent row.
 */
export function embedFromSql(embed: PlannedEmbed, parentAlias: string): Sql {
  const node = embed.node;
  const j = embed.join;
  if (j.kind === 'computed') {
    return sql`${qualified(j.relationship.function)}(${ident(parentAlias)}::${qualified(j.parentType)}) AS ${ident(node.alias)}`;
  }
  const table = sql`${qualified(j.relationship.to)} AS ${ident(node.alias)}`;
  return j.junction ? sql`${table}, ${qualified(j.junction.table)}` : table;
}

/** The join conditions of an embedded node with its parent (empty for computed relationships). */
export function joinConditionsSql(embed: PlannedEmbed, parentAlias: string): Sql[] {
  const j = embed.join;
  if (j.kind === 'computed') return [];
  const child = (c: string) => sql`${ident(embed.node.alias)}.${ident(c)}`;
  const parent = (c: string) => sql`${ident(parentAlias)}.${ident(c)}`;
  if (j.junction) {
    const jt = j.junction.table;
    const junction = (c: string) => sql`${qualified(jt)}.${ident(c)}`;
    return [
      ...j.junction.childColumns.map(([c, jc]) => sql`${child(c)} = ${junction(jc)}`),
      ...j.junction.parentColumns.map(([p, jc]) => sql`${junction(jc)} = ${parent(p)}`),
    ];
  }
  return j.columns.map(([p, c]) => sql`${child(c)} = ${parent(p)}`);
}
