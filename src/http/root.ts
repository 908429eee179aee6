// GET / : the OpenAPI document of the exposed schema (DBRST126 when openapi-mode is disabled).
import type { SchemaCache } from '../catalog/types.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { ApiRequest } from '../request/api-request.js';
import { buildSwagger } from '../response/openapi/swagger.js';
import type { ResponseSpec } from '../response/types.js';
import type { AppState } from './app.js';
import { VERSION } from '../version.js';

export function renderRoot(req: ApiRequest, cache: SchemaCache, app: AppState): Result<ResponseSpec> {
  const cfg = app.config;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return err(errors.DBRST117(`Unsupported HTTP method: ${req.method}`));
  }
  if (cfg.openapiMode === 'disabled') return err(errors.DBRST126('Root endpoint metadata is disabled'));
  const doc = buildSwagger(cache, {
    schema: req.schema,
    proxyUri: cfg.openapiServerProxyUri,
    serverHost: cfg.serverHost,
    serverPort: cfg.serverPort,
    version: VERSION,
  });
  return ok({
    status: 200,
    headers: { 'Content-Type': 'application/openapi+json; charset=utf-8' },
    body: req.method === 'HEAD' ? null : JSON.stringify(doc),
  });
}
