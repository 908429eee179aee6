// Content-Range and the 200/206/416 decision of the seed's pagination rules (PostgREST's
// rangeStatus). Pure.
import { errors } from '../errors/catalog.js';
import type { ApiError } from '../errors/types.js';

/** `0-9/100`, `0-9/*`, `*\/0` (empty page). */
export function contentRange(offset: number, pageCount: number, total: number | null): string {
  const totalText = total === null ? '*' : String(total);
  if (pageCount <= 0) return `*/${totalText}`;
  return `${offset}-${offset + pageCount - 1}/${totalText}`;
}

export type RangeOutcome = { readonly status: 200 | 206 } | { readonly status: 416; readonly error: ApiError };

export function rangeStatus(offset: number, pageCount: number, total: number | null): RangeOutcome {
  if (total === null) return { status: 200 };
  if (offset > total) {
    return {
      status: 416,
      error: errors.DBRST103('Requested range not satisfiable', {
        details: `An offset of ${offset} was requested, but there are only ${total} rows.`,
      }),
    };
  }
  // PostgREST: 206 whenever the page holds fewer rows than the total (an empty page past the
  // last row included), 416 only when the offset is beyond the total.
  return { status: pageCount < total ? 206 : 200 };
}
