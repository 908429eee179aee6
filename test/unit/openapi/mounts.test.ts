// Route mounts in the API model without a database: hand-written schema cache and route groups →
// resolveMounts → model → Swagger 2.0 and OpenAPI 3.1. Paths and operations per mount, parameters
// by binding source and type, bodies and media types, relation mounts, which mounts the scope lets
// through, table paths the mounts answer instead, and the access statement's mount part.
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import type { Column, Relation, Routine, RoutineParam, SchemaCache } from '../../../src/catalog/types.js';
import type { RouteGroup, RouteMount } from '../../../src/config/types.js';
import { resolveMounts } from '../../../src/mount/check.js';
import { parseTemplate } from '../../../src/mount/template.js';
import { accessQuestion, buildAccessStatement, readAccessRow } from '../../../src/response/openapi/access.js';
import { buildApiModel, defaultBodyMedia, openApiPath, TAIL_DESCRIPTION, type ApiModelOptions, type ApiScope } from '../../../src/response/openapi/model.js';
import { renderOpenApi31 } from '../../../src/response/openapi/openapi31.js';
import { renderSwagger } from '../../../src/response/openapi/swagger.js';

const col = (name: string, type: string, extra: Partial<Column> = {}): Column => ({
  name, type, baseType: type, nullable: false, default: null, maxLength: null, description: null, enumValues: [], position: 1, generated: false, ...extra,
});
const rel = (schema: string, name: string, columns: Column[], extra: Partial<Relation> = {}): Relation => ({
  schema, name, kind: 'table', description: null, columns, primaryKey: ['id'], insertable: true, updatable: true, deletable: true, ...extra,
});
const p = (name: string, type: string, hasDefault = false, mode: RoutineParam['mode'] = 'in'): RoutineParam => ({ name, type, mode, hasDefault });
const fn = (schema: string, name: string, params: RoutineParam[], extra: Partial<Routine> = {}): Routine => ({
  schema, name, description: null, params, returns: { kind: 'scalar', type: 'json', setOf: false }, volatility: 'stable', isProcedure: false,
  signature: `${schema}.${name}(${params.map((x) => x.type).join(', ')})`, ...extra,
});

const cache: SchemaCache = {
  version: 1,
  schemas: ['public', 'app'],
  relations: [
    rel('public', 'notes', [col('id', 'integer'), col('body', 'text')]),
    rel('app', 'notes', [col('id', 'integer'), col('owner', 'text'), col('body', 'text')], { description: 'Notes of app' }),
    rel('app', 'report', [col('id', 'integer')], { kind: 'view', insertable: false, updatable: false, deletable: false }),
  ],
  relationships: [],
  routines: [
    fn('app', 'search', [p('term', 'text'), p('tags', 'text[]', true), p('lang', 'text', true), p('token', 'text'), p('sid', 'text', true), p('filters', 'jsonb'), p('verb', 'text', true), p('media', 'text', true)], {
      description: 'Search\n\nFull text, in any language',
    }),
    fn('app', 'put_doc', [p('id', 'uuid'), p('doc', 'xml')], { returns: { kind: 'void' }, volatility: 'volatile' }),
    fn('app', 'upload', [p('price', 'numeric'), p('data', 'bytea')], { volatility: 'volatile' }),
    fn('app', 'take', [p('payload', 'jsonb'), p('n', 'integer', true)], { volatility: 'volatile' }),
    fn('app', 'file', [p('rest', 'text')]),
    fn('app', 'variadic_sum', [p('xs', 'integer[]', false, 'variadic')]),
    fn('app', 'mood_of', [p('m', 'app.mood')]),
  ],
  // app.notes has an XML aggregate: its relation mounts can answer the group's XML; app.report cannot.
  mediaHandlers: [{ mediaType: 'application/xml', binary: false, function: { schema: 'app', name: 'notes_xml' }, relation: { schema: 'app', name: 'notes' }, isAggregate: true }],
  serverVersion: 180000,
};

const mount = (methods: string[], path: string, target: RouteMount['target'], args: Record<string, string> = {}, extra: Partial<RouteMount> = {}): RouteMount =>
  ({ methods, path, target, args, produces: null, consumes: null, ...extra });
const call = (name: string) => ({ kind: 'call' as const, name });
const relation = (name: string) => ({ kind: 'relation' as const, name });

const group = (prefix: string, routes: RouteMount[], extra: Partial<RouteGroup> = {}): RouteGroup => ({
  prefix, schema: 'app', errorHandler: null, preRequest: null, produces: [], consumes: [], routes, ...extra,
});

const GROUPS: RouteGroup[] = [
  group('', [mount(['GET'], '/notes', call('app.file'), { rest: 'query.x' })]),
  group('/v2', [
    mount(['GET', 'HEAD', 'POST'], '/v2/search/:term', call('search'), {
      term: 'path.term', tags: 'query.tag', lang: 'header.Accept-Language', token: 'header.X-Token', sid: 'cookie.sid', filters: 'query', verb: 'method', media: 'media',
    }),
    mount(['PUT'], '/v2/docs/:id(uuid)', call('put_doc'), { id: 'path.id', doc: 'body' }),
    mount(['HEAD'], '/v2/docs/:id(uuid)/head', call('put_doc'), { id: 'path.id', doc: 'body' }, { consumes: ['application/vnd.doc+xml'] }),
    mount(['POST'], '/v2/upload/:price(number)', call('upload'), { price: 'path.price', data: 'body' }),
    mount(['POST'], '/v2/take', call('take'), { payload: 'body', n: 'query.n' }, { produces: ['text/csv'] }),
    mount(['GET'], '/v2/files/*rest', call('file'), { rest: 'path.rest' }),
    mount(['GET'], '/v2/sum', call('variadic_sum'), { xs: 'query.x' }),
    mount(['GET', 'POST', 'PATCH', 'PUT', 'DELETE'], '/v2/owners/:owner/notes', relation('notes'), { owner: 'path.owner' }),
    mount(['GET', 'DELETE'], '/v2/reports/:id(int)', relation('report'), { id: 'path.id' }),
    mount(['GET'], '/v2/broken', call('nope')),
  ], { produces: ['application/json', 'application/xml'] }),
  group('/public', [mount(['GET'], '/public/notes', relation('public.notes'))], { schema: 'public' }),
];

const resolved = resolveMounts(GROUPS, cache, ['public', 'app']);
const OPTS: ApiModelOptions = { proxyUri: null, serverHost: 'localhost', serverPort: 3000, version: '0.0.0', securityActive: false };
const ALL: ApiScope = { schema: 'public', relations: null, routines: null, schemaDescription: null };

async function validate(doc: Record<string, unknown>) {
  const v = new Validator();
  const res = await v.validate(doc);
  return { valid: res.valid, version: v.version, errors: res.errors };
}

t.test('fixture: one broken mount (nope), the others resolve', async (t) => {
  t.strictSame(resolved.problems.map((x) => x.what), ['GET /v2/broken']);
});

t.test('without mounts the model is unchanged', async (t) => {
  t.strictSame(buildApiModel(cache, ALL, OPTS, []), buildApiModel(cache, ALL, OPTS));
  t.equal(JSON.stringify(renderSwagger(buildApiModel(cache, ALL, OPTS, []))), JSON.stringify(renderSwagger(buildApiModel(cache, ALL, OPTS))));
});

t.test('template → OpenAPI path', async (t) => {
  const path = (s: string) => {
    const r = parseTemplate(s);
    if (!r.ok) throw new Error(r.message);
    return openApiPath(r.value.segments);
  };
  t.equal(path('/api/shop/items/:id(int)'), '/api/shop/items/{id}');
  t.equal(path('/files/*rest/'), '/files/{rest}');
  t.equal(path('/'), '/');
  t.strictSame(['json', 'jsonb', 'xml', 'text', 'bytea', 'integer'].map(defaultBodyMedia),
    ['application/json', 'application/json', 'application/xml', '*/*', 'application/octet-stream', '*/*']);
});

const model = buildApiModel(cache, ALL, OPTS, resolved.groups);
const sw = renderSwagger(model) as any;
const oa = renderOpenApi31(model) as any;

t.test('paths: each resolved mount; the broken one left out; table paths the mounts answer left out', async (t) => {
  t.strictSame(Object.keys(sw.paths), [
    '/', '/notes', '/v2/search/{term}', '/v2/docs/{id}', '/v2/docs/{id}/head', '/v2/upload/{price}', '/v2/take', '/v2/files/{rest}',
    '/v2/sum', '/v2/owners/{owner}/notes', '/v2/reports/{id}', '/public/notes',
  ]);
  t.strictSame(Object.keys(sw.paths['/notes']), ['get'], "/notes is the mount's (it answers GET /notes), not the table's");
  t.strictSame(sw.paths['/notes'].get.tags, ['/']);
  t.strictSame(Object.keys(sw.paths['/v2/search/{term}']), ['get', 'post'], 'HEAD goes with GET');
  t.strictSame(Object.keys(sw.paths['/v2/docs/{id}/head']), ['head'], 'HEAD alone is listed');
  t.strictSame(Object.keys(sw.paths['/v2/owners/{owner}/notes']), ['get', 'post', 'patch', 'delete'], 'no PUT, as for tables');
  t.strictSame(Object.keys(sw.paths['/v2/reports/{id}']), ['get'], 'a read-only view: GET only');
});

t.test('call mounts in Swagger 2.0', async (t) => {
  t.strictSame(sw.paths['/v2/search/{term}'].get, {
    tags: ['/v2'],
    summary: 'Search',
    description: 'Full text, in any language',
    parameters: [
      { name: 'term', in: 'path', required: true, type: 'string' },
      { name: 'tag', in: 'query', required: false, type: 'array', items: { type: 'string', format: 'text' }, collectionFormat: 'multi' },
      { name: 'Accept-Language', in: 'header', required: false, type: 'string', format: 'text' },
      { name: 'X-Token', in: 'header', required: true, type: 'string', format: 'text' },
    ],
    // The group produces JSON and XML, but a function returning json can only answer JSON (XML is a 406).
    produces: ['application/json'],
    responses: { 200: { description: 'OK' }, default: { description: 'Error' } },
  });
  t.strictSame(sw.paths['/v2/docs/{id}'].put, {
    tags: ['/v2'],
    parameters: [
      { name: 'id', in: 'path', required: true, type: 'string', format: 'uuid' },
      { name: 'doc', required: true, in: 'body', schema: { type: 'string', format: 'xml' } },
    ],
    consumes: ['application/xml'],
    produces: ['application/json', 'application/xml'],
    responses: { 204: { description: 'No Content' }, default: { description: 'Error' } },
  });
  t.strictSame(sw.paths['/v2/docs/{id}/head'].head.consumes, ['application/vnd.doc+xml'], "the mount's consumes");
  t.strictSame(sw.paths['/v2/upload/{price}'].post.parameters, [
    { name: 'price', in: 'path', required: true, type: 'number' },
    { name: 'data', required: true, in: 'body', schema: { type: 'string', format: 'binary' } },
  ]);
  t.strictSame(sw.paths['/v2/upload/{price}'].post.consumes, ['application/octet-stream']);
  t.strictSame(sw.paths['/v2/take'].post.parameters, [
    { name: 'payload', required: true, in: 'body', schema: {} },
    { name: 'n', in: 'query', required: false, type: 'integer', format: 'integer' },
  ]);
  t.strictSame(sw.paths['/v2/take'].post.produces, ['text/csv'], "the mount's produces");
  t.strictSame(sw.paths['/v2/files/{rest}'].get.parameters, [{ name: 'rest', in: 'path', description: TAIL_DESCRIPTION, required: true, type: 'string' }]);
  t.strictSame(sw.paths['/v2/sum'].get.parameters, [
    { name: 'x', in: 'query', required: true, type: 'array', items: { type: 'integer', format: 'integer' }, collectionFormat: 'multi' },
  ], 'variadic: repeated');
  t.strictSame(sw.paths['/notes'].get.produces, ['application/json']);
});

t.test('call mounts in OpenAPI 3.1: cookies, the whole query, request bodies, content', async (t) => {
  const get = oa.paths['/v2/search/{term}'].get;
  t.strictSame(get.parameters.map((x: any) => `${x.in}:${x.name}`), [
    'path:term', 'query:tag', 'header:Accept-Language', 'header:X-Token', 'cookie:sid', 'query:filters',
  ]);
  t.strictSame(get.parameters[1], { name: 'tag', in: 'query', required: false, schema: { type: 'array', items: { type: 'string', format: 'text' } }, style: 'form', explode: true });
  t.strictSame(get.parameters[4], { name: 'sid', in: 'cookie', required: false, schema: { type: 'string', format: 'text' } });
  t.equal(get.parameters[5].schema.type, 'object');
  t.strictSame(get.responses, { 200: { description: 'OK', content: { 'application/json': {} } }, default: { description: 'Error' } }, 'XML left out: the function answers JSON only');
  t.strictSame(oa.paths['/v2/docs/{id}'].put.requestBody, { required: true, content: { 'application/xml': { schema: { type: 'string', format: 'xml' } } } });
  t.strictSame(oa.paths['/v2/docs/{id}'].put.responses, { 204: { description: 'No Content' }, default: { description: 'Error' } });
  t.strictSame(oa.paths['/v2/take'].post.requestBody, { required: true, content: { 'application/json': { schema: {} } } });
  t.strictSame(oa.paths['/v2/take'].post.responses[200], { description: 'OK', content: { 'text/csv': {} } });
});

t.test('relation mounts: table operations, bound columns as parameters, definitions by schema', async (t) => {
  const get = sw.paths['/v2/owners/{owner}/notes'].get;
  t.strictSame(get.parameters.slice(0, 3), [
    { name: 'owner', in: 'path', required: true, type: 'string' },
    { $ref: '#/parameters/rowFilter.app.notes.id' },
    { $ref: '#/parameters/rowFilter.app.notes.body' },
  ]);
  t.equal(get.summary, 'Notes of app');
  t.strictSame(get.tags, ['/v2']);
  t.strictSame(get.produces, ['application/json', 'application/xml']);
  t.strictSame(get.responses[200].schema, { items: { $ref: '#/definitions/app.notes' }, type: 'array' });
  t.strictSame(sw.paths['/v2/owners/{owner}/notes'].post.parameters, [
    { name: 'owner', in: 'path', required: true, type: 'string' },
    { $ref: '#/parameters/body.app.notes' }, { $ref: '#/parameters/select' }, { $ref: '#/parameters/preferPost' },
  ]);
  t.strictSame(sw.paths['/v2/reports/{id}'].get.parameters[0], { name: 'id', in: 'path', required: true, type: 'integer' });
  t.strictSame(sw.paths['/v2/reports/{id}'].get.produces, ['application/json'], 'app.report has no XML handler: the group\'s XML (a 406) is not listed');
  t.strictSame(Object.keys(sw.definitions), ['notes', 'app.notes', 'app.report'], "the document schema's notes and app's, apart");
  t.ok(sw.parameters['rowFilter.app.notes.owner']);
  t.strictSame(sw.paths['/public/notes'].get.responses[200].schema, { items: { $ref: '#/definitions/notes' }, type: 'array' }, "a relation of the document's schema: its own definition");
  t.notOk(sw.definitions['public.notes']);
  const get31 = oa.paths['/v2/owners/{owner}/notes'].get;
  t.strictSame(get31.responses[200].content, {
    'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/app.notes' } } },
    'application/xml': {},
  }, 'XML: no schema (not the rows as JSON)');
});

t.test('both documents with mounts pass the validator', async (t) => {
  const v20 = await validate(sw);
  t.equal(v20.version, '2.0');
  t.equal(v20.valid, true, 'Swagger 2.0', { errors: v20.errors });
  const v31 = await validate(oa);
  t.equal(v31.version, '3.1');
  t.equal(v31.valid, true, 'OpenAPI 3.1', { errors: v31.errors });
});

t.test('follow-privileges: only mounts whose target the role may access', async (t) => {
  const q = accessQuestion(cache, 'public', true, resolved.groups);
  t.strictSame(q.mounts, {
    relations: [{ schema: 'app', name: 'notes' }, { schema: 'app', name: 'report' }, { schema: 'public', name: 'notes' }],
    routines: ['app.file(text)', 'app.search(text, text[], text, text, text, jsonb, text, text)', 'app.put_doc(uuid, xml)', 'app.upload(numeric, bytea)', 'app.take(jsonb, integer)', 'app.variadic_sum(integer[])'],
  });
  const st = buildAccessStatement(q);
  t.strictSame(st.values.slice(5, 8), [['app', 'app', 'public'], ['notes', 'report', 'notes'], q.mounts!.routines]);
  t.strictSame(st.values[8], q.mounts!.routines.map(() => '["app"]'), 'the schemas each signature names');
  t.match(st.text, /\$8::text\[\]/);
  // The role may read app.report and call search only; public.notes is position 1 of $2.
  const scope = readAccessRow(q, [null, '[1]', null, '[2]', '[2]']);
  t.strictSame(scope.mountTargets, { relations: new Set(['app.report']), routines: new Set(['app.search(text, text[], text, text, text, jsonb, text, text)']) });
  const d = renderSwagger(buildApiModel(cache, scope, OPTS, resolved.groups)) as any;
  // GET /notes is the mount's even for a role that may not call it: the table's path is not shown either.
  t.strictSame(Object.keys(d.paths), ['/', '/v2/search/{term}', '/v2/reports/{id}']);
  t.strictSame(Object.keys(d.definitions), ['notes', 'app.report']);

  t.notOk('mounts' in accessQuestion(cache, 'public', true), 'no mounts: the statement is as before');
  t.notOk('mounts' in accessQuestion(cache, 'public', false, resolved.groups), 'ignore-privileges: no question');
  t.notOk('mountTargets' in readAccessRow(accessQuestion(cache, 'public', false, resolved.groups), [null]));
});
