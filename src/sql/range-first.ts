// When a node's LIMIT/OFFSET can be applied before its embeds are joined (issue: offset reads ran
// every embed's LATERAL subquery for each skipped row, since LIMIT/OFFSET come after the joins).
// Pure: a predicate on the planned node; sql/read.ts renders the two shapes.
import type { PlannedLogic, ReadNode } from '../plan/types.js';

/**
 * True when filtering, ordering and the range of `node` depend on its own relation only, so
 * `SELECT … FROM (SELECT alias.* FROM rel AS alias WHERE … ORDER BY … LIMIT … OFFSET …) AS alias
 * LEFT JOIN LATERAL …` keeps exactly the rows the one-level shape keeps. Not when:
 * - there is no range or no embed (nothing to save);
 * - a limit with no offset and no order: nothing is skipped, and with LIMIT after the joins, as in
 *   PostgREST's statement, PostgreSQL can read the relation in its order and stop early; over a page
 *   subquery it hash-joined the page and answered its rows reordered (SpreadQueriesSpec);
 * - the node groups (LIMIT counts groups, after the joins a spread or aggregate needs);
 * - an `!inner` embed or a null-embed filter (`clients=is.null`) decides which rows exist;
 * - an order term sorts by an embedded to-one column (`order=clients(name)`);
 * - a to-one embed may join more than one row: a computed to-one relationship (a SETOF function
 *   declared ROWS 1 returns what it finds), at any depth of to-one embeds. The range must then
 *   count the joined rows, as PostgREST's LIMIT after the joins does.
 */
export function rangeFirst(node: ReadNode): boolean {
  if (node.range.offset === 0 && (node.range.limit === null || node.order.length === 0)) return false;
  if (node.embeds.length === 0) return false;
  if (node.aggregates || node.hoisted) return false;
  if (node.embeds.some((e) => e.joinType === 'inner')) return false;
  if (node.order.some((o) => o.embed !== null)) return false;
  if (mayMultiply(node)) return false;
  return !node.where.some(refersToEmbed);
}

function mayMultiply(node: ReadNode): boolean {
  return node.embeds.some((e) => e.toOne && (e.join.kind === 'computed' || mayMultiply(e.node)));
}

function refersToEmbed(l: PlannedLogic): boolean {
  if (l.kind === 'and' || l.kind === 'or') return l.children.some(refersToEmbed);
  return l.kind === 'embed-exists';
}
