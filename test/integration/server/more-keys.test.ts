// Keys no other test set (found by test/unit/config/keys-exercised.test.ts): admin-server-host,
// db-channel, db-prepared-statements. Each through a real server against a real PostgreSQL.
import t from 'tap';
import { clusterUri } from '../../helpers/db.js';
import { httpRequest, startTestServer } from '../../helpers/server.js';

const superuser = () => decodeURIComponent(new URL(clusterUri()).username);

// The pre-request function reports, in a header, how many prepared statements its session holds:
// it runs on the request's own connection, so this is what reached PostgreSQL.
const FIXTURE = `
  CREATE TABLE public.items (id int PRIMARY KEY);
  INSERT INTO public.items SELECT generate_series(1, 3);
  CREATE FUNCTION public.count_prepared() RETURNS void LANGUAGE sql AS $$
    SELECT set_config('response.headers', json_build_array(json_build_object('X-Prepared', (SELECT count(*) FROM pg_prepared_statements)::text))::text, true)
  $$;`;

t.test('db-prepared-statements: named prepared statements only when true', async (t) => {
  for (const prepared of ['true', 'false']) {
    const s = await startTestServer(t, {
      fixtures: [FIXTURE],
      config: { 'db-anon-role': superuser(), 'db-pool': '1', 'db-pre-request': 'public.count_prepared', 'db-prepared-statements': prepared },
    });
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await s.request(`/items?id=eq.${i + 1}`);
      t.equal(r.status, 200);
      counts.push(Number(r.headers['x-prepared']));
    }
    if (prepared === 'true') t.ok(counts[2]! > 0, `the one connection holds prepared statements (${counts.join(', ')})`);
    else t.same(counts, [0, 0, 0], 'none, ever');
  }
});

t.test('db-channel: NOTIFY on the configured channel reloads the schema cache', async (t) => {
  const s = await startTestServer(t, { fixtures: [FIXTURE], config: { 'db-anon-role': superuser(), 'db-channel': 'custom_channel' } });
  await s.db.query('CREATE TABLE public.later (id int)');
  t.equal((await s.request('/later')).status, 404, 'not in the schema cache yet');
  await s.db.query(`NOTIFY custom_channel, 'reload schema'`);
  let status = 0;
  for (let i = 0; i < 200 && status !== 200; i++) {
    status = (await s.request('/later')).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(status, 200, 'the new table is served after the NOTIFY');
});

t.test('admin-server-host: the admin server binds there, not to server-host', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [FIXTURE],
    config: { 'db-anon-role': superuser(), 'admin-server-port': '0', 'admin-server-host': '127.0.0.2' },
  });
  t.match(s.server.adminUrl, /^http:\/\/127\.0\.0\.2:\d+$/);
  t.equal((await httpRequest(`${s.server.adminUrl}/live`)).status, 200);
  t.equal((await httpRequest(`${s.server.adminUrl}/ready`)).status, 200);
  const port = new URL(s.server.adminUrl!).port;
  const onServerHost = await httpRequest(`http://127.0.0.1:${port}/live`).then((r) => r.status, () => 'refused');
  t.equal(onServerHost, 'refused', 'nothing listens on server-host at the admin port');
});
