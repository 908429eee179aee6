// The count of a read: `SELECT 1 FROM <root> WHERE <root filters>` without LIMIT/OFFSET, order or
// embeds' output (PostgREST's readPlanToCountQuery). `!inner` embeds and null-embed filters
// (`clients=not.is.null`) change which root rows exist, so they become EXISTS subqueries here.
// Pure. Also the EXPLAIN statement used for `Prefer: count=planned|estimated`.
import type { PlannedEmbed, ReadNode, ReadPlan } from '../plan/types.js';
import { embedFromSql, joinConditionsSql, logicSql, type EmbedExistsSql } from './filters.js';
import { constant, ident, join, qualified, sql, type Sql } from './fragment.js';

/** `FROM` of the root: the plan's source unless the caller substitutes one (a CTE of written rows). */
export function rootFromSql(plan: ReadPlan, source?: Sql): Sql {
  const src = source ?? (plan.source.kind === 'relation' ? qualified(plan.source.name) : plan.source.from);
  return sql`${src} AS ${ident(plan.root.alias)}`;
}

/** `SELECT 1 FROM … WHERE …` counting the root rows the read selects (before LIMIT/OFFSET). */
export function buildCountQuery(plan: ReadPlan, opts: { source?: Sql } = {}): Sql {
  const conds = nodeCountConditions(plan.root);
  return sql`SELECT 1 FROM ${rootFromSql(plan, opts.source)}${where(conds)}`;
}

/** `EXPLAIN (FORMAT JSON) SELECT 1 FROM … WHERE …`: the caller reads `[0].Plan["Plan Rows"]`. */
export function buildPlannedCountStatement(plan: ReadPlan, opts: { source?: Sql } = {}): Sql {
  return sql`EXPLAIN (FORMAT JSON) ${buildCountQuery(plan, opts)}`;
}

function where(conds: ReadonlyArray<Sql>): Sql {
  return conds.length === 0 ? constant('') : sql` WHERE ${join(conds, constant(' AND '))}`;
}

/** The node's own filters plus EXISTS for its `!inner` children. */
function nodeCountConditions(node: ReadNode): Sql[] {
  const embedExists: EmbedExistsSql = (name, exists) => {
    const embed = node.embeds.find((e) => e.outputName === name);
    if (!embed) throw new Error(`null-embed filter on unknown embed ${name}`);
    const sub = sql`EXISTS (${embedCountQuery(embed, node.alias)})`;
    return exists ? sub : sql`NOT ${sub}`;
  };
  return [
    ...node.where.map((l) => logicSql(node.alias, l, embedExists)),
    ...node.embeds.filter((e) => e.joinType === 'inner').map((e) => sql`EXISTS (${embedCountQuery(e, node.alias)})`),
  ];
}

function embedCountQuery(embed: PlannedEmbed, parentAlias: string): Sql {
  const conds = [...joinConditionsSql(embed, parentAlias), ...nodeCountConditions(embed.node)];
  return sql`SELECT 1 FROM ${embedFromSql(embed, parentAlias)}${where(conds)}`;
}

/**
 * `Prefer: count=estimated` as PostgREST computes it: the counted rows (at most maxRows + 1) while
 * they do not pass `db-max-rows`, else the larger of them and the planner's estimate. Without
 * `db-max-rows` the estimate is always consulted (Haskell's `Just n > Nothing`).
 */
export function estimatedTotal(counted: number | null, planned: number | null, maxRows: number | null): number | null {
  if (counted !== null && maxRows !== null && counted <= maxRows) return counted;
  if (counted === null) return planned;
  return planned === null ? counted : Math.max(counted, planned);
}
