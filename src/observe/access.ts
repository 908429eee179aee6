// One event per answered request, handed by the HTTP server to the metrics and the JSON access log.
// Carries no URL, header, cookie or token: the route is a template (observe/route-label.ts), so
// nothing a client sent can leak into metrics labels or log fields through it.
export interface AccessEvent {
  /** The request id (X-Request-Id). */
  readonly id: string;
  readonly method: string;
  readonly route: string;
  /** Status sent; 499 when the client went away before its answer. */
  readonly status: number;
  /** DBRSTnnn or SQLSTATE of the error answered; null on success. */
  readonly code: string | null;
  readonly role: string | null;
  readonly durationMs: number;
  /** Time in the database transaction; null when the request did not reach it. */
  readonly dbMs: number | null;
  /** Body bytes of a buffered answer; null for a streamed one (its length is not known up front). */
  readonly bytes: number | null;
  /** W3C trace id from `traceparent`, when the request carried one. */
  readonly traceId: string | null;
}

/** Told of every request once its answer is written (or abandoned). */
export type RequestObserver = (e: AccessEvent) => void;
