// Golden cases for writes and calls: a request (method, URL, headers, body) planned against the
// write.sql schema cache and compiled to the ONE statement it runs. Shared by the golden test.
import pg from 'pg';
import { loadSchemaCache } from '../../../src/catalog/load.js';
import { findRoutines } from '../../../src/catalog/lookup.js';
import type { SchemaCache } from '../../../src/catalog/types.js';
import { planCall, inputParams } from '../../../src/plan/call-plan.js';
import { planMutate } from '../../../src/plan/mutate-plan.js';
import type { ApiRequest } from '../../../src/request/api-request.js';
import { parseRequest } from '../../../src/request/parse-request.js';
import { buildCallStatement, type CallBodyShape } from '../../../src/sql/call.js';
import { compile, type Statement } from '../../../src/sql/fragment.js';
import { buildMutateStatement } from '../../../src/sql/mutate.js';
import { createTestDatabase, fixture } from '../../helpers/db.js';

export async function writeCache(): Promise<{ cache: SchemaCache; drop(): Promise<void> }> {
  const db = await createTestDatabase([fixture('sql', 'write.sql')]);
  const client = new pg.Client({ connectionString: db.uri });
  await client.connect();
  try {
    const { cache } = await loadSchemaCache(client, ['public']);
    return { cache, drop: () => db.drop() };
  } finally {
    await client.end();
  }
}

export function request(cache: SchemaCache, method: string, url: string, headers: Record<string, string> = {}, body: unknown = undefined): ApiRequest {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) h[k.toLowerCase()] = v;
  let buf: Buffer | null = null;
  if (body !== undefined) {
    buf = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    h['content-type'] ??= 'application/json';
  }
  const r = parseRequest(
    { method, url, headers: h, body: buf },
    {
      schemas: ['public'],
      routineArgNames: (schema, name) => {
        const rs = findRoutines(cache, schema, name);
        return rs.length === 0 ? null : new Set(rs.flatMap((x) => inputParams(x).map((p) => p.name)));
      },
    },
  );
  if (!r.ok) throw new Error(`bad request ${method} ${url}: ${JSON.stringify(r.error)}`);
  return r.value;
}

const cfg = { dbMaxRows: null, dbAggregatesEnabled: false };

export function mutateStatement(cache: SchemaCache, req: ApiRequest, singular = false): Statement {
  if (req.target.kind !== 'relation') throw new Error('not a relation');
  const plan = planMutate(req, req.target.name, cache, cfg);
  if (!plan.ok) throw new Error(JSON.stringify(plan.error));
  return compile(buildMutateStatement(plan.value, { singular }));
}

export function callStatement(cache: SchemaCache, req: ApiRequest, body: CallBodyShape = 'json', count = false): Statement {
  if (req.target.kind !== 'routine') throw new Error('not a routine');
  const plan = planCall(req, req.target.name, cache, cfg);
  if (!plan.ok) throw new Error(JSON.stringify(plan.error));
  return compile(buildCallStatement(plan.value, { body, count }));
}
