// server-docs-path: its values (a path; false or "" for off; true for /_docs), the mount prefixes it
// may not sit on, and its default, which depends on whether the embedded database runs.
import t from 'tap';
import { DEFAULT_CONFIG, keyByField } from '../../../src/config/keys.js';
import { loadConfig } from '../../../src/config/load.js';
import type { AppConfig, RouteGroup } from '../../../src/config/types.js';
import { coerceValue, docsPathCollision, parseRoutes, validateConfig } from '../../../src/config/validate.js';
import { embeddedConfig } from '../../../src/embedded/default.js';

const coerce = (raw: unknown) => coerceValue(keyByField('serverDocsPath'), raw);

function routes(raw: unknown): RouteGroup[] {
  const r = parseRoutes(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

t.test('values', async (t) => {
  t.same(coerce(null), { ok: true, value: null }, 'unset: null (the default decides)');
  for (const off of ['', false, 'false', 'off', 'OFF']) t.same(coerce(off), { ok: true, value: '' }, `${JSON.stringify(off)}: off`);
  for (const on of [true, 'true']) t.same(coerce(on), { ok: true, value: '/_docs' }, `${JSON.stringify(on)}: /_docs`);
  t.same(coerce('/explorer'), { ok: true, value: '/explorer' });
  t.same(coerce('/dev/explorer/'), { ok: true, value: '/dev/explorer' }, 'a trailing slash is dropped');
  for (const bad of ['docs', '/', '//x', '/a/../b', '/a/./b', '/has space', '/a?b', '/%2e%2e', 3]) {
    const c = coerce(bad);
    t.notOk(c.ok, `${JSON.stringify(bad)} is refused`);
    if (!c.ok) t.match(c.issues[0]!.message, /must start with \/|not a plain path|expected a path/);
  }
});

t.test('from the environment: DBREST_SERVER_DOCS_PATH="" is off, not unset', async (t) => {
  const load = (v: string) => loadConfig({ cwd: process.cwd(), env: { DBREST_SERVER_DOCS_PATH: v }, flags: {}, search: false });
  t.equal((await load('')).config.serverDocsPath, '');
  t.equal((await load('/x')).config.serverDocsPath, '/x');
  const bad = await load('x');
  t.match(bad.problems, [{ key: 'server-docs-path', message: /must start with \// }]);
});

t.test('not on a mount prefix, nor under one, nor above one; nor over an ungrouped mount', async (t) => {
  const groups = routes([
    { prefix: '/api/v2', routes: [{ method: 'GET', path: '/pages', call: 'pages' }] },
    [{ method: 'GET', path: '/status/:id', call: 'status' }],
  ].flat());
  t.match(docsPathCollision('/api/v2', groups), /mount prefix \/api\/v2/);
  t.match(docsPathCollision('/api/v2/docs', groups), /mount prefix \/api\/v2/);
  t.match(docsPathCollision('/api', groups), /mount prefix \/api\/v2/);
  t.match(docsPathCollision('/status', groups), /mount \/status\/:id/);
  t.equal(docsPathCollision('/api/v22', groups), null, 'a prefix of the name is not a prefix of the path');
  t.equal(docsPathCollision('/_docs', groups), null);
  const cfg: AppConfig = { ...DEFAULT_CONFIG, routes: groups, serverDocsPath: '/api/v2/explorer' };
  t.match(validateConfig(cfg), [{ key: 'server-docs-path', message: /collides with the mount prefix \/api\/v2/ }]);
  t.same(validateConfig({ ...cfg, serverDocsPath: '/explorer' }), []);
});

t.test('the default: /_docs with the embedded database, off with a db-uri', async (t) => {
  t.equal(DEFAULT_CONFIG.serverDocsPath, null, 'unset in the key table');
  const reports: string[] = [];
  const embedded = embeddedConfig(DEFAULT_CONFIG, 'postgres://x@localhost/db', (m) => void reports.push(m));
  t.equal(embedded.serverDocsPath, '/_docs');
  t.equal(embeddedConfig({ ...DEFAULT_CONFIG, serverDocsPath: '' }, 'postgres://x@localhost/db', () => undefined).serverDocsPath, '', 'off stays off');
  t.equal(embeddedConfig({ ...DEFAULT_CONFIG, serverDocsPath: '/x' }, 'postgres://x@localhost/db', () => undefined).serverDocsPath, '/x');
  // The examples' mounts come with the embedded default: a docs path over one of them is turned off, and said.
  const onMount = embeddedConfig({ ...DEFAULT_CONFIG, serverDocsPath: '/api/v2/docs' }, 'postgres://x@localhost/db', (m) => void reports.push(m));
  t.equal(onMount.serverDocsPath, '');
  t.match(reports.at(-1), /server-docs-path: .*collides with the mount prefix \/api\/v2.*explorer is off/);
});
