// When an answer is streamed (http/stream.ts) instead of built whole. Pure.
//
// Streamed: a GET-like (read-only, committed) read or set-returning call, in JSON, CSV or NDJSON,
// whose row count can exceed server-stream-threshold: no limit (Range, limit, db-max-rows) at or
// under it, and not a lookup by the whole primary key (at most one row). No planner estimate: it
// would cost a round trip on every request, and a run limited to the threshold + 1 rows already
// tells a small answer from a large one (http/read.ts, http/stream-memo.ts; calls of STABLE or
// IMMUTABLE functions too, http/call.ts; a VOLATILE one runs once, so the cursor's first batch
// tells), and a small one is answered as a buffered one.
//
// Kept buffered, because their head depends on the whole result or they are not reads: HEAD,
// Prefer: count=… (Content-Range's total), the singular and nulls=stripped representations,
// media handlers, raw output and explain, transactions that end in ROLLBACK, writes and
// volatile calls, Prefer: max-affected.
import type { AppConfig } from '../config/types.js';
import type { Relation } from '../catalog/types.js';
import type { ReadPlan } from '../plan/types.js';
import type { ReadMedia } from '../response/negotiate.js';
import type { StreamFormat } from '../sql/stream.js';

export interface StreamCase {
  readonly media: ReadMedia;
  readonly headersOnly: boolean;
  readonly count: unknown;
  readonly readOnly: boolean;
  readonly txEnd: 'commit' | 'rollback';
  readonly plan: ReadPlan;
  /** The relation read (its primary key), null for a call. */
  readonly relation: Relation | null;
}

export function streamFormat(c: StreamCase, cfg: Pick<AppConfig, 'serverStreamThreshold'>): StreamFormat | null {
  if (c.headersOnly || c.count !== null || !c.readOnly || c.txEnd !== 'commit') return null;
  if (c.media !== 'json' && c.media !== 'csv' && c.media !== 'ndjson') return null;
  const limit = c.plan.range.limit;
  if (limit !== null && limit <= cfg.serverStreamThreshold) return null;
  if (c.relation !== null && byWholeKey(c.plan, c.relation)) return null;
  return c.media;
}

/** `id=eq.5` (every primary key column, ANDed at the top): one row at most. */
function byWholeKey(plan: ReadPlan, relation: Relation): boolean {
  const pk = relation.primaryKey;
  if (pk.length === 0 || plan.root.aggregates) return false;
  return pk.every((col) =>
    plan.root.where.some(
      (w) =>
        w.kind === 'filter' &&
        !w.negated &&
        w.field.column === col &&
        w.field.jsonPath.length === 0 &&
        !w.field.computed &&
        w.operation.kind === 'simple' &&
        w.operation.op === 'eq' &&
        w.operation.quantifier === null,
    ),
  );
}
