// `dbrest openapi`: print the API root document for the default schema, as GET / answers it.
import pg from 'pg';
import { loadSchemaCache } from '../catalog/load.js';
import type { AppConfig } from '../config/types.js';
import { buildSwagger } from '../response/openapi/swagger.js';
import { VERSION } from '../version.js';

export async function runOpenapi(config: AppConfig): Promise<number> {
  if (!config.dbUri) {
    process.stderr.write('✖ db-uri: `dbrest openapi` needs a database (set db-uri)\n');
    return 1;
  }
  const client = new pg.Client({ connectionString: config.dbUri });
  await client.connect();
  try {
    const { cache } = await loadSchemaCache(client, config.dbSchemas);
    const doc = buildSwagger(cache, {
      schema: config.dbSchemas[0]!,
      proxyUri: config.openapiServerProxyUri,
      serverHost: config.serverHost,
      serverPort: config.serverPort,
      version: VERSION,
    });
    process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
    return 0;
  } finally {
    await client.end();
  }
}
