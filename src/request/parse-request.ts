// HttpInput → ApiRequest. Pure: reads only the request and the list of exposed schemas. Routine
// argument names are passed in (from the schema cache by the caller) because `GET /rpc/f?a=1` can
// only tell arguments from filters by knowing f's parameters.
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { ApiRequest, HttpMethod, Target } from './api-request.js';
import { parseQueryParams } from './grammar/query.js';
import { parseRangeHeader } from './grammar/range.js';
import { headerValue, headerValues, type HttpInput } from './http-input.js';
import { parseAccept, parseContentType } from './media-type.js';
import { memoByText } from '../memo.js';
import { parsePreferences } from './preferences.js';
import { resolveTarget } from './route.js';
import { parseUrlEncoded } from './urlencoded.js';
import type { MediaRange, QueryParams } from './types.js';

const METHODS = new Set<HttpMethod>(['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS']);

export interface ParseContext {
  readonly schemas: ReadonlyArray<string>;
  /** Parameter names of the routine `schema.name`, or null when there is no such routine. */
  readonly routineArgNames: (schema: string, name: string) => ReadonlySet<string> | null;
}

/** The cookies of a request without a Cookie header: one frozen object (tx-settings.ts keeps its JSON). */
const NO_COOKIES: Readonly<Record<string, string>> = Object.freeze({});

export function parseCookies(header: string | undefined): Readonly<Record<string, string>> {
  if (!header) return NO_COOKIES;
  const out: Record<string, string> = {};
  for (const pair of header.split(';')) {
    const i = pair.indexOf('=');
    if (i <= 0) continue;
    const name = pair.slice(0, i).trim();
    let v = pair.slice(i + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
    try {
      v = decodeURIComponent(v);
    } catch {
      /* keep raw */
    }
    if (!(name in out)) out[name] = v;
  }
  return out;
}

function chooseSchema(input: HttpInput, method: HttpMethod, schemas: ReadonlyArray<string>): Result<{ schema: string; fromProfile: boolean }> {
  // PostgREST: Accept-Profile for GET/HEAD, Content-Profile for the others.
  const header = method === 'GET' || method === 'HEAD' ? 'accept-profile' : 'content-profile';
  const requested = headerValue(input, header);
  if (requested === undefined) return ok({ schema: schemas[0]!, fromProfile: false });
  if (!schemas.includes(requested)) {
    // PostgREST v12+: the message names the schema asked for, the hint lists the exposed ones.
    return err(errors.DBRST106(`Invalid schema: ${requested}`, { hint: `Only the following schemas are exposed: ${schemas.join(', ')}` }));
  }
  return ok({ schema: requested, fromProfile: true });
}

function parseQuery(search: string, opts: { isRpcArg: (name: string) => boolean; rpcRead: boolean }): Result<QueryParams> {
  const params = parseUrlEncoded(search);
  if (params === null) {
    return err(errors.DBRST100('failed to parse the query string', { details: 'A percent-encoded name or value is not valid UTF-8' }));
  }
  return parseQueryParams(params, opts);
}

/** A query string that is not GET /rpc's (whose arguments depend on the function): parsed once per text. */
const plainQueryOf = memoByText((search: string) => parseQuery(search, { isRpcArg: () => false, rpcRead: false }), 512, 2048);
const acceptOf = memoByText(parseAccept);
const contentTypeOf = memoByText(parseContentType);
/** No Accept header: `*\/*`, one object for every such request (http/mutate.ts keeps its negotiation per object). */
const NO_ACCEPT: ReadonlyArray<MediaRange> = parseAccept(undefined);
const preferenceOf = memoByText((value: string) => parsePreferences([value]));
/** A path's target: split, filtered and percent-decoded once per path text (some 6,000 instructions). */
const targetOf = memoByText(resolveTarget);

/** The request's Accept, Content-Type and Prefer headers, parsed (a repeated value once: src/memo.ts). */
export function mediaHeaders(input: HttpInput): Pick<ApiRequest, 'accept' | 'contentType' | 'preferences'> {
  const accept = headerValue(input, 'accept');
  const contentType = headerValue(input, 'content-type');
  const prefer = headerValues(input, 'prefer');
  return {
    accept: accept === undefined ? NO_ACCEPT : acceptOf(accept),
    contentType: contentType === undefined ? null : contentTypeOf(contentType),
    preferences: prefer.length === 1 ? preferenceOf(prefer[0]!) : parsePreferences(prefer),
  };
}

/**
 * The headers with one string per name (repeats joined by `, `). Node's own object when it is that
 * already — every header but Set-Cookie arrives as one string — rather than a copy per request.
 */
function stringHeaders(raw: HttpInput['headers']): Readonly<Record<string, string>> {
  let plain = true;
  for (const k in raw) {
    if (typeof raw[k] !== 'string') {
      plain = false;
      break;
    }
  }
  if (plain) return raw as Readonly<Record<string, string>>;
  const headers: Record<string, string> = {};
  for (const k in raw) {
    const v = raw[k];
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return headers;
}

export function parseRequest(input: HttpInput, ctx: ParseContext): Result<ApiRequest> {
  const method = input.method.toUpperCase() as HttpMethod;
  if (!METHODS.has(method)) return err(errors.DBRST117(`Unsupported HTTP method: ${input.method}`));
  const q = input.url.indexOf('?');
  const pathname = q === -1 ? input.url : input.url.slice(0, q);
  const search = q === -1 ? '' : input.url.slice(q + 1);

  const target = targetOf(pathname);
  if (!target.ok) return target;
  const schema = chooseSchema(input, method, ctx.schemas);
  if (!schema.ok) return schema;

  // Only GET/HEAD calls take arguments from the query string.
  const rpcRead = target.value.kind === 'routine' && (method === 'GET' || method === 'HEAD');
  const argNames = rpcRead ? ctx.routineArgNames(schema.value.schema, target.value.name) : null;
  const query = rpcRead ? parseQuery(search, { isRpcArg: (name) => argNames?.has(name) ?? false, rpcRead }) : plainQueryOf(search);
  if (!query.ok) return query;

  const rangeUnit = headerValue(input, 'range-unit');
  const rangeHeader = headerValue(input, 'range');
  // PostgREST reads the Range header on GET only; HEAD, POST /rpc and the others ignore it
  // (Query/RpcSpec.hs "ignores Range header when method is different than GET").
  const range = rangeHeader !== undefined && (rangeUnit === undefined || rangeUnit.toLowerCase() === 'items') && method === 'GET'
    ? parseRangeHeader(rangeHeader)
    : null;

  return ok({
    method,
    target: target.value as Target,
    schema: schema.value.schema,
    schemaFromProfile: schema.value.fromProfile,
    query: query.value,
    ...mediaHeaders(input),
    range,
    body: input.body,
    headers: stringHeaders(input.headers),
    cookies: parseCookies(headerValue(input, 'cookie')),
    path: pathname,
    search,
    ...(input.signal ? { signal: input.signal } : {}),
  });
}
