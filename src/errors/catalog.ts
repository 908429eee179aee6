// The only place a DBRST code is born. Numbers follow PostgREST's groups (0xx connection, 1xx
// request, 2xx schema cache, 3xx JWT, X internal) so PGRSTnnn maps to DBRSTnnn. A retired code stays
// here as a comment and is never reused. Every entry is rendered by test/unit/errors/catalog.test.ts.
import type { ApiError } from './types.js';

interface Detail {
  readonly details?: string | null;
  readonly hint?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A code's maker, carrying its status and one line saying when it is raised (README's table of codes). */
function def(code: string, status: number, summary: string) {
  const make = (message: string, extra: Detail = {}): ApiError => ({
    code,
    status,
    message,
    details: extra.details ?? null,
    hint: extra.hint ?? null,
    ...(extra.headers ? { headers: extra.headers } : {}),
  });
  return Object.assign(make, { status, summary });
}

export const errors = {
  // 0xx: connection
  DBRST000: def('DBRST000', 503, 'cannot connect: wrong db-uri or database down'),
  DBRST001: def('DBRST001', 503, 'cannot connect: internal error'),
  DBRST002: def('DBRST002', 503, 'cannot connect while building the schema cache'),
  DBRST003: def('DBRST003', 504, 'timed out waiting for a pool connection'),
  // 1xx: request
  DBRST100: def('DBRST100', 400, 'query string parse error'),
  DBRST101: def('DBRST101', 405, 'method not allowed on this function (volatile via GET)'),
  DBRST102: def('DBRST102', 400, 'invalid body'),
  DBRST103: def('DBRST103', 416, 'invalid range'),
  DBRST105: def('DBRST105', 405, 'invalid PUT'),
  DBRST106: def('DBRST106', 406, 'schema not in db-schemas'),
  DBRST107: def('DBRST107', 406, 'none of the accepted media types is available'),
  DBRST108: def('DBRST108', 400, 'filter on an embedded resource not in select'),
  DBRST109: def('DBRST109', 400, 'limited PATCH/DELETE without an order (PostgREST v12)'),
  DBRST110: def('DBRST110', 400, 'limited PATCH/DELETE changed more rows than the limit (PostgREST v12)'),
  DBRST111: def('DBRST111', 500, 'invalid response.headers'),
  DBRST112: def('DBRST112', 500, 'invalid response.status'),
  DBRST114: def('DBRST114', 400, 'PUT with limit/offset'),
  DBRST115: def('DBRST115', 400, 'PUT where pk in query and body differ'),
  DBRST116: def('DBRST116', 406, 'singular response with 0 or >1 rows'),
  DBRST117: def('DBRST117', 405, 'unsupported HTTP verb'),
  DBRST118: def('DBRST118', 400, 'order by a to-many embed'),
  DBRST119: def('DBRST119', 400, 'spread of a to-many embed (PostgREST v12; no longer raised: v13+ spreads to-many as arrays)'),
  DBRST120: def('DBRST120', 400, 'unsupported filter on embedded resource'),
  DBRST121: def('DBRST121', 500, 'unparsable JSON in a raised DBRST error'),
  DBRST122: def('DBRST122', 400, 'invalid preferences with handling=strict'),
  DBRST123: def('DBRST123', 400, 'aggregates disabled'),
  DBRST124: def('DBRST124', 400, 'max-affected violated'),
  DBRST125: def('DBRST125', 404, 'invalid path'),
  DBRST126: def('DBRST126', 404, 'openapi disabled'),
  DBRST127: def('DBRST127', 400, 'feature not implemented'),
  DBRST128: def('DBRST128', 400, 'max-affected with handling=strict on a function not returning SETOF/TABLE'),
  // 2xx: schema cache
  DBRST200: def('DBRST200', 400, 'relationship not found'),
  DBRST201: def('DBRST201', 300, 'ambiguous embedding'),
  DBRST202: def('DBRST202', 404, 'function not found'),
  DBRST203: def('DBRST203', 300, 'ambiguous overloaded function'),
  DBRST204: def('DBRST204', 400, 'column not found'),
  DBRST205: def('DBRST205', 404, 'table not found'),
  // 3xx: JWT
  DBRST300: def('DBRST300', 500, 'JWT secret missing'),
  DBRST301: def('DBRST301', 401, 'JWT undecodable / invalid'),
  DBRST302: def('DBRST302', 401, 'anonymous access disabled'),
  DBRST303: def('DBRST303', 401, 'JWT claims invalid'),
  DBRST304: def('DBRST304', 403, 'JWT role claim names the authenticator role (or `none`): dbrest\'s own'),
  // 6xx: route mounts and HTTP-level limits (dbrest's own; PostgREST has no such group). Numbered 6xx, not 4xx,
  // so that no code reads as an HTTP status (DBRST600 is a 404, DBRST601 a 405). 40x were the old numbers.
  DBRST600: def('DBRST600', 404, 'no mount for this path under a mount prefix'),
  DBRST601: def('DBRST601', 405, 'the path is mounted, not for this method (with Allow)'),
  DBRST602: def('DBRST602', 415, 'request body of a media type the mount does not take'),
  DBRST603: def('DBRST603', 500, 'the mount is misconfigured (its problem is in the server log)'),
  DBRST604: def('DBRST604', 413, 'request body larger than the server accepts'),
  DBRST605: def('DBRST605', 414, 'request line (its target URI) longer than the server accepts'),
  DBRST606: def('DBRST606', 431, 'header block larger than the server accepts'),
  DBRST607: def('DBRST607', 400, 'not a well-formed HTTP/1.x request (rejected by the HTTP parser)'),
  DBRST608: def('DBRST608', 400, 'XML input with a DTD (or another markup declaration): never sent to PostgreSQL\'s XML parser'),
  // 7xx: the request cost budget (dbrest's own), refused before the query runs or, for the size of an
  // answer built whole, in SQL with the transaction rolled back.
  DBRST700: def('DBRST700', 400, 'select nests embeds deeper than db-max-embed-depth'),
  DBRST701: def('DBRST701', 400, 'select has more embeds than db-max-embeds'),
  DBRST702: def('DBRST702', 400, 'a buffered answer larger than server-max-response-bytes (checked in SQL, rolled back)'),
  // X: internal
  DBRSTX00: def('DBRSTX00', 500, 'connection library internal error'),
} as const;

export type ErrorCode = keyof typeof errors;
