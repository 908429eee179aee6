// CORS as PostgREST does it: permissive by default (any origin), or limited to
// server-cors-allowed-origins; preflights answered directly with a 24 h max-age. Pure.
import type { ResponseSpec } from '../response/types.js';

const ALLOW_METHODS = 'GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD';
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Accept-Language, Content-Language';
const EXPOSE_HEADERS = 'Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit';

export interface CorsInput {
  readonly method: string;
  readonly origin: string | undefined;
  readonly requestMethod: string | undefined;
  readonly requestHeaders: string | undefined;
}

function originAllowed(origin: string, allowed: ReadonlyArray<string> | null): boolean {
  return allowed === null || allowed.includes('*') || allowed.includes(origin);
}

/** The answer to a CORS preflight, or null when the request is not one. */
export function corsPreflight(input: CorsInput, allowed: ReadonlyArray<string> | null): ResponseSpec | null {
  if (input.method !== 'OPTIONS' || !input.origin || !input.requestMethod) return null;
  if (!originAllowed(input.origin, allowed)) return { status: 200, headers: {}, body: null };
  const requested = input.requestHeaders ? `, ${input.requestHeaders}` : '';
  return {
    status: 200,
    headers: {
      'Access-Control-Allow-Origin': input.origin,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Allow-Methods': ALLOW_METHODS,
      'Access-Control-Allow-Headers': ALLOW_HEADERS + requested,
      'Access-Control-Max-Age': '86400',
    },
    body: null,
  };
}

/** Headers added to an ordinary response for a cross-origin request. */
export function corsHeaders(origin: string | undefined, allowed: ReadonlyArray<string> | null): Record<string, string> {
  if (!origin || !originAllowed(origin, allowed)) return {};
  return {
    'Access-Control-Allow-Origin': allowed === null ? '*' : origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': EXPOSE_HEADERS,
  };
}
