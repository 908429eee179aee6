// The root document without a database: a hand-written schema cache → model → Swagger 2.0 and
// OpenAPI 3.1, compared with PostgREST's expectations (test/spec/Feature/OpenApi/OpenApiSpec.hs),
// and both renderings checked by an OpenAPI validator.
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import type { Column, Relation, Relationship, Routine, SchemaCache } from '../../../src/catalog/types.js';
import { accessQuestion, buildAccessStatement, readAccessRow } from '../../../src/response/openapi/access.js';
import { buildApiModel, parseDefault, serverOf, splitComment, type ApiModelOptions, type ApiScope } from '../../../src/response/openapi/model.js';
import { renderOpenApi31, serverUrl } from '../../../src/response/openapi/openapi31.js';
import { columnTypeName, jsonTypeOf } from '../../../src/response/openapi/pg-types.js';
import { componentName, pointerRef } from '../../../src/response/openapi/refs.js';
import { renderSwagger } from '../../../src/response/openapi/swagger.js';

function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) deepFreeze(v);
  }
  return x;
}

const col = (name: string, position: number, type: string, extra: Partial<Column> = {}): Column => ({
  name,
  type,
  baseType: type,
  nullable: true,
  default: null,
  maxLength: null,
  description: null,
  enumValues: [],
  position,
  generated: false,
  ...extra,
});

const rel = (name: string, columns: Column[], extra: Partial<Relation> = {}): Relation => ({
  schema: 'public',
  name,
  kind: 'table',
  description: null,
  columns,
  primaryKey: [],
  insertable: true,
  updatable: true,
  deletable: true,
  ...extra,
});

const fk = (from: string, to: string, cardinality: 'm2o' | 'o2m' | 'o2o', pairs: Array<[string, string]>): Relationship => ({
  kind: 'fk',
  from: { schema: 'public', name: from },
  to: { schema: 'public', name: to },
  cardinality,
  constraintName: `${from}_${to}_fkey`,
  columns: pairs,
  junction: null,
  isSelf: from === to,
});

const routine = (name: string, extra: Partial<Routine> = {}): Routine => ({
  schema: 'public',
  name,
  description: null,
  params: [],
  returns: { kind: 'scalar', type: 'text', setOf: false },
  volatility: 'volatile',
  isProcedure: false,
  signature: `public.${name}()`,
  ...extra,
});

const cache: SchemaCache = deepFreeze({
  version: 1,
  schemas: ['public', 'v1'],
  relations: [
    rel('child_entities', [
      col('id', 1, 'integer', { nullable: false, description: 'child_entities id comment', baseType: 'int4' }),
      col('name', 2, 'text', { description: 'child_entities name comment' }),
      col('parent_id', 3, 'integer', { baseType: 'int4' }),
    ], { description: 'child_entities comment', primaryKey: ['id'] }),
    rel('child_entities_view', [
      col('id', 1, 'integer', { baseType: 'int4' }),
      col('parent_id', 2, 'integer', { baseType: 'int4' }),
    ], { kind: 'view', primaryKey: ['id'], description: 'summary\n\n\ndescription\nmore' }),
    rel('entities', [col('id', 1, 'integer', { nullable: false, baseType: 'int4' })], { primaryKey: ['id'] }),
    rel('entities_view', [col('id', 1, 'integer', { baseType: 'int4' })], { kind: 'view', primaryKey: ['id'] }),
    rel('first', [
      col('id', 1, 'integer', { nullable: false, baseType: 'int4' }),
      col('second_id', 2, 'integer', { baseType: 'int4' }),
    ], { primaryKey: ['id'] }),
    rel('second', [col('id', 1, 'integer', { nullable: false, baseType: 'int4' })], { primaryKey: ['id'] }),
    rel('my table', [col('a/b', 1, 'text')], { insertable: false, updatable: false, deletable: false }),
    rel('types', [
      col('vc', 1, 'character varying(20)', { baseType: 'varchar', maxLength: 20 }),
      col('ch_arr', 2, 'character(1)[]', { baseType: 'bpchar' }),
      col('ts', 3, 'timestamp(3) with time zone', { baseType: 'timestamptz', default: 'now()' }),
      col('dom', 4, 'public.short_text', { baseType: 'varchar', maxLength: 20, default: "'x'::character varying" }),
      col('mood', 5, 'public.mood', { baseType: 'mood', enumValues: ['sad', 'ok'], default: "'ok'::public.mood" }),
      col('other_enum', 6, 'types.enum_menagerie_type', { baseType: 'enum_menagerie_type', enumValues: ['foo', 'bar'], nullable: false }),
      col('moods', 7, 'public.mood[]', { baseType: 'mood' }),
      col('j', 8, 'jsonb', { default: "'{}'::jsonb" }),
      col('j_arr', 9, 'json[]', { baseType: 'json' }),
      col('id', 10, 'bigint', { baseType: 'int8', nullable: false, default: "nextval('types_id_seq'::regclass)" }),
      col('citext', 11, 'public.citext', { baseType: 'citext' }),
    ]),
    rel('children', [col('id', 1, 'integer')], { schema: 'v1' }),
  ],
  relationships: [
    fk('child_entities', 'entities', 'm2o', [['parent_id', 'id']]),
    fk('entities', 'child_entities', 'o2m', [['id', 'parent_id']]),
    // a view showing the FK column points to both the table and its view: the table wins
    fk('child_entities_view', 'entities_view', 'm2o', [['parent_id', 'id']]),
    fk('child_entities_view', 'entities', 'm2o', [['parent_id', 'id']]),
    fk('first', 'second', 'o2o', [['second_id', 'id']]),
    fk('second', 'first', 'o2o', [['id', 'second_id']]),
  ],
  routines: [
    routine('add', {
      description: 'Adds\n\nTwo numbers',
      volatility: 'immutable',
      params: [
        { name: 'a', type: 'integer', mode: 'in', hasDefault: false },
        { name: 'b', type: 'integer', mode: 'in', hasDefault: true },
        { name: 'result', type: 'integer', mode: 'out', hasDefault: false },
      ],
      signature: 'public.add(integer, integer)',
    }),
    routine('add', { params: [{ name: 'x', type: 'text', mode: 'in', hasDefault: false }], signature: 'public.add(text)' }),
    routine('many', {
      volatility: 'stable',
      params: [{ name: 'v', type: 'text[]', mode: 'variadic', hasDefault: false }, { name: 'm', type: 'public.mood', mode: 'inout', hasDefault: false }],
      signature: 'public.many(public.mood, VARIADIC text[])',
    }),
    routine('reset'),
    routine('proc', { isProcedure: true, signature: 'public.proc()' }),
    routine('below', { schema: 'v1', signature: 'v1.below()' }),
  ],
  mediaHandlers: [],
  serverVersion: 180000,
});

const everything: ApiScope = { schema: 'public', relations: null, routines: null, schemaDescription: null };
const options: ApiModelOptions = { proxyUri: null, serverHost: 'localhost', serverPort: 3000, version: '1.2.3', securityActive: false };
const swagger = (scope: ApiScope = everything, opts: ApiModelOptions = options) => renderSwagger(buildApiModel(cache, scope, opts)) as any;
const oas31 = (scope: ApiScope = everything, opts: ApiModelOptions = options) => renderOpenApi31(buildApiModel(cache, scope, opts)) as any;

t.test('PostgreSQL types as PostgREST spells and maps them', async (t) => {
  const name = (type: string, baseType = type, enumValues: string[] = []) => columnTypeName({ type, baseType, enumValues });
  t.equal(name('character varying(20)', 'varchar'), 'character varying', 'pg_catalog types lose their modifier');
  t.equal(name('numeric(10,2)[]', 'numeric'), 'numeric[]');
  t.equal(name('timestamp(3) with time zone', 'timestamptz'), 'timestamp with time zone');
  t.equal(name('"char"'), '"char"');
  t.equal(name('public.short_text', 'varchar'), 'character varying', 'a domain over a pg_catalog type shows its base');
  t.equal(name('public.big_id', 'int8'), 'bigint');
  t.equal(name('public.email', 'citext'), 'email', 'a domain over another type keeps its name');
  t.equal(name('public.mood', 'mood', ['a']), 'mood', 'types of public are not qualified');
  t.equal(name('types.mood', 'mood', ['a']), 'types.mood');
  t.equal(name('public.mood[]', 'mood'), 'mood[]');
  t.equal(name('public."My Type"', 'My Type'), '"My Type"');
  t.equal(name('"my.schema".t', 't'), '"my.schema".t');

  t.equal(jsonTypeOf('character varying'), 'string');
  t.equal(jsonTypeOf('character'), 'string');
  t.equal(jsonTypeOf('boolean'), 'boolean');
  t.equal(jsonTypeOf('bigint'), 'integer');
  t.equal(jsonTypeOf('double precision'), 'number');
  t.equal(jsonTypeOf('json'), null);
  t.equal(jsonTypeOf('jsonb'), null);
  t.equal(jsonTypeOf('jsonb[]'), 'array');
  t.equal(jsonTypeOf('uuid'), 'string');
  t.equal(jsonTypeOf('money'), 'string');
});

t.test("PostgREST's parseDefault", async (t) => {
  t.equal(parseDefault('text', 'text', "'default'::text"), 'default');
  t.equal(parseDefault('character varying', 'character varying(20)', "'x'::character varying"), 'x');
  t.equal(parseDefault('mood', 'public.mood', "'ok'::public.mood"), 'ok');
  t.equal(parseDefault('boolean', 'boolean', 'false'), false);
  t.equal(parseDefault('integer', 'integer', '42'), 42);
  t.equal(parseDefault('numeric', 'numeric', '42.2'), 42.2);
  t.equal(parseDefault('date', 'date', "'1900-01-01'::date"), '1900-01-01');
  t.equal(parseDefault('timestamp with time zone', 'timestamp with time zone', 'now()'), 'now()', 'an expression stays text');
  t.equal(parseDefault('integer', 'integer', "nextval('s'::regclass)"), undefined, 'not JSON: no default');
  t.equal(parseDefault('jsonb', 'jsonb', "'{}'::jsonb"), undefined);
  t.equal(parseDefault('text', 'text', `'say "hi"'::text`), undefined, 'PostgREST leaves a quote unescaped: no default');
  t.equal(parseDefault('text', 'text', null), undefined);
});

t.test('comments: first line, then the rest', async (t) => {
  t.strictSame(splitComment(null), [null, null]);
  t.strictSame(splitComment('one line'), ['one line', '']);
  t.strictSame(splitComment('title\n\n\nbody\nmore'), ['title', 'body\nmore']);
});

t.test('server: proxy URI, else server-host and server-port', async (t) => {
  t.strictSame(serverOf({ proxyUri: null, serverHost: 'localhost', serverPort: 3000 }), { scheme: 'http', host: 'localhost', port: 3000, basePath: '/' });
  t.strictSame(serverOf({ proxyUri: null, serverHost: '!4', serverPort: 80 }), { scheme: 'http', host: '0.0.0.0', port: 80, basePath: '/' });
  t.strictSame(serverOf({ proxyUri: 'https://postgrest.com/openapi', serverHost: 'x', serverPort: 1 }), { scheme: 'https', host: 'postgrest.com', port: 443, basePath: '/openapi' });
  t.strictSame(serverOf({ proxyUri: 'http://example.com:8080', serverHost: 'x', serverPort: 1 }), { scheme: 'http', host: 'example.com', port: 8080, basePath: '/' });
  t.equal(serverUrl({ scheme: 'https', host: 'postgrest.com', port: 443, basePath: '/openapi' }), 'https://postgrest.com/openapi');
  t.equal(serverUrl({ scheme: 'http', host: 'localhost', port: 3000, basePath: '/' }), 'http://localhost:3000');
  t.equal(serverUrl({ scheme: 'http', host: '::1', port: 3000, basePath: '/api/' }), 'http://[::1]:3000/api');
  const doc = swagger(everything, { ...options, proxyUri: 'https://api.example.com/v2' });
  t.equal(doc.host, 'api.example.com:443');
  t.equal(doc.basePath, '/v2');
  t.strictSame(doc.schemes, ['https']);
});

t.test('refs escape what a JSON Pointer in a URI fragment cannot hold', async (t) => {
  t.equal(pointerRef('definitions', 'films'), '#/definitions/films');
  t.equal(pointerRef('parameters', 'rowFilter.films.id'), '#/parameters/rowFilter.films.id');
  t.equal(pointerRef('definitions', 'a/b~c'), '#/definitions/a~1b~0c');
  t.equal(pointerRef('definitions', 'my table%'), '#/definitions/my%20table%25');
  t.equal(pointerRef('definitions', 'años'), '#/definitions/años');
  t.equal(componentName('rowFilter.films.id'), 'rowFilter.films.id');
  t.equal(componentName('my table'), 'my_x20_table');
  t.equal(componentName('años'), 'a_xf1_os');
});

t.test('Swagger 2.0: the document PostgREST serves', async (t) => {
  const doc = swagger();
  t.equal(doc.swagger, '2.0');
  t.strictSame(doc.info, { description: 'This is a dynamic API generated by dbrest', title: 'dbrest API', version: '1.2.3' });
  t.equal(doc.host, 'localhost:3000');
  t.equal(doc.basePath, '/');
  t.strictSame(doc.schemes, ['http']);
  const media = ['application/json', 'application/vnd.pgrst.object+json;nulls=stripped', 'application/vnd.pgrst.object+json', 'text/csv'];
  t.strictSame(doc.consumes, media);
  t.strictSame(doc.produces, media);
  t.strictSame(doc.externalDocs, { description: 'PostgREST Documentation', url: 'https://postgrest.org/en/latest/references/api.html' });
  t.notOk(doc.security);
  t.notOk(doc.securityDefinitions);
  t.strictSame(Object.keys(doc.paths), [
    '/', '/child_entities', '/child_entities_view', '/entities', '/entities_view', '/first', '/second', '/my table', '/types',
    '/rpc/add', '/rpc/many', '/rpc/reset',
  ], 'only the schema asked for; one path per routine name; no procedures');
  t.strictSame(doc.paths['/'], {
    get: {
      tags: ['Introspection'],
      summary: 'OpenAPI description (this document)',
      produces: ['application/openapi+json', 'application/json'],
      responses: { 200: { description: 'OK' } },
    },
  });

  const ce = doc.paths['/child_entities'];
  t.strictSame(Object.keys(ce), ['get', 'post', 'patch', 'delete']);
  t.equal(ce.get.summary, 'child_entities comment');
  t.notOk('description' in ce.get);
  t.strictSame(ce.get.parameters.map((p: any) => p.$ref), [
    '#/parameters/rowFilter.child_entities.id', '#/parameters/rowFilter.child_entities.name', '#/parameters/rowFilter.child_entities.parent_id',
    '#/parameters/select', '#/parameters/order', '#/parameters/range', '#/parameters/rangeUnit', '#/parameters/offset', '#/parameters/limit',
    '#/parameters/preferCount',
  ]);
  t.strictSame(ce.get.responses, {
    200: { description: 'OK', schema: { items: { $ref: '#/definitions/child_entities' }, type: 'array' } },
    206: { description: 'Partial Content' },
  });
  t.strictSame(ce.post.parameters, [{ $ref: '#/parameters/body.child_entities' }, { $ref: '#/parameters/select' }, { $ref: '#/parameters/preferPost' }]);
  t.strictSame(ce.post.responses, { 201: { description: 'Created' } });
  t.strictSame(ce.patch.parameters.slice(-2), [{ $ref: '#/parameters/body.child_entities' }, { $ref: '#/parameters/preferReturn' }]);
  t.strictSame(ce.patch.responses, { 204: { description: 'No Content' } });
  t.strictSame(ce.delete.parameters.slice(-1), [{ $ref: '#/parameters/preferReturn' }]);
  t.strictSame(ce.delete.responses, { 204: { description: 'No Content' } });

  t.equal(doc.paths['/child_entities_view'].get.summary, 'summary');
  t.equal(doc.paths['/child_entities_view'].get.description, 'description\nmore');
  t.strictSame(Object.keys(doc.paths['/my table']), ['get'], 'a read-only relation: GET only');

  t.strictSame(doc.definitions.child_entities, {
    required: ['id'],
    properties: {
      id: { description: 'child_entities id comment\n\nNote:\nThis is a Primary Key.<pk/>', format: 'int32', type: 'integer' },
      name: { description: 'child_entities name comment', format: 'text', type: 'string' },
      parent_id: { description: "Note:\nThis is a Foreign Key to `entities.id`.<fk table='entities' column='id'/>", format: 'int32', type: 'integer' },
    },
    type: 'object',
    description: 'child_entities comment',
  });
  t.equal(doc.definitions.child_entities_view.properties.parent_id.description,
    "Note:\nThis is a Foreign Key to `entities.id`.<fk table='entities' column='id'/>", 'the table before the view');
  t.equal(doc.definitions.first.properties.second_id.description,
    "Note:\nThis is a Foreign Key to `second.id`.<fk table='second' column='id'/>", 'one-to-one: the side holding the key');
  t.equal(doc.definitions.second.properties.id.description, 'Note:\nThis is a Primary Key.<pk/>', 'one-to-one: not the referenced side');
  t.notOk(doc.definitions.entities.properties.id.description.includes('Foreign'), 'o2m is no foreign key');

  t.strictSame(doc.definitions.types.properties, {
    vc: { format: 'character varying', maxLength: 20, type: 'string' },
    ch_arr: { format: 'character[]', type: 'array', items: { type: 'string' } },
    ts: { default: 'now()', format: 'timestamp with time zone', type: 'string' },
    dom: { default: 'x', format: 'character varying', maxLength: 20, type: 'string' },
    mood: { default: 'ok', enum: ['sad', 'ok'], format: 'mood', type: 'string' },
    other_enum: { enum: ['foo', 'bar'], format: 'types.enum_menagerie_type', type: 'string' },
    moods: { format: 'mood[]', type: 'array', items: { type: 'string' } },
    j: { format: 'jsonb' },
    j_arr: { format: 'json[]', type: 'array', items: {} },
    id: { format: 'int64', type: 'integer' },
    citext: { format: 'citext', type: 'string' },
  });
  t.strictSame(doc.definitions.types.required, ['other_enum', 'id'], 'NOT NULL columns, as PostgREST');

  t.strictSame(Object.keys(doc.parameters).slice(0, 13), [
    'preferParams', 'preferReturn', 'preferCount', 'preferPost', 'select', 'on_conflict', 'order', 'range', 'rangeUnit', 'offset', 'limit',
    'body.child_entities', 'rowFilter.child_entities.id',
  ]);
  t.strictSame(doc.parameters.preferParams, { name: 'Prefer', description: 'Preference', required: false, in: 'header', type: 'string' }, 'no enum (PostgREST v16 OpenApiSpec)');
  t.strictSame(doc.parameters.rangeUnit, { name: 'Range-Unit', description: 'Limiting and Pagination', required: false, default: 'items', in: 'header', type: 'string' });
  t.strictSame(doc.parameters['body.child_entities'], { name: 'child_entities', description: 'child_entities', required: false, in: 'body', schema: { $ref: '#/definitions/child_entities' } });
  t.strictSame(doc.parameters['rowFilter.child_entities.id'], { name: 'id', description: 'child_entities id comment', required: false, in: 'query', type: 'string' });
  t.strictSame(doc.parameters['rowFilter.child_entities.parent_id'], { name: 'parent_id', required: false, in: 'query', type: 'string' });
  t.strictSame(doc.parameters['body.my table'].schema, { $ref: '#/definitions/my%20table' });
});

t.test('Swagger 2.0: routines', async (t) => {
  const doc = swagger();
  const add = doc.paths['/rpc/add'];
  t.strictSame(Object.keys(add), ['get', 'post'], 'immutable: GET and POST; the first overload');
  t.strictSame(add.get, {
    tags: ['(rpc) add'],
    summary: 'Adds',
    description: 'Two numbers',
    parameters: [
      { format: 'integer', in: 'query', name: 'a', required: true, type: 'integer' },
      { format: 'integer', in: 'query', name: 'b', required: false, type: 'integer' },
    ],
    produces: ['application/json', 'application/vnd.pgrst.object+json;nulls=stripped', 'application/vnd.pgrst.object+json'],
    responses: { 200: { description: 'OK' } },
  });
  t.strictSame(add.post.parameters, [
    {
      name: 'args',
      required: true,
      in: 'body',
      schema: {
        required: ['a'],
        properties: { a: { format: 'integer', type: 'integer' }, b: { format: 'integer', type: 'integer' } },
        type: 'object',
        description: 'Adds\n\nTwo numbers',
      },
    },
    { $ref: '#/parameters/preferParams' },
  ]);
  t.strictSame(doc.paths['/rpc/many'].get.parameters, [
    { name: 'v', required: true, in: 'query', type: 'array', collectionFormat: 'multi', items: { format: 'text', type: 'string' } },
    { format: 'mood', in: 'query', name: 'm', required: true, type: 'string' },
  ], 'variadic: a repeated parameter; INOUT is an argument');
  t.strictSame(Object.keys(doc.paths['/rpc/reset']), ['post'], 'volatile: POST only');
  t.strictSame(doc.paths['/rpc/reset'].post.parameters[0], { name: 'args', required: true, in: 'body', schema: { type: 'object' } });
});

t.test('scope: what the role may access, the schema comment, security', async (t) => {
  const doc = swagger(
    { schema: 'public', relations: new Set(['entities']), routines: new Set(['public.add(text)']), schemaDescription: 'Title\nDescription' },
    { ...options, securityActive: true },
  );
  t.strictSame(Object.keys(doc.paths), ['/', '/entities', '/rpc/add']);
  t.strictSame(Object.keys(doc.definitions), ['entities']);
  t.ok(Object.keys(doc.parameters).every((k) => !k.includes('child_entities')));
  t.strictSame(doc.paths['/rpc/add'].post.parameters[0].schema.required, ['x'], 'the accessible overload');
  t.strictSame(doc.info, { description: 'Description', title: 'Title', version: '1.2.3' });
  t.strictSame(doc.security, [{ JWT: [] }]);
  t.strictSame(doc.securityDefinitions, {
    JWT: { type: 'apiKey', description: 'Add the token prepending "Bearer " (without quotes) to it', name: 'Authorization', in: 'header' },
  });
  const v1 = swagger({ schema: 'v1', relations: null, routines: null, schemaDescription: 'One line' });
  t.strictSame(Object.keys(v1.paths), ['/', '/children', '/rpc/below']);
  t.strictSame(v1.info, { description: '', title: 'One line', version: '1.2.3' });
});

t.test('OpenAPI 3.1: the same model', async (t) => {
  const doc = oas31(everything, { ...options, proxyUri: 'https://api.example.com/v2', securityActive: true });
  t.equal(doc.openapi, '3.1.0');
  t.strictSame(doc.info, { title: 'dbrest API', description: 'This is a dynamic API generated by dbrest', version: '1.2.3' });
  t.strictSame(doc.servers, [{ url: 'https://api.example.com/v2' }]);
  t.strictSame(doc.security, [{ JWT: [] }]);
  t.equal(doc.components.securitySchemes.JWT.scheme, 'bearer');
  t.strictSame(Object.keys(doc.paths), Object.keys(swagger().paths), 'the same paths');

  t.strictSame(doc.components.schemas.child_entities, {
    type: 'object',
    description: 'child_entities comment',
    properties: {
      id: { type: 'integer', format: 'int32', description: 'child_entities id comment\n\nNote:\nThis is a Primary Key.<pk/>' },
      name: { type: ['string', 'null'], format: 'text', description: 'child_entities name comment' },
      parent_id: { type: ['integer', 'null'], format: 'int32', description: "Note:\nThis is a Foreign Key to `entities.id`.<fk table='entities' column='id'/>" },
    },
    required: ['id'],
  });
  t.strictSame(doc.components.schemas.types.properties.mood, { type: ['string', 'null'], format: 'mood', default: 'ok', enum: ['sad', 'ok', null] });
  t.strictSame(doc.components.schemas.types.properties.other_enum, { type: 'string', format: 'types.enum_menagerie_type', enum: ['foo', 'bar'] });
  t.strictSame(doc.components.schemas.types.properties.j, { format: 'jsonb' }, 'any JSON: no type');
  t.strictSame(doc.components.schemas.types.properties.ch_arr, { type: ['array', 'null'], format: 'character[]', items: { type: 'string' } });

  const ce = doc.paths['/child_entities'];
  t.strictSame(ce.get.parameters[0], { $ref: '#/components/parameters/rowFilter.child_entities.id' });
  t.strictSame(ce.get.responses['200'].content['application/json'].schema, { type: 'array', items: { $ref: '#/components/schemas/child_entities' } });
  t.strictSame(ce.get.responses['200'].content['application/vnd.pgrst.object+json'].schema, { $ref: '#/components/schemas/child_entities' });
  t.strictSame(ce.get.responses['200'].content['text/csv'].schema, { type: 'string' });
  t.strictSame(ce.get.responses['206'], { description: 'Partial Content' });
  t.strictSame(ce.post.parameters, [{ $ref: '#/components/parameters/select' }, { $ref: '#/components/parameters/preferPost' }], 'the body is not a parameter');
  t.strictSame(ce.post.requestBody, { $ref: '#/components/requestBodies/body.child_entities' });
  t.strictSame(ce.patch.requestBody, { $ref: '#/components/requestBodies/body.child_entities' });
  t.notOk(ce.delete.requestBody);
  t.strictSame(doc.components.requestBodies['body.child_entities'].content['application/json'], { schema: { $ref: '#/components/schemas/child_entities' } });
  t.strictSame(doc.components.parameters.preferCount, { name: 'Prefer', in: 'header', description: 'Preference', required: false, schema: { type: 'string', enum: ['count=none'] } });

  t.strictSame(doc.paths['/my table'].get.responses['200'].content['application/json'].schema.items, { $ref: '#/components/schemas/my_x20_table' });
  t.ok(doc.components.schemas.my_x20_table, 'a component name OpenAPI 3.x allows');

  const add = doc.paths['/rpc/add'];
  t.strictSame(add.get.parameters[0], { name: 'a', in: 'query', required: true, schema: { type: 'integer', format: 'integer' } });
  t.strictSame(add.post.requestBody.content['application/json'].schema.required, ['a']);
  t.strictSame(add.post.parameters, [{ $ref: '#/components/parameters/preferParams' }]);
  t.strictSame(Object.keys(add.get.responses['200'].content), ['application/json', 'application/vnd.pgrst.object+json;nulls=stripped', 'application/vnd.pgrst.object+json']);
  t.strictSame(doc.paths['/rpc/many'].get.parameters[0], { name: 'v', in: 'query', required: true, schema: { type: 'array', items: { type: 'string', format: 'text' } }, style: 'form', explode: true });
});

t.test('both documents pass an OpenAPI validator', async (t) => {
  for (const [name, doc] of [
    ['2.0', swagger()],
    ['2.0 scoped, secured, proxied', swagger({ ...everything, relations: new Set(['types']) }, { ...options, securityActive: true, proxyUri: 'https://x.org/a/b' })],
    ['3.1', oas31()],
    ['3.1 secured', oas31(everything, { ...options, securityActive: true, serverHost: '::1' })],
  ] as const) {
    const v = new Validator();
    const res = await v.validate(doc);
    t.equal(res.valid, true, name, { errors: res.errors });
  }
});

t.test('access statement: the schema comment and (follow-privileges) what the role may access', async (t) => {
  const follow = accessQuestion(cache, 'public', true);
  t.strictSame(follow.relations.slice(0, 2), ['child_entities', 'child_entities_view']);
  t.strictSame(follow.routines, ['public.add(integer, integer)', 'public.add(text)', 'public.many(public.mood, VARIADIC text[])', 'public.reset()', 'public.proc()']);
  const st = buildAccessStatement(follow);
  t.equal(st.values[0], 'public');
  t.strictSame((st.values[1] as string[]).slice(-1), ['public']);
  t.strictSame((st.values[2] as string[]).slice(-1), ['types'], 'schema and name apart: looked up in the catalogs, not with to_regclass');
  t.notMatch(st.text, /to_regclass/);
  t.match(st.text, /has_table_privilege/);
  const scope = readAccessRow(follow, ['Title', '[1,3]', '[2]']);
  t.strictSame(scope, { schema: 'public', relations: new Set(['child_entities', 'entities']), routines: new Set(['public.add(text)']), schemaDescription: 'Title' });
  t.strictSame(readAccessRow(follow, [null, null, null]).relations, new Set(), 'nothing accessible');

  const ignore = accessQuestion(cache, 'public', false);
  const st2 = buildAccessStatement(ignore);
  t.strictSame(st2.values, ['public']);
  t.notMatch(st2.text, /has_table_privilege/);
  t.strictSame(readAccessRow(ignore, [null]), { schema: 'public', relations: null, routines: null, schemaDescription: null });
});
