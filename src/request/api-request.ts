// ApiRequest: one HTTP request parsed into data (no schema knowledge yet). Built by
// request/parse-request.ts, consumed by the planners.
import type { MediaRange, Preferences, QueryParams, RangeHeader } from './types.js';
import type { GoneSignal } from './gone.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS';

/** What the path names: `/films` → relation, `/rpc/f` → routine, `/` → root (OpenAPI). */
export type Target =
  | { readonly kind: 'relation'; readonly name: string }
  | { readonly kind: 'routine'; readonly name: string }
  | { readonly kind: 'root' };

export interface ContentType {
  readonly type: string;
  readonly subtype: string;
  readonly params: Readonly<Record<string, string>>;
}

export interface ApiRequest {
  readonly method: HttpMethod;
  readonly target: Target;
  /** Schema chosen by Accept-Profile / Content-Profile (or the default one). */
  readonly schema: string;
  /** True when the client named the schema with a profile header (PostgREST then echoes Content-Profile). */
  readonly schemaFromProfile: boolean;
  readonly query: QueryParams;
  readonly preferences: Preferences;
  /** `Range` request header (only when `Range-Unit` is absent or `items`). */
  readonly range: RangeHeader | null;
  readonly accept: ReadonlyArray<MediaRange>;
  readonly contentType: ContentType | null;
  readonly body: Buffer | null;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: Readonly<Record<string, string>>;
  readonly path: string;
  /** The raw query string (after `?`, still percent-encoded; '' when none). */
  readonly search: string;
  /** HttpInput.signal: the client went away (db/cancel-watch.ts, http/stream.ts). */
  readonly signal?: GoneSignal;
}
