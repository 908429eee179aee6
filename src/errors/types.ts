// The error value every stage returns (never throws) for an expected failure. Rendered to HTTP only
// in errors/render.ts.

export interface ApiError {
  /** SQLSTATE, `DBRSTnnn`, or a custom code from a `RAISE SQLSTATE 'DBRST'`. */
  readonly code: string;
  readonly status: number;
  readonly message: string;
  readonly details: string | null;
  /** Structured details sent as JSON instead of `details` (DBRST201 lists candidates, as PostgREST). */
  readonly detailsJson?: unknown;
  readonly hint: string | null;
  /** Extra response headers (WWW-Authenticate, Allow, custom-error headers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Reason phrase for non-standard statuses (custom errors). */
  readonly statusText?: string;
}

export type Result<T, E = ApiError> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): { readonly ok: true; readonly value: T } => ({ ok: true, value });
export const err = <E>(error: E): { readonly ok: false; readonly error: E } => ({ ok: false, error });
