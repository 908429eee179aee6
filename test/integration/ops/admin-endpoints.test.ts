// /config and /schema_cache on the admin server (issue 29): the resolved configuration as
// check-config prints it with secrets masked, and the schema cache as `introspect --json` prints it;
// neither is served on the API's port.
import t from 'tap';
import { runIntrospect } from '../../../src/cli/introspect.js';
import { freePort } from '../../../src/embedded/postgres.js';
import { httpRequest, startTestServer } from '../../helpers/server.js';
import { OPS_SQL } from './fixture.js';

const SECRET = 'admin-endpoint-secret-0123456789-abcdefgh';

t.test('/config and /schema_cache on the admin port only', async (t) => {
  const admin = await freePort();
  const s = await startTestServer(t, {
    fixtures: [OPS_SQL],
    config: { 'db-anon-role': 'ops_anon', 'jwt-secret': SECRET, 'admin-server-port': String(admin), 'app.settings.api-password': 'app-setting-pw-9931' },
  });
  const base = `http://127.0.0.1:${admin}`;

  const config = await httpRequest(`${base}/config`);
  t.equal(config.status, 200);
  t.match(config.headers['content-type'], /^text\/plain/);
  t.match(config.text, /^db-anon-role = "?ops_anon"?/m);
  t.match(config.text, /^jwt-secret = \*{8}/m, 'the JWT secret is masked');
  t.match(config.text, /^app\.settings\.api[-_]password = \*{8}/m, 'a secret-looking app setting is masked');
  t.notOk(config.text.includes(SECRET));
  t.notOk(config.text.includes('app-setting-pw-9931'));
  const password = decodeURIComponent(new URL(s.db.uri).password);
  if (password) t.notOk(config.text.includes(password), 'the database password is masked');
  t.notOk(/\x1b\[/.test(config.text), 'no terminal colours');

  const cache = await httpRequest(`${base}/schema_cache`);
  t.equal(cache.status, 200);
  t.match(cache.headers['content-type'], /^application\/json/);
  let printed = '';
  const code = await runIntrospect(s.config, null, { json: true, io: { stdout: { write: (x: string) => (printed += x) }, stderr: { write: () => undefined } } });
  t.equal(code, 0);
  t.same(cache.json(), JSON.parse(printed), 'the same value as introspect --json');
  t.ok(cache.json().relations.some((r: { name: string }) => r.name === 'items'));

  // Not on the API's port: there they are relation names the schema cache does not have.
  for (const p of ['/config', '/schema_cache']) t.equal((await s.request(p)).status, 404, `${p} is not served on the API port`);
});
