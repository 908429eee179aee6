// Horizontal filters, logic trees and order terms of one ReadPlan node, checked against the node's
// columns and embeds. Pure. Unknown columns fail here with the error PostgreSQL would raise
// (42703 `column t.x does not exist`, 400), which is what PostgREST forwards for reads.
import type { Column, QualifiedName, Routine } from '../catalog/types.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import type { FieldRef, Filter, LogicTree, OrderTerm } from '../request/types.js';
import { levenshtein } from '../catalog/lookup.js';
import type { PlannedEmbed, PlannedField, PlannedLogic, PlannedOrder, PlannedSelect } from './types.js';

/** What a node offers to the expressions written against it. */
export interface NodeScope {
  /** The relation's name, in DBRST messages. */
  readonly name: string;
  /**
   * The name PostgreSQL would print for a column of this node: `column <sqlName>.x does not exist`.
   * PostgREST's SQL aliases an embedded table `<table>_<depth>` (messages_1); unset: `name`.
   */
  readonly sqlName?: string;
  /** null: columns unknown (a call whose row type the cache does not describe); nothing is checked. */
  readonly columns: ReadonlyArray<Column> | null;
  readonly embeds: ReadonlyArray<PlannedEmbed>;
  /** Functions taking the node's row type, usable like columns (`select=title,average_stars`). */
  readonly computed?: ReadonlyArray<Routine>;
  /** The relation whose row type `computed` take. */
  readonly relation?: QualifiedName;
}

/**
 * PostgreSQL's 42703 as PostgREST forwards it (400), with the hint PostgreSQL itself would give:
 * none unless a column is close (see pgColumnHint), so no did-you-mean where PostgREST has none.
 */
export function undefinedColumn(table: string, column: string, candidates: ReadonlyArray<string>): ApiError {
  return {
    code: '42703',
    status: 400,
    message: `column ${table}.${column} does not exist`,
    details: null,
    hint: pgColumnHint(table, column, candidates),
  };
}

/**
 * PostgreSQL's errorMissingColumn hint (parse_relation.c, updateFuzzyAttrMatchState): the columns at
 * the smallest Levenshtein distance (case-sensitive) from the typed name, if that distance is at
 * most 3 and at most half the typed name's length. One match → "the column", two → "… or the
 * column …", more → the bar drops below that distance and the search goes on.
 */
export function pgColumnHint(table: string, column: string, candidates: ReadonlyArray<string>): string | null {
  let bar = 3;
  let first: string | null = null;
  let second: string | null = null;
  for (const c of candidates) {
    const d = levenshtein(c, column);
    if (d > bar || d > Math.floor(column.length / 2)) continue;
    if (first === null || d < bar) {
      bar = d;
      first = c;
      second = null;
    } else if (second === null) {
      second = c;
    } else {
      bar = d - 1;
      first = null;
      second = null;
    }
  }
  if (first === null) return null;
  const ref = (c: string) => `the column "${table}.${c}"`;
  return `Perhaps you meant to reference ${ref(first)}${second === null ? '' : ` or ${ref(second)}`}.`;
}

const isJsonType = (c: Column): boolean =>
  c.type === 'json' || c.type === 'jsonb' || c.baseType === 'json' || c.baseType === 'jsonb';

/** `data->a->>b` against the node's columns. */
export function resolveField(scope: NodeScope, ref: FieldRef): Result<PlannedField> {
  if (scope.columns === null) {
    return ok({ column: ref.name, jsonPath: ref.jsonPath, toJsonb: ref.jsonPath.length > 0, type: null });
  }
  const col = scope.columns.find((c) => c.name === ref.name);
  if (!col) {
    const fn = scope.computed?.find((r) => r.name === ref.name);
    if (fn) {
      const type = fn.returns.kind === 'scalar' ? fn.returns.type : null;
      const json = type === 'json' || type === 'jsonb';
      return ok({ column: fn.name, jsonPath: ref.jsonPath, toJsonb: ref.jsonPath.length > 0 && !json, type, computed: { schema: fn.schema, name: fn.name, ...(scope.relation ? { rowType: scope.relation } : {}) } });
    }
    return err(undefinedColumn(scope.sqlName ?? scope.name, ref.name, scope.columns.map((c) => c.name)));
  }
  for (const step of ref.jsonPath) {
    if (typeof step.key === 'number' && !Number.isSafeInteger(step.key)) {
      return err(errors.DBRST100(`failed to parse JSON path of '${ref.name}'`, { details: `invalid array index ${step.key}` }));
    }
  }
  return ok({
    column: col.name,
    jsonPath: ref.jsonPath,
    toJsonb: ref.jsonPath.length > 0 && !isJsonType(col),
    type: col.type,
    ...(col.baseType === 'tsvector' && !col.type.endsWith('[]') ? { tsvector: true as const } : {}),
    ...(col.representation?.toJson ? { toJson: col.representation.toJson } : {}),
    ...(col.representation?.fromText && ref.jsonPath.length === 0 ? { fromText: col.representation.fromText } : {}),
  });
}

const findEmbed = (scope: NodeScope, name: string): PlannedEmbed | undefined =>
  scope.embeds.find((e) => e.outputName === name);

/** Operators that take `(any)`/`(all)` (PostgREST's QuantOperator). */
const QUANTIFIABLE = new Set(['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch']);

function resolveFilter(scope: NodeScope, filter: Filter): Result<PlannedLogic> {
  const { field, operation } = filter;
  // `clients=not.is.null` where `clients` is embedded: the null-embed filter (PostgREST #2563).
  if (field.jsonPath.length === 0) {
    const embed = findEmbed(scope, field.name);
    const isColumn = scope.columns?.some((c) => c.name === field.name) ?? false;
    if (embed && !isColumn) {
      if (operation.kind === 'is' && operation.value === 'null') {
        return ok({ kind: 'embed-exists', embed: embed.outputName, exists: filter.negated });
      }
      return err(
        errors.DBRST120(`Bad operator on the '${field.name}' embedded resource`, {
          details: 'Only is null or not is null filters are allowed on embedded resources',
        }),
      );
    }
  }
  if (operation.kind === 'simple' && operation.quantifier !== null && !QUANTIFIABLE.has(operation.op)) {
    return err(
      errors.DBRST100(`failed to parse filter (${operation.op}(${operation.quantifier}))`, {
        details: `the operator ${operation.op} does not take the (${operation.quantifier}) modifier`,
      }),
    );
  }
  const f = resolveField(scope, field);
  if (!f.ok) return f;
  return ok({ kind: 'filter', field: f.value, negated: filter.negated, operation });
}

export function resolveLogic(scope: NodeScope, tree: LogicTree): Result<PlannedLogic> {
  if (tree.kind === 'filter') return resolveFilter(scope, tree.filter);
  const children: PlannedLogic[] = [];
  for (const child of tree.children) {
    const r = resolveLogic(scope, child);
    if (!r.ok) return r;
    children.push(r.value);
  }
  return ok({ kind: tree.kind, negated: tree.negated, children });
}

export function notEmbedded(name: string, alias?: string): ApiError {
  if (alias !== undefined) {
    return errors.DBRST108(`'${name}' is not an embedded resource in this request`, {
      details: 'Target names are not allowed in filters if they have an alias',
      hint: `Change '${name}' to '${alias}' in filters, orders or limits.`,
    });
  }
  return errors.DBRST108(`'${name}' is not an embedded resource in this request`, {
    hint: `Verify that '${name}' is included in the 'select' query parameter.`,
  });
}

/**
 * PostgREST v16's `Warning` for aliased embeds named by relation (url-use-legacy-target-names),
 * or null when there were none.
 */
export function legacyTargetWarning(used: ReadonlyArray<readonly [string, string]> | undefined): string | null {
  if (!used || used.length === 0) return null;
  const pairs = used.map(([name, alias]) => `\`${name}\` to \`${alias}\``).join(', ');
  return `299 dbrest "Embedded resource was referenced by relation name even though it has an alias. This is deprecated and will stop working in a future release. Update ${pairs} in query string filters, orders or limits."`;
}

/** `order=name.desc,clients(name).asc.nullslast` for a node. */
export function resolveOrder(scope: NodeScope, terms: ReadonlyArray<OrderTerm>): Result<PlannedOrder[]> {
  const out: PlannedOrder[] = [];
  for (const term of terms) {
    if (term.relation === null) {
      const f = resolveField(scope, term.field);
      if (!f.ok) return f;
      out.push({ embed: null, field: f.value, direction: term.direction, nulls: term.nulls });
      continue;
    }
    const embed = findEmbed(scope, term.relation);
    if (!embed) return err(notEmbedded(term.relation));
    if (!embed.toOne) {
      return err(
        errors.DBRST118(`A related order on '${term.relation}' is not possible`, {
          details: `'${scope.name}' and '${term.relation}' do not form a many-to-one or one-to-one relationship`,
        }),
      );
    }
    // The term reads an output column of the embed's LATERAL subquery, which includes the columns
    // of to-one spreads nested in it (`order=processes(cat)` on `...processes(...categories(cat:name))`).
    const outputs = lateralOutputColumns(embed.node);
    const hit = outputs.find((o) => o.name === term.field.name);
    if (!hit) return err(undefinedColumn(embed.lateralAlias, term.field.name, outputs.map((o) => o.name)));
    const type = hit.type;
    const toJsonb = term.field.jsonPath.length > 0 && !(type === 'json' || type === 'jsonb');
    out.push({
      embed: embed.outputName,
      field: { column: hit.name, jsonPath: term.field.jsonPath, toJsonb, type },
      direction: term.direction,
      nulls: term.nulls,
    });
  }
  return ok(out);
}

/** Output columns of a node's LATERAL subquery: its own select list, then its to-one spreads'. */
function lateralOutputColumns(node: PlannedEmbed['node']): Array<{ name: string; type: string | null }> {
  const out = outputColumns(node.select, node.columns);
  for (const e of node.embeds) {
    if (e.spread && e.toOne && !e.silent) out.push(...lateralOutputColumns(e.node));
  }
  return out;
}

/** Output columns of a node's own select list (names and, when plain columns, their types). */
export function outputColumns(
  select: ReadonlyArray<PlannedSelect>,
  columns: ReadonlyArray<Column>,
): Array<{ name: string; type: string | null }> {
  const out: Array<{ name: string; type: string | null }> = [];
  for (const s of select) {
    if (s.kind === 'star') out.push(...columns.map((c) => ({ name: c.name, type: c.type })));
    else if (s.kind === 'count') out.push({ name: s.outputName, type: 'bigint' });
    else {
      const plain = s.cast === null && s.aggregate === null && s.field.jsonPath.length === 0;
      out.push({ name: s.outputName, type: plain ? s.field.type : null });
    }
  }
  return out;
}
