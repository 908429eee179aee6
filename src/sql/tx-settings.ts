// The request context PostgREST exposes to SQL as transaction-local GUCs, set in the same round trip
// as the query (db/transaction.ts sends them with one prepared set_config statement). Pure.
import type { AppConfig } from '../config/types.js';
import type { ApiRequest } from '../request/api-request.js';
import { quoteIdent } from './fragment.js';
import { traceIdOf } from '../observe/trace.js';

export interface RequestIdentity {
  readonly role: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Hoisted per-role settings (db/role-settings.ts), applied after the role switch. */
export type HoistedSettings = ReadonlyMap<string, ReadonlyArray<readonly [string, string]>>;

/** PostgREST exposes the Cookie header only as request.cookies, never among request.headers. */
function headersWithoutCookie(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (!('cookie' in headers)) return headers;
  const { cookie: _cookie, ...rest } = headers;
  return rest;
}

/** What a configuration gives every request alike: search_path per schema, app.settings.* pairs. */
interface ConfigSettings {
  readonly searchPaths: Map<string, string>;
  readonly app: ReadonlyArray<readonly [string, string]>;
}
const perConfig = new WeakMap<object, ConfigSettings>();

function configSettings(cfg: Pick<AppConfig, 'appSettings'>): ConfigSettings {
  let c = perConfig.get(cfg);
  if (c === undefined) {
    c = { searchPaths: new Map(), app: Object.entries(cfg.appSettings).map(([k, v]) => [`app.settings.${k}`, v] as const) };
    perConfig.set(cfg, c);
  }
  return c;
}

function searchPathFor(schema: string, cfg: Pick<AppConfig, 'dbExtraSearchPath' | 'appSettings'>): string {
  const paths = configSettings(cfg).searchPaths;
  let path = paths.get(schema);
  if (path === undefined) {
    // As PostgREST (iSchema : configDbExtraSearchPath): the exposed schema is not dropped from the
    // extra ones, so functions and EXPLAIN's settings see `"public", "public"` where PostgREST's do.
    path = [schema, ...cfg.dbExtraSearchPath].map(quoteIdent).join(', ');
    paths.set(schema, path); // one per exposed schema
  }
  return path;
}

/**
 * request.headers as JSON. Clients send the same headers request after request, so the names and
 * values of the last request's headers are kept beside their JSON, and a request with the same
 * ones (same order) takes it instead of serialising again: comparing a handful of short strings
 * costs less than JSON.stringify. Headers of more than HEADERS_KEPT characters are not kept.
 */
const HEADERS_KEPT = 4096;
let lastHeaders: string[] = [];
let lastHeadersJson = '';
function headersJson(headers: Readonly<Record<string, string>>): string {
  const kept = lastHeaders;
  let i = 0;
  let same = kept.length > 0;
  if (same) {
    for (const k in headers) {
      if (i >= kept.length || kept[i] !== k || kept[i + 1] !== headers[k]) {
        same = false;
        break;
      }
      i += 2;
    }
    if (same && i === kept.length) return lastHeadersJson;
  }
  const json = JSON.stringify(headersWithoutCookie(headers));
  const pairs: string[] = [];
  let length = 0;
  for (const k in headers) {
    const v = headers[k]!;
    length += k.length + v.length;
    pairs.push(k, v);
  }
  lastHeaders = length <= HEADERS_KEPT ? pairs : [];
  lastHeadersJson = json;
  return json;
}

// JSON of frozen objects (the claims of an anonymous request or of a cached token, a request's
// cookies when it has none), made once: they cannot change.
const frozenJson = new WeakMap<object, string>();
function jsonOf(value: Readonly<Record<string, unknown>>): string {
  // Looked up first: Object.isFrozen is a call into C++, and most objects here are frozen ones.
  let json = frozenJson.get(value);
  if (json !== undefined) return json;
  json = JSON.stringify(value);
  if (Object.isFrozen(value)) frozenJson.set(value, json);
  return json;
}

const NO_HOISTED: HoistedSettings = new Map();

/**
 * A `statement_timeout` value in milliseconds (`300ms`, `3s`, `1min`, `5000`: a bare number is ms),
 * or null when it is not one PostgreSQL would have taken.
 */
export function timeoutMs(value: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|min|h|d)?\s*$/.exec(value);
  if (m === null) return null;
  const unit = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 'ms']!;
  return Math.round(Number(m[1]) * unit);
}

/**
 * db-statement-timeout against the role's own (hoisted) statement_timeout: the lower one that is
 * on wins, so a role an operator bounded tighter (Supabase's anon 3 s) keeps its bound, and one
 * set higher or off cannot lift the server's. Null: the role's own (or none) stands.
 */
function serverTimeout(configured: number | null | undefined, forRole: ReadonlyArray<readonly [string, string]> | undefined): string | null {
  if (!configured) return null;
  const own = forRole?.find(([name]) => name === 'statement_timeout');
  const ownMs = own === undefined ? null : timeoutMs(own[1]);
  if (ownMs !== null && ownMs > 0 && ownMs <= configured) return null;
  return `${configured}ms`;
}

/**
 * A streamed answer's bound after its first batch: the server's statement timeout bounds the
 * statement that makes the first rows, then the cursor goes back to the role's own setting ('0':
 * none): in a cursor PostgreSQL's timer runs on across every later fetch and the client's pauses
 * between them, so a large export would be cut off mid-answer; it ends when the client goes away
 * instead (db/cancel-watch.ts). Null when the server's timeout is not in force for the request.
 */
export function timeoutAfterFirstBatch(
  cfg: Partial<Pick<AppConfig, 'dbStatementTimeout'>>,
  role: string,
  hoisted: HoistedSettings = NO_HOISTED,
): string | null {
  const forRole = hoisted.get(role);
  if (serverTimeout(cfg.dbStatementTimeout, forRole) === null) return null;
  return forRole?.find(([name]) => name === 'statement_timeout')?.[1] ?? '0';
}

export function contextSettings(
  req: Pick<ApiRequest, 'method' | 'path' | 'headers' | 'cookies' | 'schema'> & { readonly preferences?: { readonly timezone: string | null } },
  who: RequestIdentity,
  cfg: Pick<AppConfig, 'dbExtraSearchPath' | 'appSettings'> & Partial<Pick<AppConfig, 'dbStatementTimeout'>>,
  hoisted: HoistedSettings = NO_HOISTED,
): Array<readonly [string, string]> {
  const settings: Array<readonly [string, string]> = [
    ['search_path', searchPathFor(req.schema, cfg)],
    ['request.method', req.method],
    ['request.path', req.path],
    ['request.headers', headersJson(req.headers)],
    ['request.cookies', jsonOf(req.cookies)],
    ['request.jwt.claims', jsonOf(who.claims)],
  ];
  for (const pair of configSettings(cfg).app) settings.push(pair);
  // W3C trace context: the trace id of a valid `traceparent`, for SQL to log or pass on (issue 29).
  const traceId = traceIdOf(req.headers['traceparent']);
  if (traceId !== null) settings.push(['request.trace_id', traceId]);
  // Prefer: timezone; PostgreSQL refuses an unknown zone (22023), answered as PostgREST v16 does.
  if (req.preferences?.timezone) settings.push(['timezone', req.preferences.timezone]);
  // Last, so everything above is set by the authenticator before privileges drop.
  settings.push(['role', who.role]);
  const forRole = hoisted.get(who.role);
  if (forRole) for (const pair of forRole) settings.push(pair);
  // After the role's own settings, so it wins where it is the lower bound. Set with the request's
  // other settings, it bounds each later statement of the batch (and each fetch of a cursor).
  const timeout = serverTimeout(cfg.dbStatementTimeout, forRole);
  if (timeout !== null) settings.push(['statement_timeout', timeout]);
  return settings;
}
