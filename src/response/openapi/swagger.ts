// The API root document: PostgREST's Swagger 2.0 shape, built from the schema cache. Pure.
// Partial for now: paths and definitions of relations and routines; the read/write issues add
// parameters and responses per operation.
import type { Relation, Routine, SchemaCache } from '../../catalog/types.js';

export interface OpenApiOptions {
  readonly schema: string;
  readonly proxyUri: string | null;
  readonly serverHost: string;
  readonly serverPort: number;
  readonly version: string;
}

const jsonType = (t: string): { type: string; format?: string } => {
  const base = t.replace(/\(.*\)/, '').replace(/\[\]$/, '');
  if (t.endsWith('[]')) return { type: 'array' };
  if (/^(smallint|integer|bigint)$/.test(base)) return { type: 'integer', format: base };
  if (/^(real|double precision|numeric)$/.test(base)) return { type: 'number', format: base };
  if (base === 'boolean') return { type: 'boolean', format: 'boolean' };
  if (base === 'json' || base === 'jsonb') return { type: 'object' } as { type: string };
  return { type: 'string', format: base };
};

function definition(rel: Relation) {
  const properties: Record<string, unknown> = {};
  for (const c of rel.columns) {
    properties[c.name] = {
      ...jsonType(c.type),
      ...(c.description ? { description: c.description } : {}),
      ...(c.default !== null ? { default: c.default } : {}),
      ...(c.enumValues.length > 0 ? { enum: c.enumValues } : {}),
      ...(c.maxLength !== null ? { maxLength: c.maxLength } : {}),
    };
  }
  const required = rel.columns.filter((c) => !c.nullable && c.default === null && !c.generated).map((c) => c.name);
  return { type: 'object', ...(required.length ? { required } : {}), properties, ...(rel.description ? { description: rel.description } : {}) };
}

function relationPath(rel: Relation) {
  const ok = { '200': { description: 'OK' } };
  const ops: Record<string, unknown> = { get: { tags: [rel.name], ...(rel.description ? { summary: rel.description } : {}), responses: ok } };
  if (rel.insertable) ops['post'] = { tags: [rel.name], responses: { '201': { description: 'Created' } } };
  if (rel.updatable) ops['patch'] = { tags: [rel.name], responses: { '204': { description: 'No Content' } } };
  if (rel.deletable) ops['delete'] = { tags: [rel.name], responses: { '204': { description: 'No Content' } } };
  return ops;
}

function routinePath(r: Routine) {
  const op = { tags: ['(rpc) ' + r.name], ...(r.description ? { summary: r.description } : {}), responses: { '200': { description: 'OK' } } };
  return r.volatility === 'volatile' ? { post: op } : { get: op, post: op };
}

export function buildSwagger(cache: SchemaCache, opts: OpenApiOptions): Record<string, unknown> {
  const relations = cache.relations.filter((r) => r.schema === opts.schema);
  const routines = cache.routines.filter((r) => r.schema === opts.schema);
  const paths: Record<string, unknown> = { '/': { get: { tags: ['Introspection'], summary: 'OpenAPI description (this document)', produces: ['application/openapi+json', 'application/json'], responses: { '200': { description: 'OK' } } } } };
  for (const rel of relations) paths['/' + rel.name] = relationPath(rel);
  for (const r of routines) paths['/rpc/' + r.name] = routinePath(r);
  const definitions: Record<string, unknown> = {};
  for (const rel of relations) definitions[rel.name] = definition(rel);

  let host = `${opts.serverHost}:${opts.serverPort}`;
  let basePath = '/';
  let schemes = ['http'];
  if (opts.proxyUri) {
    const u = new URL(opts.proxyUri);
    host = u.host;
    basePath = u.pathname || '/';
    schemes = [u.protocol.replace(':', '')];
  }
  return {
    swagger: '2.0',
    info: { description: `dbrest API for schema ${opts.schema}`, title: 'dbrest API', version: opts.version },
    host,
    basePath,
    schemes,
    consumes: ['application/json', 'application/vnd.pgrst.object+json;nulls=stripped', 'application/vnd.pgrst.object+json', 'text/csv'],
    produces: ['application/json', 'application/vnd.pgrst.object+json;nulls=stripped', 'application/vnd.pgrst.object+json', 'text/csv'],
    paths,
    definitions,
  };
}
