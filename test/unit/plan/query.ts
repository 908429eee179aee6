// Test helpers: a query string → QueryParams through the real grammar, and planRead over the
// read.sql SchemaCache fixture.
import { parseQueryParams } from '../../../src/request/grammar/query.js';
import type { QueryParams, RangeHeader } from '../../../src/request/types.js';
import { planRead, type CountPreference } from '../../../src/plan/read-plan.js';
import type { ReadPlan } from '../../../src/plan/types.js';
import type { ApiError, Result } from '../../../src/errors/types.js';
import type { SchemaCache } from '../../../src/catalog/types.js';
import { cache } from './cache-fixture.js';

/** `'select=id&id=eq.1'`, or pairs when values need characters a query string would mangle. */
export function query(qs: string | ReadonlyArray<readonly [string, string]>): QueryParams {
  const r = parseQueryParams(typeof qs === 'string' ? new URLSearchParams(qs) : qs);
  if (!r.ok) throw new Error(`bad test query ${String(qs)}: ${JSON.stringify(r.error)}`);
  return r.value;
}

export interface PlanOptions {
  readonly range?: RangeHeader | null;
  readonly count?: CountPreference;
  readonly maxRows?: number | null;
  readonly aggregates?: boolean;
  /** Defaults to the hand-built read.sql fixture. */
  readonly cache?: SchemaCache;
}

/** planRead(`/relation?qs`) against the fixture cache. */
export function plan(relation: string, qs: string | ReadonlyArray<readonly [string, string]>, o: PlanOptions = {}): Result<ReadPlan> {
  return planRead(
    { schema: 'test', relation, query: query(qs), range: o.range ?? null, count: o.count ?? null },
    o.cache ?? cache,
    { dbMaxRows: o.maxRows ?? null, dbAggregatesEnabled: o.aggregates ?? true },
  );
}

export function planOk(relation: string, qs: string | ReadonlyArray<readonly [string, string]>, o: PlanOptions = {}): ReadPlan {
  const r = plan(relation, qs, o);
  if (!r.ok) throw new Error(`plan failed for /${relation}?${String(qs)}: ${JSON.stringify(r.error)}`);
  return r.value;
}

export function planErr(relation: string, qs: string | ReadonlyArray<readonly [string, string]>, o: PlanOptions = {}): ApiError {
  const r = plan(relation, qs, o);
  if (r.ok) throw new Error(`plan unexpectedly succeeded for /${relation}?${String(qs)}`);
  return r.error;
}
