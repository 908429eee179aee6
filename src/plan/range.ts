// Which rows a read returns: `limit`/`offset` query parameters intersected with the `Range` request
// header (root only), then capped by `db-max-rows` — PostgREST's ApiRequest.getRanges + RangeQuery.
// Pure. Whether the range is satisfiable (416 when the offset is past the end) is decided after the
// query ran, by the response stage; here only ranges that are invalid on their face are refused.
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { RangeHeader } from '../request/types.js';
import type { ResolvedRange } from './types.js';

export const ALL_ROWS: ResolvedRange = { offset: 0, limit: null };

const RANGE_MESSAGE = 'Requested range not satisfiable';
const NEGATIVE_LIMIT = 'Limit should be greater than or equal to zero.';
const LOWER_GT_UPPER = 'The lower boundary must be lower than or equal to the upper boundary in the Range header.';

/** `limit`/`offset` of one node as the query string gave them (absent → null). */
export interface RangeParams {
  readonly offset: number;
  readonly limit: number | null;
}

/**
 * The root range. `Range: 5-2` → DBRST103 (lower > upper); `limit=-1` → DBRST103; `offset=-4` → no offset; a Range header
 * and limit/offset that do not overlap (`Range: 0-5` with `offset=10`) → DBRST103 as in PostgREST.
 * `limit=0` is kept as a real zero limit. The result is capped by `maxRows`.
 */
export function resolveRootRange(
  params: RangeParams | null,
  header: RangeHeader | null,
  maxRows: number | null,
): Result<ResolvedRange> {
  if (header && header.last !== null && header.last < header.first) {
    return err(errors.DBRST103(RANGE_MESSAGE, { details: LOWER_GT_UPPER }));
  }
  const fromParams = paramsRange(params);
  if (!fromParams.ok) return fromParams;
  const limitRange = fromParams.value;
  // limit=0 bypasses the Range header (PostgREST's convertToLimitZeroRange).
  if (limitRange.limit === 0) return ok(limitRange);

  let range = limitRange;
  if (header) {
    const lower = Math.max(header.first, limitRange.offset);
    const upperA = header.last;
    const upperB = limitRange.limit === null ? null : limitRange.offset + limitRange.limit - 1;
    const upper = upperA === null ? upperB : upperB === null ? upperA : Math.min(upperA, upperB);
    if (upper !== null && upper < lower) {
      // Empty intersection. PostgREST names it a negative limit when the header itself was valid.
      return err(errors.DBRST103(RANGE_MESSAGE, { details: NEGATIVE_LIMIT }));
    }
    range = { offset: lower, limit: upper === null ? null : upper - lower + 1 };
  }
  return ok(restrictRange(range, maxRows));
}

/** An embedded node's range (`tasks.limit=2&tasks.offset=1`), capped by `maxRows` like PostgREST. */
export function resolveEmbedRange(params: RangeParams | null, maxRows: number | null): Result<ResolvedRange> {
  const r = paramsRange(params);
  if (!r.ok) return r;
  return ok(r.value.limit === 0 ? r.value : restrictRange(r.value, maxRows));
}

/** Cap a range at `maxRows` rows (`db-max-rows`); null means no cap. */
export function restrictRange(range: ResolvedRange, maxRows: number | null): ResolvedRange {
  if (maxRows === null) return range;
  const limit = range.limit === null ? maxRows : Math.min(range.limit, maxRows);
  return { offset: range.offset, limit };
}

function paramsRange(params: RangeParams | null): Result<ResolvedRange> {
  if (!params) return ok(ALL_ROWS);
  if (params.limit !== null && (params.limit < 0 || !Number.isSafeInteger(params.limit))) {
    return err(errors.DBRST103(RANGE_MESSAGE, { details: NEGATIVE_LIMIT }));
  }
  // A negative offset is a no-op, as in PostgREST's RangeSpec ("succeeds if offset is negative").
  return ok({ offset: Math.max(0, params.offset), limit: params.limit });
}
