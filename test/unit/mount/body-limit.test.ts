// Route mounts' body limits: sizes as written, the keys' validation, and which limit a request gets.
import t from 'tap';
import { parseByteSize } from '../../../src/config/byte-size.js';
import { parseRoutes } from '../../../src/config/validate.js';
import type { RouteGroup, RouteMount } from '../../../src/config/types.js';
import { mountBodyLimit } from '../../../src/mount/body-limit.js';
import { parseContentType } from '../../../src/request/media-type.js';

t.test('sizes', async (t) => {
  t.equal(parseByteSize(65536), 65536);
  t.equal(parseByteSize('65536'), 65536);
  t.equal(parseByteSize('64KB'), 65536);
  t.equal(parseByteSize('64 kib'), 65536);
  t.equal(parseByteSize('1.5MB'), 1572864);
  t.equal(parseByteSize('1GB'), 1024 ** 3);
  t.equal(parseByteSize('10B'), 10);
  for (const bad of [0, -1, 1.5, '0', 'lots', '12 parsecs', '', 'KB', null, true, {}]) t.equal(parseByteSize(bad), null, JSON.stringify(bad));
});

t.test('the route keys are parsed and checked', async (t) => {
  const ok = parseRoutes([{
    prefix: '/api', 'max-body-size': '64KB', 'max-body-size-by-media': { 'Application/XML': '1KB', 'text/*': 2048 },
    routes: [{ method: 'POST', path: '/a', call: 'f', 'max-body-size': 100, 'max-body-size-by-media': { 'application/xml': '2KB' } }],
  }]);
  t.ok(ok.ok);
  if (ok.ok) {
    const g = ok.value[0]!;
    t.equal(g.maxBodySize, 65536);
    t.same(g.maxBodySizeByMedia, { 'application/xml': 1024, 'text/*': 2048 });
    t.equal(g.routes[0]!.maxBodySize, 100);
    t.same(g.routes[0]!.maxBodySizeByMedia, { 'application/xml': 2048 });
  }
  const bad = parseRoutes([{
    prefix: '/api', 'max-body-size': 'big', 'max-body-size-by-media': { 'not a type': '1KB', 'application/xml': 'x' },
    routes: [{ method: 'POST', path: '/a', call: 'f', 'max-body-size-by-media': ['application/xml'] }],
  }]);
  t.notOk(bad.ok);
  if (!bad.ok) {
    t.same(bad.issues.map((i) => i.path), [
      '[0].max-body-size', '[0].max-body-size-by-media', '[0].max-body-size-by-media.application/xml', '[0].routes[0].max-body-size-by-media',
    ]);
    t.match(bad.issues[0]!.message, /must be a size like 65536, "64KB" or "1MB", got "big"/);
  }
  const unset = parseRoutes([{ prefix: '/api', routes: [{ method: 'GET', path: '/a', call: 'f' }] }]);
  t.ok(unset.ok && !('maxBodySize' in unset.value[0]!) && !('maxBodySize' in unset.value[0]!.routes[0]!), 'absent when not set');
});

t.test('which limit a request gets', async (t) => {
  const group = { prefix: '/api', maxBodySize: 4096, maxBodySizeByMedia: { 'application/xml': 1024, 'text/*': 2048 } } as unknown as RouteGroup;
  const mount = { maxBodySize: 65536, maxBodySizeByMedia: { 'application/xml': 16384 } } as unknown as RouteMount;
  const limit = (g: RouteGroup, m: RouteMount | null, ct: string | undefined) => mountBodyLimit(g, m, ct === undefined ? null : parseContentType(ct), ct, 100);
  t.same(limit(group, null, undefined), { bytes: 4096, setBy: 'max-body-size of the route group' });
  t.same(limit(group, null, 'application/json'), { bytes: 4096, setBy: 'max-body-size of the route group' });
  t.same(limit(group, null, 'application/xml; charset=utf-8'), { bytes: 1024, setBy: 'max-body-size-by-media "application/xml" of the route group' });
  t.equal(limit(group, null, 'application/vnd.x+xml').bytes, 1024, '+xml is XML');
  t.equal(limit(group, null, 'text/xml').bytes, 1024, 'text/xml is XML: the application/xml entry, before text/*');
  t.equal(limit(group, null, 'text/vnd.x+xml').bytes, 1024);
  t.equal(limit(group, null, 'text/plain').bytes, 2048);
  t.equal(limit(group, null, 'a b c').bytes, 1024, 'an unreadable Content-Type: the smallest');
  t.same(limit(group, mount, 'text/plain'), { bytes: 2048, setBy: 'max-body-size-by-media "text/*" of the route group' });
  t.same(limit(group, mount, 'application/xml'), { bytes: 16384, setBy: 'max-body-size-by-media "application/xml" of the route' });
  t.same(limit(group, mount, 'application/json'), { bytes: 65536, setBy: 'max-body-size of the route' });
  t.same(limit({ prefix: '' } as unknown as RouteGroup, null, 'application/xml'), { bytes: 100, setBy: 'server-max-body-size' });
});
