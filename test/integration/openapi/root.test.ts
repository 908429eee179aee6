// GET / over HTTP (PostgREST docs, "OpenAPI"; test/spec/Feature/OpenApi): the Swagger 2.0 document
// key for key where PostgREST's specs state it, openapi-mode (follow-privileges as the request's
// role, ignore-privileges, disabled), openapi-server-proxy-uri, openapi-security-active, the OpenAPI
// 3.1 rendering by Accept and by openapi-version, and both documents through an OpenAPI validator.
import { Validator } from '@seriousme/openapi-schema-validator';
import { SignJWT } from 'jose';
import t from 'tap';
import { componentName } from '../../../src/response/openapi/refs.js';
import { createTestDatabase, fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const SECRET = 'openapi-integration-secret-of-at-least-32-chars';
const authorToken = () =>
  new SignJWT({ role: 'openapi_author' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

const OPENAPI_20 = 'application/openapi+json; charset=utf-8';
const OPENAPI_31 = 'application/openapi+json; version=3.1; charset=utf-8';

async function validate(doc: Record<string, unknown>): Promise<{ valid: boolean; version: string; errors: unknown }> {
  const v = new Validator();
  const res = await v.validate(doc);
  return { valid: res.valid, version: v.version, errors: res.errors };
}

t.test('OpenAPI', async (t) => {
  const db = await createTestDatabase([fixture('sql', 'openapi.sql')]);
  t.teardown(() => db.drop());
  const base = { 'db-anon-role': 'openapi_anon', 'jwt-secret': SECRET, 'db-schemas': 'public,v1' };
  const s = await startTestServer(t, { db, config: { ...base, 'openapi-mode': 'follow-privileges' } });
  const get = async (headers: Record<string, string> = {}) => {
    const res = await s.request('/', { headers });
    t.equal(res.status, 200, `GET / ${JSON.stringify(headers)}`);
    return res;
  };
  const doc = (await get()).json();

  t.test('root path: a valid Swagger 2.0 document, PostgREST Content-Type, HEAD', async (t) => {
    const res = await get({ Accept: 'application/openapi+json' });
    t.equal(res.headers['content-type'], OPENAPI_20);
    t.equal(res.headers['content-profile'], 'public');
    const v = await validate(res.json());
    t.equal(v.version, '2.0');
    t.equal(v.valid, true, 'valid', { errors: v.errors });
    const head = await s.request('/', { method: 'HEAD', headers: { Accept: 'application/openapi+json' } });
    t.equal(head.status, 200);
    t.equal(head.headers['content-type'], OPENAPI_20);
    t.equal(head.text, '');
    t.equal((await get({ Accept: 'application/json' })).headers['content-type'], OPENAPI_20, 'application/json: still the OpenAPI media type');
  });

  t.test('media types: 406 for what the root does not produce', async (t) => {
    const csv = await s.request('/', { headers: { Accept: 'text/csv' } });
    t.equal(csv.status, 406);
    t.equal(csv.json().code, 'DBRST107');
    t.equal(csv.headers['proxy-status'], 'dbrest; error=DBRST107');
    const v30 = await s.request('/', { headers: { Accept: 'application/openapi+json;version=3.0' } });
    t.equal(v30.status, 406);
    const post = await s.request('/', { method: 'POST', body: {} });
    t.equal(post.status, 405);
  });

  t.test('info from the schema comment; externalDocs; host from server-host/port', async (t) => {
    t.equal(doc.swagger, '2.0');
    t.strictSame(doc.info, { description: 'My API description\nthat spans\nmultiple lines', title: 'My API title', version: doc.info.version });
    t.match(doc.info.version, /^\d+\.\d+\.\d+/);
    t.strictSame(doc.externalDocs, { description: 'PostgREST Documentation', url: 'https://postgrest.org/en/latest/references/api.html' });
    t.equal(doc.host, `127.0.0.1:${s.config.serverPort}`);
    t.equal(doc.basePath, '/');
    t.strictSame(doc.schemes, ['http']);
    t.notOk(doc.security, 'no security unless openapi-security-active');
    t.notOk(doc.securityDefinitions);
  });

  t.test('table: paths, parameters, responses (OpenApiSpec "includes paths to tables")', async (t) => {
    const ce = doc.paths['/child_entities'];
    t.equal(ce.get.summary, 'child_entities comment');
    t.notOk('description' in ce.get);
    t.strictSame(ce.get.parameters, [
      { $ref: '#/parameters/rowFilter.child_entities.id' },
      { $ref: '#/parameters/rowFilter.child_entities.name' },
      { $ref: '#/parameters/rowFilter.child_entities.parent_id' },
      { $ref: '#/parameters/select' },
      { $ref: '#/parameters/order' },
      { $ref: '#/parameters/range' },
      { $ref: '#/parameters/rangeUnit' },
      { $ref: '#/parameters/offset' },
      { $ref: '#/parameters/limit' },
      { $ref: '#/parameters/preferCount' },
    ]);
    t.strictSame(ce.post.parameters, [{ $ref: '#/parameters/body.child_entities' }, { $ref: '#/parameters/select' }, { $ref: '#/parameters/preferPost' }]);
    t.equal(ce.post.responses['201'].description, 'Created');
    t.equal(ce.patch.responses['204'].description, 'No Content');
    t.equal(ce.delete.responses['204'].description, 'No Content');
    t.strictSame(ce.get.responses['200'].schema, { items: { $ref: '#/definitions/child_entities' }, type: 'array' });
    t.equal(ce.get.responses['206'].description, 'Partial Content');

    const gc = doc.paths['/grandchild_entities'].get;
    t.equal(gc.summary, 'grandchild_entities summary');
    t.equal(gc.description, 'grandchild_entities description\nthat spans\nmultiple lines');
    t.strictSame(Object.keys(doc.paths['/entity_names']), ['get'], 'a view that takes no writes: GET only');

    const mp = doc.paths['/materialized_projects'].get;
    t.equal(mp.summary, 'A materialized view for projects');
    t.equal(mp.description, 'Just a test for materialized views');
    const cm = doc.paths['/car_models'].get;
    t.equal(cm.summary, 'A partitioned table');
    t.equal(cm.description, 'A test for partitioned tables');
    t.equal(cm.parameters[0].$ref, '#/parameters/rowFilter.car_models.name');
    t.notOk(doc.paths['/car_models_2021'], 'partitions are reached through their parent');
  });

  t.test('definitions of a table and a view (OpenApiSpec "includes definitions to tables/views")', async (t) => {
    t.strictSame(doc.definitions.child_entities, {
      type: 'object',
      description: 'child_entities comment',
      properties: {
        id: { description: 'child_entities id comment\n\nNote:\nThis is a Primary Key.<pk/>', format: 'int32', type: 'integer' },
        name: { description: 'child_entities name comment. Can be longer than sixty-three characters long', format: 'text', type: 'string' },
        parent_id: { description: "Note:\nThis is a Foreign Key to `entities.id`.<fk table='entities' column='id'/>", format: 'int32', type: 'integer' },
      },
      required: ['id'],
    });
    t.strictSame(doc.definitions.child_entities_view, {
      type: 'object',
      description: 'child_entities_view comment',
      properties: {
        id: { description: 'child_entities_view id comment\n\nNote:\nThis is a Primary Key.<pk/>', format: 'int32', type: 'integer' },
        name: { description: 'child_entities_view name comment. Can be longer than sixty-three characters long', format: 'text', type: 'string' },
        parent_id: { description: "Note:\nThis is a Foreign Key to `entities.id`.<fk table='entities' column='id'/>", format: 'int32', type: 'integer' },
      },
    });
    t.strictSame(doc.definitions.first.properties.second_id_1,
      { format: 'int32', type: 'integer', description: "Note:\nThis is a Foreign Key to `second.id`.<fk table='second' column='id'/>" }, 'O2O');
    t.strictSame(doc.definitions.referrals.properties.link,
      { format: 'int32', type: 'integer', description: "Note:\nThis is a Foreign Key to `pages.link`.<fk table='pages' column='link'/>" }, 'a view FK through a UNIQUE key');
    t.strictSame(doc.definitions.projects.properties.client_id,
      { format: 'int32', type: 'integer', description: "Note:\nThis is a Foreign Key to `clients.id`.<fk table='clients' column='id'/>" }, 'the table, not its view');
  });

  t.test('PostgreSQL to Swagger type mapping, defaults, enums', async (t) => {
    const p = doc.definitions.openapi_types.properties;
    t.strictSame(p.a_character_varying, { format: 'character varying', type: 'string' });
    t.strictSame(p.a_character, { maxLength: 1, format: 'character', type: 'string' });
    t.strictSame(p.a_text, { format: 'text', type: 'string' });
    t.strictSame(p.a_boolean, { format: 'boolean', type: 'boolean' });
    t.strictSame(p.a_smallint, { format: 'int32', type: 'integer' });
    t.strictSame(p.a_integer, { format: 'int32', type: 'integer' });
    t.strictSame(p.a_bigint, { format: 'int64', type: 'integer' });
    t.strictSame(p.a_numeric, { format: 'numeric', type: 'number' });
    t.strictSame(p.a_real, { format: 'real', type: 'number' });
    t.strictSame(p.a_double_precision, { format: 'double precision', type: 'number' });
    t.strictSame(p.a_json, { format: 'json' });
    t.strictSame(p.a_jsonb, { format: 'jsonb' });
    t.strictSame(p.a_text_arr, { format: 'text[]', type: 'array', items: { type: 'string' } });
    t.strictSame(p.a_int_arr, { format: 'integer[]', type: 'array', items: { type: 'integer' } });
    t.strictSame(p.a_bool_arr, { format: 'boolean[]', type: 'array', items: { type: 'boolean' } });
    t.strictSame(p.a_char_arr, { format: 'character[]', type: 'array', items: { type: 'string' } });
    t.strictSame(p.a_varchar_arr, { format: 'character varying[]', type: 'array', items: { type: 'string' } });
    t.strictSame(p.a_bigint_arr, { format: 'bigint[]', type: 'array', items: { type: 'integer' } });
    t.strictSame(p.a_numeric_arr, { format: 'numeric[]', type: 'array', items: { type: 'number' } });
    t.strictSame(p.a_json_arr, { format: 'json[]', type: 'array', items: {} });
    t.strictSame(p.a_jsonb_arr, { format: 'jsonb[]', type: 'array', items: {} });
    t.strictSame(p.a_varchar_20, { format: 'character varying', maxLength: 20, type: 'string' });
    t.strictSame(p.a_timestamptz, { format: 'timestamp with time zone', type: 'string' });
    t.strictSame(p.a_short_text, { format: 'character varying', maxLength: 20, type: 'string' }, 'a domain shows its base type');
    t.strictSame(p.a_mood, { enum: ['sad', 'ok', 'happy'], format: 'mood', type: 'string' });
    t.strictSame(p.a_mood_arr, { format: 'mood[]', type: 'array', items: { type: 'string' } });

    const d = doc.definitions.openapi_defaults.properties;
    t.equal(d.text.default, 'default');
    t.equal(d.boolean.default, false);
    t.equal(d.integer.default, 42);
    t.equal(d.numeric.default, 42.2);
    t.equal(d.date.default, '1900-01-01');
    t.equal(d.time.default, '13:00:00');
    t.equal(d.created_at.default, 'now()');
    t.equal(d.mood.default, 'ok');
    t.notOk('default' in d.serial, 'nextval(...) is no JSON value');
    t.strictSame(doc.definitions.openapi_defaults.required, ['created_at', 'serial']);
    t.strictSame(doc.definitions.menagerie.properties.enum, { format: 'types.enum_menagerie_type', type: 'string', enum: ['foo', 'bar'] });
  });

  t.test('RPC (OpenApiSpec "RPC")', async (t) => {
    const f = doc.paths['/rpc/varied_arguments_openapi'];
    t.equal(f.get.summary, 'An RPC function');
    t.equal(f.get.description, 'Just a test for RPC function arguments');
    t.strictSame(f.get.parameters, [
      { format: 'double precision', in: 'query', name: 'double', required: true, type: 'number' },
      { format: 'character varying', in: 'query', name: 'varchar', required: true, type: 'string' },
      { format: 'boolean', in: 'query', name: 'boolean', required: true, type: 'boolean' },
      { format: 'date', in: 'query', name: 'date', required: true, type: 'string' },
      { format: 'money', in: 'query', name: 'money', required: true, type: 'string' },
      { format: 'types.enum_menagerie_type', in: 'query', name: 'enum', required: true, type: 'string' },
      { format: 'text[]', in: 'query', name: 'text_arr', required: true, type: 'string' },
      { format: 'integer[]', in: 'query', name: 'int_arr', required: true, type: 'string' },
      { format: 'json[]', in: 'query', name: 'json_arr', required: true, type: 'string' },
      { format: 'integer', in: 'query', name: 'integer', required: false, type: 'integer' },
      { format: 'json', in: 'query', name: 'json', required: false, type: 'string' },
      { format: 'jsonb', in: 'query', name: 'jsonb', required: false, type: 'string' },
    ]);
    t.equal(f.post.summary, 'An RPC function');
    t.strictSame(f.post.parameters[0].schema, {
      required: ['double', 'varchar', 'boolean', 'date', 'money', 'enum', 'text_arr', 'int_arr', 'json_arr'],
      properties: {
        double: { format: 'double precision', type: 'number' },
        varchar: { format: 'character varying', type: 'string' },
        boolean: { format: 'boolean', type: 'boolean' },
        date: { format: 'date', type: 'string' },
        money: { format: 'money', type: 'string' },
        enum: { format: 'types.enum_menagerie_type', type: 'string' },
        text_arr: { format: 'text[]', type: 'array', items: { type: 'string' } },
        int_arr: { format: 'integer[]', type: 'array', items: { type: 'integer' } },
        json_arr: { format: 'json[]', type: 'array', items: {} },
        integer: { format: 'integer', type: 'integer' },
        json: { format: 'json' },
        jsonb: { format: 'jsonb' },
      },
      type: 'object',
      description: 'An RPC function\n\nJust a test for RPC function arguments',
    });
    t.strictSame(f.post.parameters[1], { $ref: '#/parameters/preferParams' });
    t.strictSame(f.get.produces, ['application/json', 'application/vnd.pgrst.object+json;nulls=stripped', 'application/vnd.pgrst.object+json']);
    t.strictSame(f.get.tags, ['(rpc) varied_arguments_openapi']);

    t.notOk(doc.paths['/rpc/many_out_params'].post.parameters[0].schema.required, 'OUT params are not arguments');
    t.strictSame(doc.paths['/rpc/many_inout_params'].post.parameters[0].schema.required, ['num', 'str'], 'INOUT without default: required');
    t.strictSame(doc.paths['/rpc/variadic_param'].get.parameters[0], {
      collectionFormat: 'multi', in: 'query', items: { format: 'text', type: 'string' }, name: 'v', required: false, type: 'array',
    });
    t.strictSame(Object.keys(doc.paths['/rpc/reset_everything']), ['post'], 'volatile: POST only');
    t.notOk(doc.paths['/rpc/do_nothing'], 'no procedures');
  });

  t.test('names that need escaping in references', async (t) => {
    t.strictSame(doc.paths['/spaced name/x'].get.parameters.slice(0, 2), [
      { $ref: '#/parameters/rowFilter.spaced%20name~1x.a~1b' },
      { $ref: '#/parameters/rowFilter.spaced%20name~1x.años~0' },
    ]);
    t.strictSame(doc.paths['/spaced name/x'].get.responses['200'].schema.items, { $ref: '#/definitions/spaced%20name~1x' });
    const d = (await get({ Accept: 'application/openapi+json;version=3.1' })).json();
    t.strictSame(d.paths['/spaced name/x'].get.responses['200'].content['application/json'].schema.items,
      { $ref: '#/components/schemas/spaced_x20_name_x2f_x' });
    t.ok(d.components.parameters['rowFilter.spaced_x20_name_x2f_x.a_x2f_b']);
  });

  t.test('follow-privileges: what the request role may access', async (t) => {
    t.notOk(doc.paths['/authors_only'], 'privileged table hidden from anonymous');
    t.notOk(doc.definitions.authors_only);
    t.notOk(doc.paths['/rpc/privileged_hello'], 'privileged function hidden from anonymous');
    t.ok(doc.paths['/column_grant'], 'a column privilege is enough');
    const author = (await get({ Authorization: `Bearer ${await authorToken()}` })).json();
    t.strictSame(author.paths['/authors_only'].post.tags, ['authors_only']);
    t.strictSame(author.definitions.authors_only.required, ['owner', 'secret']);
    t.strictSame(author.paths['/rpc/privileged_hello'].post.tags, ['(rpc) privileged_hello']);
    t.notOk(author.paths['/column_grant'], 'not granted to the author');
  });

  t.test('Accept-Profile: the other schema only', async (t) => {
    t.notOk(doc.paths['/children']);
    t.notOk(doc.paths['/rpc/get_parents_below']);
    const res = await get({ 'Accept-Profile': 'v1' });
    t.equal(res.headers['content-profile'], 'v1');
    const v1 = res.json();
    t.strictSame(Object.keys(v1.paths), ['/', '/children', '/rpc/get_parents_below']);
    t.strictSame(v1.info, { description: 'This is a dynamic API generated by dbrest', title: 'dbrest API', version: doc.info.version }, 'no comment on v1');
  });

  t.test('OpenAPI 3.1 by Accept: the same API, valid', async (t) => {
    const res = await get({ Accept: 'application/openapi+json;version=3.1' });
    t.equal(res.headers['content-type'], OPENAPI_31);
    const d = res.json();
    t.equal(d.openapi, '3.1.0');
    t.strictSame(d.servers, [{ url: `http://127.0.0.1:${s.config.serverPort}` }]);
    t.strictSame(d.info, doc.info);
    t.strictSame(Object.keys(d.paths), Object.keys(doc.paths));
    t.strictSame(Object.keys(d.components.schemas), Object.keys(doc.definitions).map(componentName), 'the same rows, under names 3.x allows');
    t.strictSame(d.components.schemas.child_entities.properties.name.type, ['string', 'null']);
    t.strictSame(d.paths['/child_entities'].post.requestBody, { $ref: '#/components/requestBodies/body.child_entities' });
    t.notOk(d.paths['/authors_only'], 'privileges followed here too');
    const v = await validate(d);
    t.equal(v.version, '3.1');
    t.equal(v.valid, true, 'valid', { errors: v.errors });
    const v20 = await get({ Accept: 'application/openapi+json;version=2.0' });
    t.equal(v20.json().swagger, '2.0');
  });
});

t.test('openapi-mode = ignore-privileges: everything of the schema', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'openapi.sql')],
    config: { 'db-anon-role': 'openapi_anon', 'openapi-mode': 'ignore-privileges' },
  });
  const res = await s.request('/', { headers: { Accept: 'application/openapi+json' } });
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], OPENAPI_20);
  t.notOk(res.headers['content-profile'], 'one schema: no Content-Profile');
  const doc = res.json();
  t.strictSame(doc.paths['/authors_only'].post.tags, ['authors_only']);
  t.strictSame(doc.paths['/rpc/privileged_hello'].post.tags, ['(rpc) privileged_hello']);
  t.equal(doc.info.title, 'My API title');
  t.equal(doc.paths['/grandchild_entities'].get.summary, 'grandchild_entities summary');
  const v = await validate(doc);
  t.equal(v.valid, true, 'valid', { errors: v.errors });
});

t.test('openapi-mode = disabled: 404 DBRST126', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'openapi.sql')],
    config: { 'db-anon-role': 'openapi_anon', 'openapi-mode': 'disabled' },
  });
  const res = await s.request('/', { headers: { Accept: 'application/openapi+json' } });
  t.equal(res.status, 404);
  t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST126');
  t.same(res.json(), { code: 'DBRST126', details: null, hint: null, message: 'Root endpoint metadata is disabled' });
});

t.test('openapi-server-proxy-uri, openapi-security-active, openapi-version = 3.1', async (t) => {
  const db = await createTestDatabase([fixture('sql', 'openapi.sql')]);
  t.teardown(() => db.drop());
  const s = await startTestServer(t, {
    db,
    config: {
      'db-anon-role': 'openapi_anon',
      'openapi-server-proxy-uri': 'https://postgrest.com/openapi',
      'openapi-security-active': 'true',
      'openapi-version': '3.1',
    },
  });

  t.test('3.1 is the default: servers from the proxy URI, bearer security', async (t) => {
    for (const accept of ['application/json', 'application/openapi+json', '*/*']) {
      const res = await s.request('/', { headers: { Accept: accept } });
      t.equal(res.headers['content-type'], OPENAPI_31, accept);
    }
    const d = (await s.request('/')).json();
    t.equal(d.openapi, '3.1.0');
    t.strictSame(d.servers, [{ url: 'https://postgrest.com/openapi' }]);
    t.strictSame(d.security, [{ JWT: [] }]);
    t.strictSame(d.components.securitySchemes.JWT, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A JWT sent as `Authorization: Bearer <token>`' });
    const v = await validate(d);
    t.equal(v.valid, true, 'valid', { errors: v.errors });
  });

  t.test('2.0 by name: host/basePath/schemes from the proxy URI, JWT security (SecurityOpenApiSpec)', async (t) => {
    const res = await s.request('/', { headers: { Accept: 'application/openapi+json;version=2.0' } });
    t.equal(res.headers['content-type'], OPENAPI_20);
    const d = res.json();
    t.equal(d.host, 'postgrest.com:443');
    t.equal(d.basePath, '/openapi');
    t.strictSame(d.schemes, ['https']);
    t.strictSame(d.security, [{ JWT: [] }]);
    t.strictSame(d.securityDefinitions, {
      JWT: { description: 'Add the token prepending "Bearer " (without quotes) to it', in: 'header', name: 'Authorization', type: 'apiKey' },
    });
    const v = await validate(d);
    t.equal(v.valid, true, 'valid (ProxySpec)', { errors: v.errors });
  });
});

t.test('db-pre-request runs for the root path too', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [
      fixture('sql', 'openapi.sql'),
      `CREATE FUNCTION public.refuse_root() RETURNS void LANGUAGE plpgsql AS $$
       BEGIN
         IF current_setting('request.path', true) = '/' THEN RAISE EXCEPTION 'no root for you' USING ERRCODE = 'P0001'; END IF;
       END $$;
       GRANT EXECUTE ON FUNCTION public.refuse_root() TO openapi_anon;`,
    ],
    config: { 'db-anon-role': 'openapi_anon', 'db-pre-request': 'public.refuse_root' },
  });
  const res = await s.request('/');
  t.equal(res.status, 400);
  t.equal(res.json().message, 'no root for you');
});
