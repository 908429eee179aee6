// CORS as PostgREST does it (wai-cors with PostgREST's policy): permissive by default (any origin),
// or limited to server-cors-allowed-origins; preflights answered directly with a 24 h max-age. A
// request from an origin that is not allowed gets no CORS headers at all and is handled as if it
// had no Origin (wai-cors with corsIgnoreFailures): the browser then refuses it. Pure.
import type { ResponseSpec } from '../response/types.js';

const ALLOW_METHODS = 'GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD';
/** Always allowed besides the requested headers: the CORS "simple headers" except Content-Type (wai-cors). */
const SIMPLE_HEADERS = ['Accept', 'Accept-Language', 'Content-Language'] as const;
const EXPOSE_HEADERS = 'Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit';

export interface CorsInput {
  readonly method: string;
  readonly origin: string | undefined;
  readonly requestMethod: string | undefined;
  readonly requestHeaders: string | undefined;
}

export function originAllowed(origin: string, allowed: ReadonlyArray<string> | null): boolean {
  return allowed === null || allowed.includes('*') || allowed.includes(origin);
}

/** `headers` without any `Access-Control-*` header (for a request from an origin that is not allowed). */
export function withoutCorsHeaders<V>(headers: Readonly<Record<string, V>>): Record<string, V> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^access-control-/i.test(name)));
}

/**
 * `Authorization`, then the headers the browser asked for, then the simple headers not already
 * named — compared case-insensitively (PostgREST: `Authorization, Foo, Bar, Accept, Accept-Language,
 * Content-Language` for `Access-Control-Request-Headers: Foo,Bar`).
 */
function allowHeaders(requested: string | undefined): string {
  const names: string[] = [];
  const seen = new Set<string>();
  const add = (name: string) => {
    const key = name.toLowerCase();
    if (name === '' || seen.has(key)) return;
    seen.add(key);
    names.push(name);
  };
  add('Authorization');
  for (const name of (requested ?? '').split(',')) add(name.trim());
  for (const name of SIMPLE_HEADERS) add(name);
  return names.join(', ');
}

/** The answer to a CORS preflight, or null when the request is not one (or its origin is not allowed). */
export function corsPreflight(input: CorsInput, allowed: ReadonlyArray<string> | null): ResponseSpec | null {
  if (input.method !== 'OPTIONS' || !input.origin || !input.requestMethod) return null;
  if (!originAllowed(input.origin, allowed)) return null;
  // Any origin allowed (no server-cors-allowed-origins): `*` without credentials, as PostgREST's
  // CorsSpec answers; a listed origin is echoed with credentials.
  const anyOrigin = allowed === null || allowed.includes('*');
  return {
    status: 200,
    headers: {
      'Access-Control-Allow-Origin': anyOrigin ? '*' : input.origin,
      ...(anyOrigin ? {} : { 'Access-Control-Allow-Credentials': 'true' }),
      'Access-Control-Allow-Methods': ALLOW_METHODS,
      'Access-Control-Allow-Headers': allowHeaders(input.requestHeaders),
      'Access-Control-Max-Age': '86400',
    },
    body: null,
  };
}

/**
 * Headers added to an ordinary response for a cross-origin request: `*` when any origin is allowed
 * (without credentials: `*` and credentials exclude each other), the origin itself with credentials
 * when it is in server-cors-allowed-origins.
 */
export function corsHeaders(origin: string | undefined, allowed: ReadonlyArray<string> | null): Record<string, string> {
  if (!origin || !originAllowed(origin, allowed)) return {};
  const anyOrigin = allowed === null || allowed.includes('*');
  return {
    'Access-Control-Allow-Origin': anyOrigin ? '*' : origin,
    ...(anyOrigin ? {} : { 'Access-Control-Allow-Credentials': 'true' }),
    'Access-Control-Expose-Headers': EXPOSE_HEADERS,
  };
}
