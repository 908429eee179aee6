// `dbrest serve` with no db-uri: starts the embedded PostgreSQL, loads the quickstart once, prints
// the URL, serves the example tables; a second start reuses the data. SIGTERM stops it cleanly.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freePort } from '../../src/embedded/postgres.js';
import { httpRequest } from '../helpers/server.js';
import { spawnServe } from '../helpers/spawn-serve.js';


t.test('npx dbrest serve on a bare machine', async (t) => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-serve-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const port = await freePort();

  const first = await spawnServe(cwd, port);
  t.match(first.output(), `listening on http://localhost:${port}`);
  t.match(first.output(), /initialising a new PostgreSQL cluster/);
  // A generous bound: the first start runs initdb and loads the examples, durably (fsync on), on a
  // machine other work may share.
  t.ok(first.ms < 60_000, `ready in ${first.ms} ms`);
  const films = await httpRequest(`http://localhost:${port}/films?select=title&order=id&limit=2`);
  t.equal(films.status, 200);
  t.same(films.json(), [{ title: 'Cléo from 5 to 7' }, { title: 'The Gleaners and I' }]);
  const root = await httpRequest(`http://localhost:${port}/`);
  t.ok(root.json().paths['/films'], 'the OpenAPI document lists the quickstart tables');
  // The other examples, each in its own schema, mounted at their own prefixes next to the quickstart.
  t.match(first.output(), /CMS API: curl 'http:\/\/localhost:\d+\/api\/cms\/v2\//, 'the start-up lines name the CMS API with a URL to try');
  const cms = await httpRequest(`http://localhost:${port}/api/cms/v2/bookmark`);
  t.equal(cms.status, 401, 'the CMS API answers: bookmarks need a session');
  t.equal(cms.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+json');
  t.match(cms.json(), { ErrorMessage: { errorCode: 401 } });
  first.child.kill('SIGTERM');
  t.equal(await first.exited, 0);

  const second = await spawnServe(cwd, port);
  t.notMatch(second.output(), /initialising/, 'the second start reuses the cluster');
  t.notMatch(second.output(), /loading example/, 'and does not load the examples again');
  const again = await httpRequest(`http://localhost:${port}/directors?select=name&id=eq.1`);
  t.same(again.json(), [{ name: 'Agnès Varda' }]);
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0);
});
