// No query string makes the server answer 500 or hang: 10,000 generated query strings (seeded, so
// a failure reproduces) against real tables; every answer is 2xx or 4xx, and every error is in the
// error model (JSON body with code and message, Proxy-Status header).
import t from 'tap';
import { Pool } from 'undici';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';
import { prng } from '../../helpers/prng.js';

const COUNT = Number(process.env.DBREST_FUZZ_COUNT ?? 10_000);

const tables = ['projects', 'clients', 'tasks', 'users', 'items', 'messages', 'family_tree', 'projects_view', 'nope'];
const columns = ['id', 'name', 'client_id', 'project_id', 'data', 'tags', 'numbers', 'search', 'price_range', 'rating', 'active', 'body', 'parent', 'x', '"quoted col"'];
const embeds = ['clients', 'projects', 'tasks', 'users', 'client_info', 'family_tree', 'messages', 'all_tasks', 'client_of', 'nothing'];
const ops = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'isdistinct', 'fts', 'plfts', 'phfts', 'wfts', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj', 'eqq'];
const values = ['1', '0', '-1', 'abc', '*a*', 'null', 'true', 'not_null', '(1,2)', '{1,2}', '[1,5)', '{"a":1}', '', '%', "'", '"', '\\', '2024-01-01', '1e309', 'NaN', '(', ')', ',', '.', '\u00e9', '\u0000'];
const junk = ['(', ')', ',', '.', '!', ':', '::', '->', '->>', '*', '"', ' ', '..', 'not.', 'or', 'and', '%00', '%ZZ', '{', '}'];

function gen(rand: () => number): string {
  const pick = <T>(a: ReadonlyArray<T>) => a[Math.floor(rand() * a.length)]!;
  const parts: string[] = [];
  const n = Math.floor(rand() * 5);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.2) parts.push(`select=${pick(columns)},${pick(embeds)}${rand() < 0.3 ? '!inner' : ''}(${pick(columns)}${rand() < 0.3 ? '::' + pick(['int', 'text', 'nope', 'int[]']) : ''})`);
    else if (r < 0.5) parts.push(`${rand() < 0.2 ? pick(embeds) + '.' : ''}${pick(columns)}=${rand() < 0.2 ? 'not.' : ''}${pick(ops)}${rand() < 0.1 ? '(any)' : ''}.${encodeURIComponent(pick(values))}`);
    else if (r < 0.6) parts.push(`order=${pick(columns)}.${pick(['asc', 'desc', 'nullsfirst', 'x'])}`);
    else if (r < 0.7) parts.push(`${pick(['limit', 'offset'])}=${pick(['0', '1', '5', '-1', 'x', '99999999999999999999'])}`);
    else if (r < 0.8) parts.push(`or=(${pick(columns)}.${pick(ops)}.${encodeURIComponent(pick(values))},${pick(columns)}.is.null)`);
    else {
      let s = '';
      const k = 1 + Math.floor(rand() * 8);
      for (let j = 0; j < k; j++) s += pick([...junk, ...columns, ...ops, ...values.map(encodeURIComponent)]);
      parts.push(rand() < 0.5 ? `${s}=${pick(values)}` : `select=${s}`);
    }
  }
  // What a client would put on the wire: characters not allowed in a request target are
  // percent-encoded (a stray `%` stays, so malformed escapes still reach the server).
  const target = `/${pick(tables)}${parts.length ? '?' + parts.join('&') : ''}`;
  return target.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu, (c) => encodeURIComponent(c));
}

t.test(`${COUNT} generated query strings: only 2xx/4xx, errors in the error model`, async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'read.sql')], config: { 'db-schemas': 'test', 'db-anon-role': 'postgres' } });
  const client = new Pool(s.url, { connections: 8 });
  t.teardown(() => client.close());
  const rand = prng(20261121);
  const paths = Array.from({ length: COUNT }, () => gen(rand));
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const res = await client.request({ path, method: 'GET', headersTimeout: 10_000, bodyTimeout: 10_000 });
      const text = await res.body.text();
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode >= 500) failures.push(`${res.statusCode} ${path} ${text.slice(0, 200)}`);
      else if (res.statusCode >= 300) {
        let body: { code?: unknown; message?: unknown } = {};
        try {
          body = JSON.parse(text);
        } catch {
          /* reported below */
        }
        const proxy = res.headers['proxy-status'];
        if (typeof body.code !== 'string' || typeof body.message !== 'string' || typeof proxy !== 'string' || !proxy.includes(`error=${body.code}`)) {
          failures.push(`not in the error model: ${res.statusCode} ${path} ${text.slice(0, 200)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  t.same(failures.slice(0, 20), [], 'no 5xx, every error in the error model');
  t.equal([...statuses.values()].reduce((a, b) => a + b, 0), COUNT, 'every request answered');
  t.ok((statuses.get(200) ?? 0) > COUNT / 20, 'a fair share of the generated requests are valid reads');
});
