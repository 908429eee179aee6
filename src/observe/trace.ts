// W3C Trace Context (https://www.w3.org/TR/trace-context/): the trace id of a request's
// `traceparent`, for the access log. Pure.

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);

/** The trace id of a valid `traceparent` (version ff and an all-zero id are invalid, §3.2.2), else null. */
export function traceIdOf(traceparent: string | string[] | undefined): string | null {
  if (typeof traceparent !== 'string') return null;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (m === null || m[1] === 'ff' || m[2] === ZERO_TRACE || m[3] === '0000000000000000') return null;
  return m[2]!;
}
