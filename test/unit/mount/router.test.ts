// The pure parts of route mounts: templates, the router's matching (typed segments, tails, trailing
// slashes, 405 vs 404, prefixes), argument binding and media-type checks.
import t from 'tap';
import type { Routine } from '../../../src/catalog/types.js';
import type { RouteGroup, RouteMount } from '../../../src/config/types.js';
import { bindArguments, checkBodyType, negotiateProduces, queryJson, queryObject } from '../../../src/mount/bind.js';
import { parseSource, type Binding, type ResolvedGroup } from '../../../src/mount/check.js';
import { buildMountTable } from '../../../src/mount/router.js';
import { joinPaths, parseTemplate } from '../../../src/mount/template.js';
import { parseAccept, parseContentType } from '../../../src/request/media-type.js';

t.test('templates', async (t) => {
  const ok = parseTemplate('/api/things/:id(int)/parts/*rest/');
  t.ok(ok.ok);
  if (ok.ok) {
    t.equal(ok.value.text, '/api/things/:id(int)/parts/*rest', 'a trailing slash means nothing');
    t.same(ok.value.segments, [
      { kind: 'static', text: 'api' }, { kind: 'static', text: 'things' }, { kind: 'param', name: 'id', type: 'int' },
      { kind: 'static', text: 'parts' }, { kind: 'tail', name: 'rest' },
    ]);
  }
  const bad = (p: string) => {
    const r = parseTemplate(p);
    return r.ok ? 'ok' : r.message;
  };
  t.match(bad('things'), /must start with/);
  t.match(bad('/a//b'), /empty segment/);
  t.match(bad('/a/:1x'), /a parameter is/);
  t.match(bad('/a/:id(date)'), /unknown segment type "date"/);
  t.match(bad('/a/*rest/b'), /tail must be the last/);
  t.match(bad('/a/:id/b/:id'), /appears twice/);
  t.match(bad('/a/x:y'), /may only start a segment/);
  t.equal(joinPaths('/api/v2/', '/pages'), '/api/v2/pages');
  t.equal(joinPaths('/api/v2', '/'), '/api/v2');
  t.equal(joinPaths('', '/'), '/');
});

const routine = { schema: 's', name: 'f' } as Routine;
function group(prefix: string, mounts: Array<Partial<RouteMount> & { path: string; methods: string[] }>): ResolvedGroup {
  const g: RouteGroup = { prefix, schema: null, errorHandler: null, preRequest: null, produces: [], consumes: [], routes: [] };
  return {
    group: g,
    where: 'routes',
    errorHandler: null,
    mounts: mounts.map((m, i) => ({
      kind: 'call',
      group: g,
      mount: { target: { kind: 'call', name: 'f' }, args: {}, produces: null, consumes: null, ...m },
      where: `routes[${i}]`,
      routine,
      bindings: [],
    })),
  };
}

t.test('matching', async (t) => {
  const table = buildMountTable([
    group('/api', [
      { methods: ['GET', 'DELETE'], path: '/api/items/:id(int)' },
      { methods: ['GET'], path: '/api/items/find' },
      { methods: ['GET'], path: '/api/ids/:id(uuid)' },
      { methods: ['POST'], path: '/api/files/*rest' },
      { methods: ['HEAD'], path: '/api/ping' },
    ]),
    group('', [{ methods: ['GET'], path: '/hello/:name' }]),
  ]);
  const m = (method: string, path: string) => table.match(method, path);
  t.match(m('GET', '/api/items/12'), { kind: 'mount', params: { id: '12' } });
  t.match(m('GET', '/api/items/12/'), { kind: 'mount', params: { id: '12' } }, 'trailing slash');
  t.match(m('HEAD', '/api/items/12'), { kind: 'mount' }, 'HEAD for a GET mount');
  t.match(m('GET', '/api/items/find'), { kind: 'mount', params: {} }, 'a static segment wins over a parameter');
  t.match(m('GET', '/api/items/x1'), { kind: 'none' }, 'a typed segment that does not fit is no match');
  t.match(m('PUT', '/api/items/12'), { kind: 'method', allow: ['GET', 'HEAD', 'DELETE'] });
  t.match(m('GET', '/api/ids/0f8fad5b-d9cb-469f-a165-70867728950e'), { kind: 'mount' });
  t.match(m('GET', '/api/ids/12'), { kind: 'none' });
  t.match(m('POST', '/api/files/a/b%20c'), { kind: 'mount', params: { rest: 'a/b c' } }, '*rest, decoded, named as in the template');
  t.match(m('GET', '/api/ping'), { kind: 'method', allow: ['HEAD'] }, 'a HEAD mount is not a GET mount');
  t.match(m('GET', '/api'), { kind: 'none' }, 'the prefix itself belongs to the group');
  t.match(m('GET', '/api/%E0%A4%A'), { kind: 'none' }, 'bad percent-encoding matches nothing');
  t.equal(m('GET', '/apix'), null, 'not under the prefix: PostgREST\'s');
  t.equal(m('GET', '/hello'), null, 'a group without prefix claims only its own paths');
  t.match(m('GET', '/hello/ann'), { kind: 'mount', params: { name: 'ann' } });
});

t.test('binding', async (t) => {
  const b = (name: string, src: string, type = 'text', extra: Partial<Binding> = {}): Binding => ({ name, type, source: parseSource(src), hasDefault: false, list: false, ...extra });
  const input = {
    method: 'POST',
    params: { id: '7' },
    query: [['q', 'a'], ['q', 'b'], ['n', '1']] as Array<[string, string]>,
    headers: { 'x-user': 'u1' },
    cookies: { sid: 'c1' },
    body: Buffer.from('{"k":1}'),
    media: 'application/xml',
  };
  const bound = bindArguments([
    b('id', 'path.id', 'integer'), b('q', 'query.q'), b('qs', 'query.q', 'text[]', { list: true }), b('all', 'query', 'jsonb'),
    b('u', 'header.X-User'), b('c', 'cookie.sid'), b('body', 'body', 'jsonb'), b('m', 'method'), b('t', 'media'),
    b('missing', 'query.zzz'), b('optional', 'query.yyy', 'text', { hasDefault: true }),
  ], input);
  t.ok(bound.ok);
  if (bound.ok) {
    t.same(Object.fromEntries(bound.value), {
      id: '7', q: 'a', qs: ['a', 'b'], all: '{"q":["a","b"],"n":"1"}', u: 'u1', c: 'c1', body: '{"k":1}', m: 'POST', t: 'application/xml', missing: null,
    });
    t.notOk(bound.value.has('optional'), 'an absent optional argument is left to its default');
  }
  const badJson = bindArguments([b('body', 'body', 'json')], { ...input, body: Buffer.from('{"k":') });
  t.match(badJson, { ok: false, error: { code: 'DBRST102', status: 400 } });
  const bytes = bindArguments([b('raw', 'body', 'bytea')], { ...input, body: Buffer.from([0, 255]) });
  t.ok(bytes.ok && Buffer.isBuffer(bytes.value.get('raw')), 'bytea gets the bytes');
  t.same(queryObject([['a', '1'], ['a', '2'], ['a', '3'], ['b', '']]), { a: ['1', '2', '3'], b: '' });
  t.equal(queryJson([['b', '1'], ['2', 'x'], ['b', '3'], ['a', '"']]), '{"b":["1","3"],"2":"x","a":"\\""}', 'keys in first-occurrence order, integer-like ones too');
});

t.test('body media types (415)', async (t) => {
  const body = (type: string): Binding[] => [{ name: 'b', type, source: { kind: 'body' }, hasDefault: false, list: false }];
  const ct = (s: string) => parseContentType(s);
  t.ok(checkBodyType(body('jsonb'), [], ct('application/json'), true).ok);
  t.ok(checkBodyType(body('jsonb'), [], ct('application/vnd.x.Thing+json'), true).ok);
  t.ok(checkBodyType(body('jsonb'), [], null, true).ok, 'no Content-Type is JSON, as PostgREST assumes');
  t.match(checkBodyType(body('jsonb'), [], ct('text/plain'), true), { ok: false, error: { status: 415, code: 'DBRST602' } });
  t.ok(checkBodyType(body('xml'), [], ct('text/xml'), true).ok);
  t.notOk(checkBodyType(body('xml'), [], ct('application/json'), true).ok);
  t.ok(checkBodyType(body('text'), [], ct('text/csv'), true).ok);
  t.ok(checkBodyType(body('text'), ['text/*'], ct('text/csv'), true).ok);
  t.notOk(checkBodyType(body('text'), ['text/plain'], ct('text/csv'), true).ok, 'consumes decides when set');
  t.ok(checkBodyType(body('text'), ['text/plain'], ct('text/csv'), false).ok, 'no body, nothing to refuse');
  t.ok(checkBodyType([], ['text/plain'], ct('text/csv'), true).ok, 'a body nobody binds is ignored');
});

t.test('produces negotiation', async (t) => {
  const n = (accept: string | undefined, produces = ['application/json', 'application/xml']) => negotiateProduces(parseAccept(accept), produces)?.offer ?? null;
  t.equal(n(undefined), 'application/json', 'no Accept: the first');
  t.equal(n('*/*'), 'application/json');
  t.equal(n('application/*'), 'application/json');
  t.equal(n('application/xml'), 'application/xml');
  t.equal(n('text/xml'), 'application/xml', 'text/xml is XML too');
  t.equal(n('application/vnd.cms.api.BookmarkList+xml'), 'application/xml', '+xml suffix');
  t.equal(n('application/vnd.cms.api.BookmarkList+json'), 'application/json', '+json suffix');
  t.equal(n('application/json;q=0.4, application/xml;q=0.9'), 'application/xml', 'q-values');
  t.equal(n('text/html, application/xml;q=0.1'), 'application/xml', 'the first range that fits decides');
  t.equal(n('text/html'), null);
  t.equal(n('application/json;q=0'), null, 'q=0 refuses');
  t.equal(n('application/xml', ['text/xml']), 'text/xml');
});
