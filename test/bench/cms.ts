// Requests per second of the CMS API example's mounts next to GET /rpc of the same functions, on the
// demo data, as admin. Run: `node test/run.mjs dist/test/bench/cms.js` (a throwaway embedded
// PostgreSQL; BENCH_SECONDS per case, default 5; BENCH_CONNECTIONS, default 16). Not part of `npm test`.
import autocannon, { type Result } from 'autocannon';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { createTestDatabase } from '../helpers/db.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BASE, exampleSql, login, EXAMPLE_DIR } from '../integration/cms/cms-server.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

const FILTER = JSON.stringify({ ActivityLogGroupListInput: {
  limit: 10,
  criteria: [{ type: 'action', value: ['create', 'publish'] }, { type: 'logged_at', value: '2024-03-01', operator: '>=' }],
  sortClauses: [{ type: 'logged_at', direction: 'DESC' }],
} });

t.test('CMS API bench', async (t) => {
  const db = await createTestDatabase(exampleSql());
  t.teardown(() => db.drop());
  const s = await startTestServer(t, {
    db,
    config: {
      'db-anon-role': 'web_anon', 'db-schemas': 'cms', 'db-pre-request': 'cms.pre_request', 'db-pool': '10',
      routes: readFileSync(path.join(EXAMPLE_DIR, 'routes.json'), 'utf8'),
    },
  });
  const admin = await login(s, 'admin');
  const cookie = { cookie: admin.cookie };
  const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
  const cases: Array<{ title: string; method?: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string }> = [
    { title: 'GET /bookmark (JSON)', path: `${BASE}/bookmark`, headers: cookie },
    { title: 'GET /rpc/bookmark_list (JSON)', path: `/rpc/bookmark_list?${q({ p_query: '{}', p_media: 'application/json' })}`, headers: cookie },
    { title: 'GET /bookmark (XML)', path: `${BASE}/bookmark`, headers: { ...cookie, accept: 'application/xml' } },
    { title: 'GET /rpc/bookmark_list (XML)', path: `/rpc/bookmark_list?${q({ p_query: '{}', p_media: 'application/xml' })}`, headers: cookie },
    {
      title: 'POST /activity-log-group/list (filtered)', method: 'POST', path: `${BASE}/activity-log-group/list`, body: FILTER,
      headers: { ...cookie, 'x-csrf-token': admin.csrf, 'content-type': 'application/json' },
    },
    {
      title: 'GET /rpc/activity_log_search (filtered)',
      path: `/rpc/activity_log_search?${q({ p_body: FILTER, p_content_type: 'application/json', p_media: 'application/json' })}`, headers: cookie,
    },
  ];
  const rows: string[] = [];
  for (const c of cases) {
    const probe = await s.request(c.path, { method: c.method ?? 'GET', headers: c.headers ?? {}, ...(c.body ? { body: c.body } : {}) });
    t.equal(probe.status, 200, `${c.title}: ${probe.text.slice(0, 100)}`);
    const r = await new Promise<Result>((resolve, reject) => {
      autocannon({ url: s.url + c.path, method: c.method ?? 'GET', headers: c.headers ?? {}, ...(c.body ? { body: c.body } : {}), connections, duration: seconds },
        (e, result) => (e ? reject(e) : resolve(result)));
    });
    t.equal(r.non2xx, 0, `${c.title}: every answer 2xx`);
    rows.push(`${c.title.padEnd(44)} ${String(Math.round(r.requests.average)).padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms`);
  }
  console.log(['', `CMS API, ${connections} connections, ${seconds} s per case:`, ...rows, ''].join('\n'));
});
