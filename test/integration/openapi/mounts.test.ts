// Route mounts in the root document (engine spec §5) over HTTP: the shop API of
// test/integration/mounts (plus a group with uuid/number segments, a bytea body and a function the
// anonymous role may not execute) in Swagger 2.0 and OpenAPI 3.1, both through an OpenAPI
// validator, with exact operations for path, query (array), header and cookie parameters, bodies,
// media types and a relation mount; openapi-mode and the schema whose document has the mounts.
import { Validator } from '@seriousme/openapi-schema-validator';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { SHOP_ROUTES, startMountServer } from '../mounts/mount-server.js';

const EXTRA = {
  prefix: '/api/extra',
  schema: 'shop',
  routes: [
    { method: 'POST', path: '/price/:ref(uuid)/:amount(number)', call: 'price_check', args: { ref: 'path.ref', amount: 'path.amount', blob: 'body' } },
    { method: 'GET', path: '/note', call: 'staff_note' },
  ],
};
const ROUTES = JSON.stringify([...SHOP_ROUTES, EXTRA]);
const V31 = { Accept: 'application/openapi+json;version=3.1' };

async function validate(doc: Record<string, unknown>): Promise<{ valid: boolean; version: string; errors: unknown }> {
  const v = new Validator();
  const res = await v.validate(doc);
  return { valid: res.valid, version: v.version, errors: res.errors };
}

const TAIL = 'The rest of the path: one or more segments, slashes included';
const ERROR = { description: 'Error' };

t.test('mounts in the documents (follow-privileges, as mount_anon)', async (t) => {
  const s = await startMountServer(t, { routes: ROUTES });
  const res20 = await s.request('/');
  t.equal(res20.status, 200);
  const d = res20.json();
  const res31 = await s.request('/', { headers: V31 });
  t.equal(res31.status, 200);
  const e = res31.json();

  t.test('both documents are valid', async (t) => {
    const v20 = await validate(d);
    t.equal(v20.version, '2.0');
    t.equal(v20.valid, true, 'Swagger 2.0 valid', { errors: v20.errors });
    const v31 = await validate(e);
    t.equal(v31.version, '3.1');
    t.equal(v31.valid, true, 'OpenAPI 3.1 valid', { errors: v31.errors });
  });

  t.test('paths: every resolved mount the role may call, in configuration order; not the broken one', async (t) => {
    const expected = [
      '/', '/hello/{name}', '/api/shop/echo/{p}', '/api/shop/items', '/api/shop/items/{id}', '/api/shop/items/{id}/repr', '/api/shop/repr',
      '/api/shop/find', '/api/shop/login/{who}', '/api/shop/files/{rest}', '/api/shop/xml-name', '/api/shop/shout',
      '/api/shop/fail/{name}', '/api/shop/stock', '/api/shop/stock/{id}', '/api/shop/teapot', '/api/extra/price/{ref}/{amount}',
    ];
    t.strictSame(Object.keys(d.paths), expected);
    t.strictSame(Object.keys(e.paths), expected);
    t.notOk(d.paths['/api/shop/broken'], 'a broken mount is left out');
    t.notOk(d.paths['/api/extra/note'], 'staff_note: mount_anon has no EXECUTE');
    t.strictSame(Object.keys(d.paths['/api/shop/echo/{p}']), ['get', 'post', 'put'], 'one operation per method; HEAD goes with GET');
    t.strictSame(d.paths['/hello/{name}'].get.tags, ['/'], 'mounts outside a group: tag /');
    t.strictSame(d.paths['/api/shop/items'].get.tags, ['/api/shop']);
  });

  t.test('2.0: path, query (array), header parameters; cookies and the whole query left out', async (t) => {
    t.strictSame(d.paths['/api/shop/echo/{p}'].get, {
      tags: ['/api/shop'],
      parameters: [
        { name: 'p', in: 'path', required: true, type: 'string' },
        { name: 'q', in: 'query', required: true, type: 'string', format: 'text' },
        { name: 'X-Thing', in: 'header', required: true, type: 'string', format: 'text' },
        { name: 'n', in: 'query', required: false, type: 'array', items: { type: 'integer', format: 'integer' }, collectionFormat: 'multi' },
        { name: 'opt', in: 'query', required: false, type: 'string', format: 'text' },
      ],
      produces: ['application/json'], // the group's XML left out: echo returns json, XML would be a 406
      responses: { 200: { description: 'OK' }, default: ERROR },
    });
  });

  t.test('2.0: typed path parameters, the comment, 204 for a void function, a tail', async (t) => {
    t.strictSame(d.paths['/api/shop/items/{id}'].get, {
      tags: ['/api/shop'],
      summary: 'One item',
      description: 'By its id; 404 when there is none.',
      parameters: [{ name: 'id', in: 'path', required: true, type: 'integer' }],
      produces: ['application/json'], // item_get answers Accept: application/xml with 406 (mounts.test.ts)
      responses: { 200: { description: 'OK' }, default: ERROR },
    });
    t.strictSame(d.paths['/api/shop/items/{id}'].delete.responses, { 204: { description: 'No Content' }, default: ERROR });
    t.strictSame(d.paths['/api/shop/files/{rest}'].get.parameters, [{ name: 'rest', in: 'path', description: TAIL, required: true, type: 'string' }]);
    t.strictSame(d.paths['/api/extra/price/{ref}/{amount}'].post, {
      tags: ['/api/extra'],
      parameters: [
        { name: 'ref', in: 'path', required: true, type: 'string', format: 'uuid' },
        { name: 'amount', in: 'path', required: true, type: 'number' },
        { name: 'blob', required: false, in: 'body', schema: { type: 'string', format: 'binary' } },
      ],
      consumes: ['application/octet-stream'],
      produces: ['application/json'],
      responses: { 200: { description: 'OK' }, default: ERROR },
    });
  });

  t.test('2.0: bodies in their media types (consumes, or by the argument type)', async (t) => {
    const create = d.paths['/api/shop/items'].post;
    t.strictSame(create.parameters, [{ name: 'body', required: true, in: 'body', schema: {} }]);
    t.strictSame(create.consumes, ['application/json']);
    t.strictSame(create.responses, { 204: { description: 'No Content' }, default: ERROR });
    t.strictSame(d.paths['/api/shop/items'].get.parameters, [{ name: 'limit', in: 'query', required: false, type: 'integer', format: 'integer' }]);
    t.strictSame(d.paths['/api/shop/xml-name'].post.parameters, [{ name: 'doc', required: true, in: 'body', schema: { type: 'string', format: 'xml' } }]);
    t.strictSame(d.paths['/api/shop/xml-name'].post.consumes, ['application/xml']);
    t.strictSame(d.paths['/api/shop/shout'].post.consumes, ['text/plain'], "the mount's own consumes");
    t.strictSame(d.paths['/hello/{name}'].get.produces, ['application/json'], 'no produces: JSON');
  });

  t.test('2.0: relation mounts as table paths, bound columns as path parameters', async (t) => {
    t.strictSame(Object.keys(d.paths['/api/shop/stock']), ['get', 'post', 'patch', 'delete'], 'PUT is not listed, as for tables');
    t.strictSame(Object.keys(d.paths['/api/shop/stock/{id}']), ['get', 'patch']);
    const get = d.paths['/api/shop/stock/{id}'].get;
    t.strictSame(get.parameters, [
      { name: 'id', in: 'path', required: true, type: 'integer' },
      { $ref: '#/parameters/rowFilter.shop.items.name' },
      { $ref: '#/parameters/rowFilter.shop.items.qty' },
      ...['select', 'order', 'range', 'rangeUnit', 'offset', 'limit', 'preferCount'].map((k) => ({ $ref: `#/parameters/${k}` })),
    ]);
    t.strictSame(get.responses, { 200: { description: 'OK', schema: { items: { $ref: '#/definitions/shop.items' }, type: 'array' } }, 206: { description: 'Partial Content' } });
    t.strictSame(get.produces, ['application/json'], "the group's XML left out: shop.items has no XML handler, so XML is a 406");
    t.strictSame(d.paths['/api/shop/stock/{id}'].patch.parameters.slice(-2), [{ $ref: '#/parameters/body.shop.items' }, { $ref: '#/parameters/preferReturn' }]);
    t.strictSame(d.paths['/api/shop/stock'].get.parameters.slice(0, 3), [
      { $ref: '#/parameters/rowFilter.shop.items.id' },
      { $ref: '#/parameters/rowFilter.shop.items.name' },
      { $ref: '#/parameters/rowFilter.shop.items.qty' },
    ]);
    t.strictSame(Object.keys(d.definitions), ['shop.items'], 'the relation outside db-schemas: a definition named schema.name');
    t.strictSame(d.definitions['shop.items'].required, ['id', 'name', 'qty']);
    t.strictSame(d.parameters['body.shop.items'], { name: 'items', description: 'items', required: false, in: 'body', schema: { $ref: '#/definitions/shop.items' } });
  });

  t.test('3.1: cookie parameters and the whole query; request bodies; response content', async (t) => {
    const echo = e.paths['/api/shop/echo/{p}'].get;
    t.strictSame(echo.parameters, [
      { name: 'p', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'q', in: 'query', required: true, schema: { type: 'string', format: 'text' } },
      {
        name: 'p_all', in: 'query', description: 'Every query parameter, as one JSON object (a repeated one as an array of its values)', required: false,
        schema: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } }, style: 'form', explode: true,
      },
      { name: 'X-Thing', in: 'header', required: true, schema: { type: 'string', format: 'text' } },
      { name: 'session', in: 'cookie', required: true, schema: { type: 'string', format: 'text' } },
      { name: 'n', in: 'query', required: false, schema: { type: 'array', items: { type: 'integer', format: 'integer' } }, style: 'form', explode: true },
      { name: 'opt', in: 'query', required: false, schema: { type: 'string', format: 'text' } },
    ]);
    t.strictSame(echo.responses, { 200: { description: 'OK', content: { 'application/json': {} } }, default: ERROR });
    t.strictSame(e.paths['/api/shop/items'].post.requestBody, { required: true, content: { 'application/json': { schema: {} } } });
    t.strictSame(e.paths['/api/shop/shout'].post.requestBody, { required: true, content: { 'text/plain': { schema: { type: 'string' } } } });
    t.strictSame(e.paths['/api/extra/price/{ref}/{amount}'].post.requestBody, {
      required: false,
      content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    });
    t.strictSame(e.paths['/api/extra/price/{ref}/{amount}'].post.parameters[0], { name: 'ref', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });
    t.strictSame(e.paths['/api/shop/files/{rest}'].get.parameters, [{ name: 'rest', in: 'path', description: TAIL, required: true, schema: { type: 'string' } }]);
    t.equal(e.paths['/api/shop/items/{id}'].get.summary, 'One item');
  });

  t.test('3.1: relation mounts', async (t) => {
    const get = e.paths['/api/shop/stock/{id}'].get;
    t.strictSame(get.parameters.slice(0, 2), [
      { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
      { $ref: '#/components/parameters/rowFilter.shop.items.name' },
    ]);
    t.strictSame(get.responses[200], {
      description: 'OK',
      content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/shop.items' } } } },
    });
    t.strictSame(e.paths['/api/shop/stock/{id}'].patch.requestBody, { $ref: '#/components/requestBodies/body.shop.items' });
    t.ok(e.components.schemas['shop.items']);
    t.ok(e.components.parameters['rowFilter.shop.items.qty']);
  });

  t.test('`dbrest openapi` prints the same mounts (the routes from the environment)', async (t) => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-openapi-mounts-'));
    t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
    // Run without blocking this process: its in-process server must keep serving (a blocked event
    // loop outlives keep-alive and the next request meets a closed socket).
    const r = await promisify(execFile)(process.execPath, [path.resolve(process.cwd(), 'bin', 'dbrest.js'), 'openapi'], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', DBREST_DB_URI: s.db.uri, DBREST_DB_ANON_ROLE: 'mount_anon', DBREST_ROUTES: ROUTES },
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const doc = JSON.parse(r.stdout);
    t.strictSame(Object.keys(doc.paths), Object.keys(d.paths), 'follow-privileges as db-anon-role');
    t.strictSame(doc.paths['/api/shop/stock/{id}'], d.paths['/api/shop/stock/{id}']);
    t.strictSame(doc.definitions, d.definitions);
  });

  t.test('the documented operations answer as documented', async (t) => {
    const item = await s.request('/api/shop/items/1');
    t.equal(item.status, 200);
    t.equal(item.json().name, 'apple');
    const stock = await s.request('/api/shop/stock/3?select=name');
    t.equal(stock.status, 200);
    t.strictSame(stock.json(), [{ name: 'plum' }]);
    const asXml = await s.request('/api/shop/stock/3', { headers: { Accept: 'application/xml' } });
    t.equal(asXml.status, 406, 'XML, which the document does not list for the relation mount, is refused');
  });
});

t.test('ignore-privileges: every resolved mount', async (t) => {
  const s = await startMountServer(t, { routes: ROUTES, 'openapi-mode': 'ignore-privileges' });
  const d = (await s.request('/')).json();
  t.strictSame(d.paths['/api/extra/note'], {
    get: { tags: ['/api/extra'], produces: ['application/json'], responses: { 200: { description: 'OK' }, default: ERROR } },
  });
  t.notOk(d.paths['/api/shop/broken']);
  const v = await validate((await s.request('/', { headers: V31 })).json());
  t.equal(v.valid, true, 'OpenAPI 3.1 valid', { errors: v.errors });
});

t.test("the default schema's document has the mounts; another schema's does not", async (t) => {
  const s = await startMountServer(t, { routes: ROUTES, 'db-schemas': 'public,shop' });
  const d = (await s.request('/')).json();
  t.ok(d.paths['/api/shop/echo/{p}']);
  const shop = await s.request('/', { headers: { 'Accept-Profile': 'shop' } });
  t.equal(shop.status, 200);
  t.equal(shop.headers['content-profile'], 'shop');
  const paths = Object.keys(shop.json().paths);
  t.notOk(paths.some((p) => p.startsWith('/api/')), 'no mounts');
  t.ok(paths.includes('/items'), "the schema's own table paths");
  t.ok(paths.includes('/rpc/item_get'));
});
