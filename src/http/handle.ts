// The recipe of a request: authenticate → parse → dispatch to an action (plan → build → execute →
// respond). Every failure is an ApiError value turned into a response here, in one place.
import { performance } from 'node:perf_hooks';
import { findCallableRoutines } from '../catalog/lookup.js';
import { errors } from '../errors/catalog.js';
import { renderError } from '../errors/render.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import { inputParams } from '../plan/call-plan.js';
import { headerValue, type HttpInput } from '../request/http-input.js';
import { parseRequest } from '../request/parse-request.js';
import type { Preferences } from '../request/types.js';
import type { ResponseSpec } from '../response/types.js';
import type { AppState } from './app.js';
import { runCall } from './call.js';
import { bodyTooLarge } from './body-limit.js';
import { isDocsPath, serveDocs } from './docs.js';
import { mountTable, runMountMatch } from './mount.js';
import { runMutate } from './mutate.js';
import { runOptions } from './options.js';
import { runRead } from './read.js';
import { renderRoot } from './root.js';
import { UNMATCHED_ROUTE } from '../observe/metrics.js';
import { routeLabel } from '../observe/route-label.js';
import { acquiredMs, tracingOn } from '../observe/spans.js';

export interface Handled {
  readonly response: ResponseSpec;
  /** Code of the error answered, for the access log. */
  readonly errorCode: string | null;
  /** Route template for metrics and the access log (observe/route-label.ts); unset: unmatched. */
  readonly route?: string;
  /** The role the request ran as, when it was authenticated. */
  readonly role?: string;
  /** Milliseconds its transaction waited for a connection, for the `acquire` span (set while tracing). */
  readonly acquireMs?: number;
}

export function errorResponse(e: ApiError, app: AppState, method: string): Handled {
  const r = renderError(e, app.config.clientErrorVerbosity);
  return {
    response: { status: r.status, ...(r.statusText ? { statusText: r.statusText } : {}), headers: r.headers, body: method === 'HEAD' ? null : r.body },
    errorCode: e.code,
  };
}

export async function handleRequest(input: HttpInput, app: AppState): Promise<Handled> {
  let route: string | undefined;
  let role: string | undefined;
  const fail = (e: ApiError): Handled => ({ ...errorResponse(e, app, input.method), route, role });
  // The API explorer's static files need neither the database nor a token.
  const docsPath = app.config.serverDocsPath;
  if (docsPath) {
    const q = input.url.indexOf('?');
    if (isDocsPath(docsPath, q === -1 ? input.url : input.url.slice(0, q))) {
      route = docsPath;
      const served = serveDocs(docsPath, input.method.toUpperCase(), input.url, headerValue(input, 'if-none-match'));
      return served.ok ? { response: served.value, errorCode: null, route } : fail(served.error);
    }
  }
  const cache = app.cache();
  if (cache === null) return fail(errors.DBRST002('Could not query the database for the schema cache. Retrying.'));

  const t0 = performance.now();
  const authorization = headerValue(input, 'authorization');
  // Anonymous and cached tokens are answered at once: no promise to wait on (auth/jwt.ts settled).
  const auth = app.auth.settled?.(authorization) ?? (await app.auth.authenticate(authorization));
  if (auth.ok) role = auth.value.role;

  // Route mounts (engine spec §5) first: a path they do not claim is PostgREST's.
  const mounts = mountTable(app, cache);
  if (mounts !== null) {
    const q = input.url.indexOf('?');
    const pathname = q === -1 ? input.url : input.url.slice(0, q);
    const match = mounts.match(input.method.toUpperCase(), pathname);
    if (match !== null) {
      const done = await runMountMatch(match, auth, { input, pathname, search: q === -1 ? '' : input.url.slice(q + 1), cache, app });
      return { ...done, route: match.kind === 'mount' ? match.mount.mount.path : UNMATCHED_ROUTE, role };
    }
  }

  if (input.bodyTooLarge) return fail(bodyTooLarge(input.bodyTooLarge));
  if (!auth.ok) return fail(auth.error);
  const t1 = performance.now();

  const parsed = parseRequest(input, {
    schemas: app.config.dbSchemas,
    routineArgNames: (schema, name) => {
      const routines = findCallableRoutines(cache, schema, name);
      // Only input parameters: `GET /rpc/f?out_col=eq.x` filters on an output column.
      return routines.length === 0 ? null : new Set(routines.flatMap((r) => inputParams(r).map((p) => p.name)));
    },
  });
  if (!parsed.ok) return fail(parsed.error);
  const prefs = checkPreferences(parsed.value.preferences);
  if (!prefs.ok) return fail(prefs.error);
  const req = prefs.value === parsed.value.preferences ? parsed.value : { ...parsed.value, preferences: prefs.value };
  route = routeLabel(req, cache);
  const t2 = performance.now();

  let result: Result<ResponseSpec>;
  if (req.method === 'OPTIONS') result = runOptions(req, cache, app);
  else {
    switch (req.target.kind) {
      case 'root':
        result = await renderRoot(req, cache, app, auth.value);
        break;
      case 'relation':
        result = req.method === 'GET' || req.method === 'HEAD'
          ? await runRead(req, req.target.name, auth.value, cache, app)
          : await runMutate(req, req.target.name, auth.value, cache, app);
        break;
      case 'routine':
        result = await runCall(req, req.target.name, auth.value, cache, app);
        break;
    }
  }
  if (!result.ok) return fail(result.error);
  // Server-Timing and spans only: without them, the response goes out as the action built it (no copies).
  if (!app.config.serverTimingEnabled && !tracingOn()) return { response: result.value, errorCode: null, route, role };
  const timings = { jwt: t1 - t0, parse: t2 - t1, ...result.value.timings };
  const acquireMs = acquiredMs(req);
  return { response: { ...result.value, timings }, errorCode: null, route, role, ...(acquireMs === undefined ? {} : { acquireMs }) };
}

/**
 * Preferences we cannot honour: with `handling=strict` a 400 DBRST122 naming them, otherwise
 * ignored (PostgREST). `timezone=` is not judged here: PostgreSQL sets it with the request's
 * settings and refuses a zone it does not know (400 22023 whatever the handling, as PostgREST v16),
 * which also lets numeric offsets (`+05:30`, `-4`) through.
 */
function checkPreferences(prefs: Preferences): Result<Preferences> {
  if (prefs.handling === 'strict' && prefs.invalid.length > 0) {
    return err(errors.DBRST122('Invalid preferences given with handling=strict', { details: `Invalid preferences: ${prefs.invalid.join(', ')}` }));
  }
  return ok(prefs);
}

