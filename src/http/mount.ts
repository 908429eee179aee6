// Mounted routes (engine spec §5): a matched mount → its call or relation, run exactly as /rpc and
// PostgREST's table routes run (same planBoundCall + executeCall seam, same runRead/runMutate), and
// every error of a group rendered in the group's own shape when it names an error handler.
//
//   match → negotiate `produces` (406) → body type (415) → bind arguments (400) → plan → execute
//
// The mount table is built once per schema cache and configuration (mount/check.ts resolves the
// mounts, mount/router.ts indexes them) and is the only per-request lookup.
import { STATUS_CODES } from 'node:http';
import type { AuthResult } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import { errors } from '../errors/catalog.js';
import { renderError } from '../errors/render.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import { bindArguments, checkBodyType, checkBodyXml, negotiateProduces } from '../mount/bind.js';
import { groupSchema, resolveMounts, type ResolvedGroup, type ResolvedMount } from '../mount/check.js';
import { buildMountTable, type MountMatch, type MountTable } from '../mount/router.js';
import { mountBodyLimit, serverBodyLimit, type BodyLimit } from '../mount/body-limit.js';
import { parseContentType } from '../request/media-type.js';
import { EMPTY_QUERY, inputParams, planBoundCall } from '../plan/call-plan.js';
import type { ApiRequest, HttpMethod } from '../request/api-request.js';
import { headerValue, type HttpInput } from '../request/http-input.js';
import { parseAccept } from '../request/media-type.js';
import { mediaHeaders, parseCookies, parseRequest } from '../request/parse-request.js';
import { parsePreferences } from '../request/preferences.js';
import type { MediaRange } from '../request/types.js';
import { parseUrlEncoded } from '../request/urlencoded.js';
import type { ResponseSpec } from '../response/types.js';
import type { AppState } from './app.js';
import { bodyTooLarge } from './body-limit.js';
import { executeCall } from './call.js';
import { runMutate } from './mutate.js';
import { runRead } from './read.js';

interface Built {
  readonly config: AppConfig;
  readonly table: MountTable;
  /** Per group: the app as the group sees it (its own pre-request). */
  readonly apps: WeakMap<ResolvedGroup, AppState>;
}
const tables = new WeakMap<SchemaCache, Built>();

/**
 * The mount table for this schema cache and configuration: built once (start.ts builds it as soon as a
 * cache or configuration is loaded, so requests only look it up), its problems logged then.
 */
export function mountTable(app: AppState, cache: SchemaCache): MountTable | null {
  const config = app.config;
  if (config.routes.length === 0) return null;
  const built = tables.get(cache);
  if (built && built.config === config) return built.table;
  const resolved = resolveMounts(config.routes, cache, config.dbSchemas);
  for (const p of resolved.problems) app.log.error(`${p.where} (${p.what}): ${p.message}`);
  const table = buildMountTable(resolved.groups, (where, message) => app.log.error(`${where}: ${message}`));
  const all = resolved.groups.flatMap((g) => g.mounts);
  app.log.info(`${all.filter((m) => m.kind !== 'broken').length} of ${all.length} route mounts ready`);
  tables.set(cache, { config, table, apps: new WeakMap() });
  return table;
}

/**
 * The body limit of a request, from its head (http/server.ts reads no further): its mount's or its
 * group's when a mount or prefix claims the path, else server-max-body-size.
 */
export function requestBodyLimit(app: AppState, method: string, url: string, ctHeader: string | undefined): BodyLimit {
  const server = app.config.serverMaxBodySize;
  const cache = app.config.routes.length === 0 ? null : app.cache();
  const table = cache === null ? null : mountTable(app, cache);
  if (table === null) return serverBodyLimit(server);
  const q = url.indexOf('?');
  const match = table.match(method.toUpperCase(), q === -1 ? url : url.slice(0, q));
  if (match === null) return serverBodyLimit(server);
  const ct = ctHeader === undefined ? null : parseContentType(ctHeader);
  return mountBodyLimit(match.group.group, match.kind === 'mount' ? match.mount.mount : null, ct, ctHeader, server);
}

/** The app with the group's pre-request in place of db-pre-request. */
function groupApp(app: AppState, cache: SchemaCache, g: ResolvedGroup): AppState {
  const pre = g.group.preRequest;
  if (pre === null) return app;
  const built = tables.get(cache);
  let scoped = built?.apps.get(g);
  if (!scoped) {
    const schema = groupSchema(g.group, app.config.dbSchemas);
    const dbPreRequest = pre === '' ? null : pre.includes('.') ? pre : `${schema}.${pre}`;
    scoped = Object.create(app, { config: { value: { ...app.config, dbPreRequest } } }) as AppState;
    built?.apps.set(g, scoped);
  }
  return scoped;
}

const ANY: ReadonlyArray<MediaRange> = [{ type: '*', subtype: '*', params: {}, q: 1 }];

function flatHeaders(input: HttpInput): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return headers;
}

/** The request as the call sees it: context (method, path, headers, cookies → GUCs), Accept, Prefer, body. */
function mountRequest(input: HttpInput, pathname: string, search: string, schema: string, routine: string): ApiRequest {
  return {
    method: input.method.toUpperCase() as HttpMethod,
    target: { kind: 'routine', name: routine },
    schema,
    schemaFromProfile: false,
    query: EMPTY_QUERY,
    ...mediaHeaders(input),
    range: null,
    body: input.body,
    headers: flatHeaders(input),
    cookies: parseCookies(headerValue(input, 'cookie')),
    path: pathname,
    search,
    ...(input.signal ? { signal: input.signal } : {}),
  };
}

export interface MountContext {
  readonly input: HttpInput;
  readonly pathname: string;
  readonly search: string;
  readonly cache: SchemaCache;
  readonly app: AppState;
}

/** Answer a matched (or prefix-matched) request; errors come back rendered in the group's shape. */
export async function runMountMatch(match: MountMatch, who: Result<AuthResult>, ctx: MountContext): Promise<{ response: ResponseSpec; errorCode: string | null }> {
  const schema = groupSchema(match.group.group, ctx.app.config.dbSchemas);
  const base = mountRequest(ctx.input, ctx.pathname, ctx.search, schema, '');
  // An error before (or without) negotiation still answers in a type the client takes, if any.
  const groupMedia = (): string | null => {
    const produces = match.kind === 'mount' ? match.mount.mount.produces ?? match.group.group.produces : match.group.group.produces;
    return produces.length > 0 ? negotiateProduces(base.accept, produces)?.offer ?? null : null;
  };
  const fail = async (e: ApiError, media: string | null = groupMedia()) => ({
    response: await renderGroupError(e, match.group, base, who.ok ? who.value : null, ctx, media),
    errorCode: e.code,
  });

  if (ctx.input.bodyTooLarge) return fail(bodyTooLarge(ctx.input.bodyTooLarge));
  if (match.kind === 'none') return fail(errors.DBRST600(`No route for ${ctx.pathname}`));
  if (match.kind === 'method') {
    const allow = match.allow.join(', ');
    if (base.method === 'OPTIONS') return { response: { status: 200, headers: { Allow: allow }, body: null }, errorCode: null };
    return fail(errors.DBRST601(`Method ${base.method} is not allowed here`, { details: `Allowed: ${allow}`, headers: { Allow: allow } }));
  }
  const m = match.mount;
  const produces = m.mount.produces ?? m.group.produces;
  const negotiated = negotiateMount(base.accept, produces);
  if (negotiated === null) {
    const asked = base.accept.map((r) => `${r.type}/${r.subtype}`).join(', ');
    return fail(errors.DBRST107(`None of these media types are available: ${asked}`, { details: `This route answers ${produces.join(', ')}` }), null);
  }
  const { media, accept } = negotiated;
  if (!who.ok) return fail(who.error, media);
  if (m.kind === 'broken') {
    ctx.app.log.error(`${m.where} (${m.mount.methods.join(',')} ${m.mount.path}) is unavailable: ${m.problem}`);
    return fail(errors.DBRST603('This route is not available', { hint: 'The server log names the problem with its configuration' }), media);
  }
  const run: MountedRequest = { params: match.params, media, base: { ...base, accept }, who: who.value, group: match.group };
  const result = m.kind === 'call' ? await runMountedCall(m, run, ctx) : await runMountedRelation(m, run, ctx);
  if (!result.ok) return fail(result.error, media);
  return { response: result.value, errorCode: null };
}

/**
 * `produces` against Accept: the chosen type (null when the mount lists none), and the Accept the call
 * or relation is then given: the client's own range when it names a type (so an engine type such as
 * vnd.pgrst.object+json stays available), then the chosen offer. Null when nothing fits (406).
 */
function negotiateMount(accept: ReadonlyArray<MediaRange>, produces: ReadonlyArray<string>): { media: string | null; accept: ReadonlyArray<MediaRange> } | null {
  if (produces.length === 0) return { media: null, accept };
  const chosen = negotiateProduces(accept, produces);
  if (chosen === null) return null;
  const offer = { ...parseAccept(chosen.offer)[0]!, q: 1 };
  const wildcard = chosen.range.type === '*' || chosen.range.subtype === '*';
  return { media: chosen.offer, accept: wildcard ? [offer] : [{ ...chosen.range, q: 1 }, offer] };
}

/** What a matched mount runs with. */
interface MountedRequest {
  /** Path parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The type chosen from `produces`, or null. */
  readonly media: string | null;
  /** The request's context, its Accept narrowed by `produces`. */
  readonly base: ApiRequest;
  readonly who: AuthResult;
  readonly group: ResolvedGroup;
}

async function runMountedCall(m: Extract<ResolvedMount, { kind: 'call' }>, r: MountedRequest, ctx: MountContext): Promise<Result<ResponseSpec>> {
  const { params, media, base, who, group } = r;
  const consumes = m.mount.consumes ?? m.group.consumes;
  const bodyOk = checkBodyType(m.bindings, consumes, base.contentType, base.body !== null);
  if (!bodyOk.ok) return bodyOk;
  const xmlOk = checkBodyXml(m.bindings, base.contentType, base.headers['content-type'], base.body);
  if (!xmlOk.ok) return xmlOk;
  const query = parseUrlEncoded(ctx.search);
  if (query === null) return err(errors.DBRST100('failed to parse the query string', { details: 'A percent-encoded name or value is not valid UTF-8' }));
  const values = bindArguments(m.bindings, { method: base.method, params, query, headers: base.headers, cookies: base.cookies, body: base.body, media });
  if (!values.ok) return values;
  const req: ApiRequest = {
    ...base,
    schema: m.routine.schema,
    target: { kind: 'routine', name: m.routine.name },
    // A void function answers no body, so there is no media type to refuse (204, 201 + Location, 302).
    ...(m.routine.returns.kind === 'void' ? { accept: ANY } : {}),
  };
  const planned = planBoundCall(m.routine, values.value, req, ctx.cache, ctx.app.config);
  if (!planned.ok) return planned;
  const res = await executeCall(planned.value, req, who, ctx.cache, groupApp(ctx.app, ctx.cache, group));
  return res.ok ? ok(withoutContentRange(res.value)) : res;
}

/** A mounted call's answer is the API's own: /rpc's `Content-Range` (`0-0/*` for one value) means nothing to its clients. */
function withoutContentRange(spec: ResponseSpec): ResponseSpec {
  if (spec.headers['Content-Range'] === undefined) return spec;
  const { 'Content-Range': _dropped, ...headers } = spec.headers;
  return { ...spec, headers };
}

/** A table or view below a mount path: PostgREST's grammar, with bound columns as `eq` filters. */
async function runMountedRelation(m: Extract<ResolvedMount, { kind: 'relation' }>, r: MountedRequest, ctx: MountContext): Promise<Result<ResponseSpec>> {
  const { params, media, base, who, group } = r;
  const query = parseUrlEncoded(ctx.search) ?? [];
  const filters: string[] = [];
  for (const b of m.bindings) {
    const s = b.source;
    let v: string | undefined;
    if (s.kind === 'path') v = params[s.name];
    else if (s.kind === 'query') v = query.find(([k]) => k === s.name)?.[1];
    else if (s.kind === 'header') v = base.headers[s.name.toLowerCase()];
    else if (s.kind === 'cookie') v = base.cookies[s.name];
    else if (s.kind === 'method') v = base.method;
    else if (s.kind === 'media') v = media ?? undefined;
    if (v === undefined) continue;
    filters.push(`${encodeURIComponent(b.name)}=eq.${encodeURIComponent(v)}`);
  }
  // Query parameters that fed a bound column are not also filters or unknown parameters.
  const fed = new Set(m.bindings.flatMap((b) => (b.source.kind === 'query' ? [b.source.name] : [])));
  const rest = ctx.search === '' ? [] : ctx.search.split('&').filter((p) => p !== '' && !fed.has(safeDecode(p.split('=')[0]!)));
  const url = `/${encodeURIComponent(m.relation.name)}?${[...filters, ...rest].join('&')}`;
  const parsed = parseRequest({ ...ctx.input, url }, { schemas: [m.relation.schema], routineArgNames: () => null });
  if (!parsed.ok) return parsed;
  const req: ApiRequest = {
    ...parsed.value,
    path: ctx.pathname,
    accept: base.accept,
  };
  const app = groupApp(ctx.app, ctx.cache, group);
  if (req.method === 'GET' || req.method === 'HEAD') return runRead(req, m.relation.name, who, ctx.cache, app);
  return withMountedLocation(await runMutate(req, m.relation.name, who, ctx.cache, app), ctx.pathname);
}

/**
 * An insert's `Location` names the row by PostgREST's URL (`/items?id=eq.5`); below a mount the
 * client knows the mounted path, which takes the same filters: `/api/shop/stock?id=eq.5`.
 */
function withMountedLocation(result: Result<ResponseSpec>, pathname: string): Result<ResponseSpec> {
  if (!result.ok) return result;
  const location = result.value.headers['Location'];
  const query = location?.indexOf('?') ?? -1;
  if (location === undefined || query < 0) return result;
  const mounted = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  return ok({ ...result.value, headers: { ...result.value.headers, Location: mounted + location.slice(query) } });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/**
 * An error as the group answers it: through its error handler when it has one (called with the
 * error as JSON, in the request's context, without the pre-request that may be what failed), else
 * the engine's own shape. Status, `Proxy-Status` and the error's own headers (Allow,
 * WWW-Authenticate) are kept whatever the handler does; HEAD gets no body.
 */
async function renderGroupError(
  e: ApiError,
  group: ResolvedGroup,
  req: ApiRequest,
  who: AuthResult | null,
  ctx: MountContext,
  media: string | null,
): Promise<ResponseSpec> {
  const standard = renderError(e, ctx.app.config.clientErrorVerbosity);
  const fallback: ResponseSpec = {
    status: standard.status,
    ...(standard.statusText ? { statusText: standard.statusText } : {}),
    headers: standard.headers,
    body: req.method === 'HEAD' ? null : standard.body,
  };
  const handler = group.errorHandler;
  if (!handler) return fallback;

  const produces = group.group.produces;
  const error = {
    status: e.status,
    reason: e.statusText ?? STATUS_CODES[e.status] ?? 'Error',
    code: e.code,
    message: e.message,
    details: e.detailsJson ?? e.details,
    hint: e.hint,
    // The media type the API answers in: the negotiated one, else its first (as for a 406).
    media: media ?? produces[0] ?? null,
  };
  const param = inputParams(handler)[0]!;
  const handlerReq: ApiRequest = { ...req, accept: ANY, preferences: parsePreferences([]), target: { kind: 'routine', name: handler.name }, schema: handler.schema };
  // A request that did not authenticate runs its handler as the anonymous role; with none
  // configured the engine's own shape answers: SET ROLE none would run it as the authenticator.
  const anonRole = ctx.app.config.dbAnonRole;
  if (who === null && (anonRole === null || anonRole === '')) return fallback;
  const identity: AuthResult = who ?? { role: anonRole!, claims: {}, authenticated: false };
  const planned = planBoundCall(handler, new Map([[param.name, JSON.stringify(error)]]), handlerReq, ctx.cache, ctx.app.config);
  if (!planned.ok) return fallback;
  const noPreRequest = Object.create(ctx.app, { config: { value: { ...ctx.app.config, dbPreRequest: null } } }) as AppState;
  const res = await executeCall({ ...planned.value, headersOnly: false }, handlerReq, identity, ctx.cache, noPreRequest);
  if (!res.ok) {
    ctx.app.log.error(`error handler ${handler.schema}.${handler.name} failed (${res.error.code}: ${res.error.message}); answered ${e.code} in the engine's shape`);
    return fallback;
  }
  const headers: Record<string, string | ReadonlyArray<string>> = {};
  for (const [k, v] of Object.entries(res.value.headers)) if (k.toLowerCase() !== 'content-range') headers[k] = v;
  for (const [k, v] of Object.entries(standard.headers)) {
    if (k.toLowerCase() === 'content-type') continue;
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
    headers[k] = v;
  }
  return {
    status: e.status,
    ...(e.statusText ? { statusText: e.statusText } : {}),
    headers,
    body: req.method === 'HEAD' ? null : res.value.body,
    // A set-returning handler's answer may be streamed (http/stream.ts): passed on, never dropped.
    ...(res.value.stream ? { stream: res.value.stream } : {}),
  };
}
