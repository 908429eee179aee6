// Mounts checked against a real schema cache (mount/check.ts): each problem names its mount and
// offers a did-you-mean; a bad mount answers 500 in the group's shape while the others serve; and
// `dbrest check-config` runs the same checks when the database is reachable, and says so when not.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parseRoutes } from '../../../src/config/validate.js';
import type { RouteGroup } from '../../../src/config/types.js';
import { resolveMounts } from '../../../src/mount/check.js';
import { startMountServer } from './mount-server.js';

const groups = (raw: unknown): RouteGroup[] => {
  const parsed = parseRoutes(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
};

const BAD_ROUTES = {
  prefix: '/api/bad',
  schema: 'shop',
  'error-handler': 'render_eror',
  'pre-request': 'check_requst',
  routes: [
    { method: 'GET', path: '/a', call: 'item_lst' },
    { method: 'GET', path: '/b/:id', call: 'item_get', args: { itemid: 'path.id' } },
    { method: 'GET', path: '/c', call: 'item_get' },
    { method: 'GET', path: '/d/:id(uuid)', call: 'item_get', args: { item_id: 'path.id' } },
    { method: 'GET', path: '/e', call: 'echo', args: { p_path: 'query.p', p_query: 'query', p_all: 'query', p_header: 'method', p_cookie: 'method', p_method: 'method' } },
    { path: '/f/:id', relation: 'itemz' },
    { path: '/g/:id', relation: 'items', args: { idd: 'path.id' } },
    { method: 'GET', path: '/ok/:id(int)', call: 'item_get', args: { item_id: 'path.id' } },
  ],
};

t.test('problems per mount, with did-you-mean', async (t) => {
  const s = await startMountServer(t);
  const cache = s.server.app.cache()!;
  const { problems } = resolveMounts(groups(BAD_ROUTES), cache, ['public']);
  const at = (where: string) => problems.find((p) => p.where === where)?.message;
  t.match(at('routes[0].error-handler'), /error-handler function shop\.render_eror not found \(did you mean render_error\?\)/);
  t.match(at('routes[0].pre-request'), /pre-request function shop\.check_requst not found \(did you mean check_request\?\)/);
  t.match(at('routes[0].routes[0]'), /function shop\.item_lst not found \(did you mean item_list\?\)/);
  t.match(at('routes[0].routes[1]'), /shop\.item_get has no argument "itemid" \(did you mean item_id\?\)/);
  t.match(at('routes[0].routes[2]'), /argument item_id of shop\.item_get is not bound/);
  t.match(at('routes[0].routes[3]'), /path segment :id\(uuid\) cannot bind argument item_id of type integer/);
  t.match(at('routes[0].routes[4]'), /argument p_query binds the whole query string, so it must be json or jsonb, not text/);
  t.match(at('routes[0].routes[5]'), /table or view shop\.itemz not found \(did you mean items\?\)/);
  t.match(at('routes[0].routes[6]'), /shop\.items has no column "idd" \(did you mean id\?\)/);
  t.equal(at('routes[0].routes[7]'), undefined, 'a good mount has no problem');
  t.equal(problems.find((p) => p.where === 'routes[0].routes[0]')?.what, 'GET /api/bad/a');
});

t.test('a bad mount never takes the others down', async (t) => {
  const s = await startMountServer(t, { routes: JSON.stringify({ ...BAD_ROUTES, 'pre-request': 'check_request' }) });
  const good = await s.request('/api/bad/ok/1');
  t.equal(good.status, 200);
  t.same(good.json(), { id: 1, name: 'apple', qty: 3 });
  const bad = await s.request('/api/bad/a');
  t.equal(bad.status, 500);
  t.equal(bad.json().code, 'DBRST603', "the engine's shape when the group's error handler is itself broken");
  t.notMatch(bad.text, /item_lst/, 'no configuration detail reaches the client');
  t.equal((await s.request('/api/bad/zzz')).status, 404);
});

t.test("a group whose pre-request is missing serves none of its mounts", async (t) => {
  const s = await startMountServer(t, { routes: JSON.stringify({ ...BAD_ROUTES, 'error-handler': 'render_error' }) });
  const res = await s.request('/api/bad/ok/1', { headers: { Accept: 'application/json' } });
  t.equal(res.status, 500, 'not run without the check it was configured with');
  t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST603');
});

function dbrest(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('DBREST_') && !k.startsWith('PGRST_')) env[k] = v;
  env['NO_COLOR'] = '1';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(process.cwd(), 'bin', 'dbrest.js'), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

t.test('check-config checks mounts against the database, from a routes file next to the config', async (t) => {
  const s = await startMountServer(t);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-mounts-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'routes.json'), JSON.stringify(BAD_ROUTES));
  writeFileSync(path.join(dir, 'dbrest.config.json'), JSON.stringify({ 'db-uri': s.db.uri, routes: 'routes.json' }));
  const bad = await dbrest(['check-config', 'dbrest.config.json'], dir);
  t.equal(bad.code, 1, 'a bad mount fails check-config');
  t.match(bad.stderr, /✖ routes\[0\]\.routes\[0\] \(GET \/api\/bad\/a\): function shop\.item_lst not found \(did you mean item_list\?\)/);
  t.match(bad.stderr, /✖ routes\[0\]\.error-handler/);

  writeFileSync(path.join(dir, 'routes.json'), JSON.stringify({ ...BAD_ROUTES, 'error-handler': 'render_error', 'pre-request': 'check_request', routes: BAD_ROUTES.routes.slice(7) }));
  const good = await dbrest(['check-config', 'dbrest.config.json'], dir);
  t.equal(good.code, 0, good.stderr);
  t.match(good.stdout, /✔ routes: 1 mounts checked against the database/);

  writeFileSync(path.join(dir, 'dbrest.config.json'), JSON.stringify({ 'db-uri': 'postgres://nobody@127.0.0.1:1/none', routes: 'routes.json' }));
  const away = await dbrest(['check-config', 'dbrest.config.json'], dir);
  t.equal(away.code, 0, 'an unreachable database is not a config problem');
  t.match(away.stderr, /! routes: not checked, the database is not reachable/);

  writeFileSync(path.join(dir, 'dbrest.config.json'), JSON.stringify({ 'db-uri': s.db.uri, routes: 'missing.json' }));
  const missing = await dbrest(['check-config', 'dbrest.config.json'], dir);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /routes: cannot read the routes file missing\.json/);
});
