// GET / and HEAD /: the OpenAPI document of the request's schema (PostgREST's root path), or the
// result of db-root-spec's function when one is configured.
//
//   negotiate (Swagger 2.0 or OpenAPI 3.1, else 406) → one round trip in the request's transaction,
//   as the request's role: the schema's comment and, with openapi-mode = follow-privileges, which
//   relations and routines (and, in the default schema's document, route mounts' targets) the role
//   may access → model → render.
// openapi-mode = disabled answers 404 DBRST126, as PostgREST does.
import { performance } from 'node:perf_hooks';
import type { AuthResult } from '../auth/jwt.js';
import type { SchemaCache } from '../catalog/types.js';
import { runTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { ApiRequest } from '../request/api-request.js';
import type { MediaRange } from '../request/types.js';
import { accessQuestion, buildAccessStatement, readAccessRow } from '../response/openapi/access.js';
import { buildOpenApiDocument } from '../response/openapi/document.js';
import { negotiateOpenApi } from '../response/openapi/negotiate.js';
import type { ResponseSpec } from '../response/types.js';
import { contextSettings } from '../sql/tx-settings.js';
import { VERSION } from '../version.js';
import type { AppState } from './app.js';
import { runCall } from './call.js';
import { mountTable } from './mount.js';
import { apiErrorFromTx } from './db-errors.js';
import { preRequestStatement, txEnd } from './tx.js';

/**
 * `who` is the request's authentication result; when the caller does not pass it, the request's
 * Authorization header is authenticated again here (the JWT cache makes that a lookup).
 */
export async function renderRoot(req: ApiRequest, cache: SchemaCache, app: AppState, who?: AuthResult): Promise<Result<ResponseSpec>> {
  const cfg = app.config;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return err(errors.DBRST117(`Unsupported HTTP method: ${req.method}`));
  }
  if (who === undefined) {
    const auth = await app.auth.authenticate(req.headers['authorization']);
    if (!auth.ok) return auth;
    return renderRoot(req, cache, app, auth.value);
  }
  if (cfg.dbRootSpec) return runRootSpec(req, cfg.dbRootSpec, who, cache, app);
  if (cfg.openapiMode === 'disabled') return err(errors.DBRST126('Root endpoint metadata is disabled'));
  const t0 = performance.now();
  const media = negotiateOpenApi(req.accept, cfg.openapiVersion, req.headers['accept']);
  if (!media.ok) return media;

  // Route mounts are URLs of their own, whatever the schema: the default schema's document has them.
  const mounts = req.schema === cfg.dbSchemas[0] ? (mountTable(app, cache)?.groups ?? []) : [];
  const question = accessQuestion(cache, req.schema, cfg.openapiMode === 'follow-privileges', mounts);
  const t1 = performance.now();
  const outcome = await runTransaction(app.pool, {
    readOnly: true,
    settings: contextSettings(req, who, cfg, app.roleSettings()),
    preRequest: preRequestStatement(cfg),
    statements: [buildAccessStatement(question)],
    end: txEnd(cfg, req.preferences),
    prepared: cfg.dbPreparedStatements,
  });
  if (!outcome.ok) return err(apiErrorFromTx(outcome, who.authenticated, app));
  const t2 = performance.now();

  const scope = readAccessRow(question, outcome.results[0]?.rows[0] ?? []);
  const doc = buildOpenApiDocument(cache, scope, cfg, media.value.version, VERSION, mounts);
  const headers: Record<string, string> = { 'Content-Type': media.value.contentType };
  if (cfg.dbSchemas.length > 1) headers['Content-Profile'] = req.schema;
  return ok({
    status: 200,
    headers,
    body: req.method === 'HEAD' ? null : JSON.stringify(doc),
    timings: { plan: t1 - t0, transaction: t2 - t1, response: performance.now() - t2 },
  });
}

const isOpenApi = (m: MediaRange): boolean => m.type === 'application' && m.subtype === 'openapi+json';
const JSON_RANGE: MediaRange = { type: 'application', subtype: 'json', params: {}, q: 1 };

/**
 * db-root-spec: the root path calls this function of the request's schema, as `GET /rpc/<name>`
 * would (PostgREST). A client asking for application/openapi+json gets the function's JSON result
 * under that media type.
 */
async function runRootSpec(req: ApiRequest, name: string, who: AuthResult, cache: SchemaCache, app: AppState): Promise<Result<ResponseSpec>> {
  const dot = name.indexOf('.');
  const routine = dot !== -1 && name.slice(0, dot) === req.schema ? name.slice(dot + 1) : name;
  const wantsOpenApi = req.accept.some(isOpenApi);
  const callReq: ApiRequest = wantsOpenApi ? { ...req, accept: req.accept.map((m) => (isOpenApi(m) ? { ...JSON_RANGE, q: m.q } : m)) } : req;
  const result = await runCall(callReq, routine, who, cache, app);
  if (!result.ok || !wantsOpenApi) return result;
  const contentType = result.value.headers['Content-Type'];
  if (typeof contentType !== 'string' || !contentType.startsWith('application/json')) return result;
  return ok({ ...result.value, headers: { ...result.value.headers, 'Content-Type': 'application/openapi+json; charset=utf-8' } });
}
