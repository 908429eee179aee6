// The test API for route mounts: the `shop` schema of mounts.sql mounted under /api/shop (with its
// own pre-request and error handler) plus a few loose mounts without a prefix.
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

export const SHOP_ROUTES = [
  { method: 'GET', path: '/hello/:name', call: 'shop.shout', args: { words: 'path.name' } },
  {
    prefix: '/api/shop',
    schema: 'shop',
    'pre-request': 'check_request',
    'error-handler': 'render_error',
    produces: ['application/json', 'application/xml'],
    routes: [
      {
        method: ['GET', 'POST', 'PUT'],
        path: '/echo/:p',
        call: 'echo',
        args: {
          p_path: 'path.p', p_query: 'query.q', p_all: 'query', p_header: 'header.X-Thing', p_cookie: 'cookie.session',
          p_method: 'method', p_list: 'query.n', p_opt: 'query.opt', p_media: 'media',
        },
      },
      { method: 'GET', path: '/items', call: 'item_list', args: { lim: 'query.limit' } },
      { method: 'POST', path: '/items', call: 'item_create', args: { body: 'body' } },
      { method: 'GET', path: '/items/:id(int)', call: 'item_get', args: { item_id: 'path.id' } },
      { method: 'DELETE', path: '/items/:id(int)', call: 'item_delete', args: { item_id: 'path.id' } },
      { method: 'GET', path: '/items/:id(int)/repr', call: 'item_repr', args: { item_id: 'path.id', media: 'media' } },
      { method: 'GET', path: '/repr', call: 'item_repr', args: { item_id: 'query.id', media: 'media' } },
      { method: 'GET', path: '/find', call: 'find', args: { name: 'query.name' } },
      { method: 'POST', path: '/login/:who', call: 'login', args: { who: 'path.who' } },
      { method: 'GET', path: '/files/*rest', call: 'file', args: { rest: 'path.rest' } },
      { method: 'POST', path: '/xml-name', call: 'xml_name', args: { doc: 'body' } },
      { method: 'POST', path: '/shout', call: 'shout', args: { words: 'body' }, consumes: ['text/plain'] },
      { method: 'POST', path: '/fail/:name', call: 'fail_after_write', args: { name: 'path.name' } },
      { path: '/stock', relation: 'items' },
      { method: ['GET', 'PATCH'], path: '/stock/:id(int)', relation: 'items', args: { id: 'path.id' } },
      { method: 'GET', path: '/broken', call: 'no_such_function' },
      { method: 'GET', path: '/teapot', call: 'teapot' },
    ],
  },
];

interface Teardown {
  teardown(fn: () => unknown): void;
}

export function startMountServer(t: Teardown, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'mounts.sql')],
    config: { 'db-anon-role': 'mount_anon', routes: JSON.stringify(SHOP_ROUTES), ...config },
  });
}
