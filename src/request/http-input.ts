// The HTTP request as plain data: what http/server.ts reads off the socket, before any parsing.
import type { GoneSignal } from './gone.js';

/** A body limit and the setting that gave it (mount/body-limit.ts builds them). */
export interface BodyLimitHit {
  readonly bytes: number;
  readonly setBy: string;
}

export interface HttpInput {
  readonly method: string;
  /** Path and query, as received (`/films?select=title`). */
  readonly url: string;
  /** Lower-cased names; repeated headers joined by ', ' except as noted by Node. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer | null;
  /** The body was larger than its limit (server-max-body-size or its mount's) and was not read (answered 413). */
  readonly bodyTooLarge?: BodyLimitHit;
  /** Aborted when the client goes away before its answer was sent (its query is then cancelled). */
  readonly signal?: GoneSignal;
}

export function headerValue(input: HttpInput, name: string): string | undefined {
  const v = input.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

export function headerValues(input: HttpInput, name: string): string[] {
  const v = input.headers[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}
