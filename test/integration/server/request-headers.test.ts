// request.headers as SQL sees it, request after request: the JSON of each request's own headers,
// though the JSON of the headers sent last is kept and reused for the same ones (sql/tx-settings.ts).
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('each request sees its own headers in request.headers', async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'auth.sql')], config: { 'db-anon-role': 'auth_anon' } });
  const seen = async (headers: Record<string, string>) => {
    const res = await s.request('/request_context?select=headers', { headers });
    t.equal(res.status, 200);
    return res.json()[0].headers as Record<string, string>;
  };
  const sent: Array<Record<string, string>> = [
    { 'X-Custom': 'a' },
    { 'X-Custom': 'a' },
    { 'X-Custom': 'b' },
    {},
    { 'X-Custom': 'b', 'X-Other': '1' },
    { 'X-Custom': 'b', 'X-Other': '1', Cookie: 'k=v' },
    { 'X-Custom': 'b' },
  ];
  for (const h of sent) {
    const got = await seen(h);
    t.equal(got['x-custom'], h['X-Custom'], `x-custom of ${JSON.stringify(h)}`);
    t.equal(got['x-other'], h['X-Other'], `x-other of ${JSON.stringify(h)}`);
    t.notOk('cookie' in got, 'never the Cookie header');
  }
});
