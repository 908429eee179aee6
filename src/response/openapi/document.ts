// The root document in the version asked for: one model (model.ts), two renderings. Pure; shared by
// GET / (http/root.ts) and `dbrest openapi` (cli/openapi.ts).
import type { SchemaCache } from '../../catalog/types.js';
import type { AppConfig } from '../../config/types.js';
import type { ResolvedGroup } from '../../mount/check.js';
import { buildApiModel, type ApiScope } from './model.js';
import type { OpenApiVersion } from './negotiate.js';
import { renderOpenApi31 } from './openapi31.js';
import { renderSwagger } from './swagger.js';

export type DocumentConfig = Pick<AppConfig, 'openapiServerProxyUri' | 'openapiSecurityActive' | 'serverHost' | 'serverPort'>;

export function buildOpenApiDocument(
  cache: SchemaCache,
  scope: ApiScope,
  cfg: DocumentConfig,
  version: OpenApiVersion,
  dbrestVersion: string,
  /** Route mounts to describe (the default schema's document); none otherwise. */
  mounts: ReadonlyArray<ResolvedGroup> = [],
): Record<string, unknown> {
  const model = buildApiModel(cache, scope, {
    proxyUri: cfg.openapiServerProxyUri,
    serverHost: cfg.serverHost,
    serverPort: cfg.serverPort,
    version: dbrestVersion,
    securityActive: cfg.openapiSecurityActive,
  }, mounts);
  return version === '3.1' ? renderOpenApi31(model) : renderSwagger(model);
}
