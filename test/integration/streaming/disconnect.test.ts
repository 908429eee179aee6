// Clients that go away, read slowly, or get an error after the first byte. Observed from outside:
// pg_stat_activity on a separate connection (is the statement still running? is the connection
// idle again, outside any transaction?), a pool of one connection (does the next request get it?),
// and this process's RSS while a paused client is sent a 9-million-row answer.
import http from 'node:http';
import pg from 'pg';
import t from 'tap';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { STREAM_SQL } from './fixture.js';

const CONFIG = { 'db-schemas': 'stream', 'db-anon-role': 'stream_anon', 'db-pool': '1', 'db-pool-acquisition-timeout': '5' };

interface Open {
  readonly req: http.ClientRequest;
  /** Resolves with the response once its head arrived. */
  readonly response: Promise<http.IncomingMessage>;
}

function open(s: TestServer, path: string, headers: Record<string, string> = {}): Open {
  const req = http.get(s.url + path, { headers, agent: false });
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  response.catch(() => undefined);
  return { req, response };
}

/** dbrest's backends on the test database, by state. */
async function backends(monitor: pg.Client): Promise<Array<{ state: string; query: string; wait_event: string | null }>> {
  const r = await monitor.query(
    `SELECT state, query, wait_event FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'dbrest' AND pid <> pg_backend_pid()`,
  );
  return r.rows as Array<{ state: string; query: string; wait_event: string | null }>;
}

/** Polls until `ok` holds (or gives up after `limitMs`); the time it took. */
async function until(limitMs: number, ok: () => Promise<boolean>): Promise<number | null> {
  const start = performance.now();
  while (performance.now() - start < limitMs) {
    if (await ok()) return performance.now() - start;
    await new Promise((r) => setTimeout(r, 5));
  }
  return null;
}

const idle = (monitor: pg.Client) => async () => (await backends(monitor)).every((b) => b.state === 'idle');

async function setup(t: { teardown(fn: () => unknown): void }, extra: Record<string, string> = {}) {
  const s = await startTestServer(t, { fixtures: [STREAM_SQL], config: { ...CONFIG, ...extra } });
  const monitor = new pg.Client({ connectionString: s.db.uri });
  await monitor.connect();
  t.teardown(() => monitor.end());
  return { s, monitor };
}

for (const [what, path] of [
  ['a buffered request (limit=1)', '/rpc/sleepy?s=60&limit=1'],
  ['a streamed request, before its first row', '/rpc/sleepy?s=60'],
] as const) {
  t.test(`a client that goes away mid-query: ${what} is cancelled, its connection freed`, async (t) => {
    const { s, monitor } = await setup(t);
    const c = open(s, path);
    c.req.on('error', () => undefined);
    const running = await until(10_000, async () => (await backends(monitor)).some((b) => b.state === 'active' && b.query.includes('sleepy')));
    t.not(running, null, 'the query runs');
    const gone = performance.now();
    c.req.destroy();
    const freed = await until(5_000, idle(monitor));
    t.not(freed, null, 'the statement was cancelled and the connection is idle (outside a transaction)');
    t.ok(freed !== null && freed < 1000, `freed within 1000 ms (took ${freed?.toFixed(0)} ms)`);
    t.comment(`${what}: ${(performance.now() - gone).toFixed(0)} ms from disconnect to an idle backend`);
    // The pool's one connection serves the next request.
    const next = await s.request('/big?id=eq.1&select=id');
    t.equal(next.status, 200);
    t.same(next.json(), [{ id: 1 }]);
    t.equal(s.server.app.pool.totalCount, 1, 'the same connection, not a new one');
  });
}

t.test('a client that goes away mid-query is logged as 499 in the access log, not as a server error', async (t) => {
  const lines: string[] = [];
  const s = await startTestServer(t, { fixtures: [STREAM_SQL], config: { ...CONFIG, 'log-level': 'info' }, logLines: lines });
  const monitor = new pg.Client({ connectionString: s.db.uri });
  await monitor.connect();
  t.teardown(() => monitor.end());
  const c = open(s, '/rpc/sleepy?s=60&limit=1');
  c.req.on('error', () => undefined);
  t.not(await until(10_000, async () => (await backends(monitor)).some((b) => b.state === 'active' && b.query.includes('sleepy'))), null, 'the query runs');
  c.req.destroy();
  const plain = () => lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
  const logged = await until(5_000, async () => plain().some((l) => l.includes('/rpc/sleepy')));
  t.not(logged, null, 'the request is logged once its statement is cancelled');
  const mine = plain().filter((l) => l.includes('/rpc/sleepy'));
  t.equal(mine.length, 1, 'one line');
  t.match(mine[0], /\bINFO\s+GET \/rpc\/sleepy\?s=60&limit=1 499 client closed the request \(answer 500 not sent\) [\d.]+ms 57014 /);
  t.same(plain().filter((l) => /\bERROR\b/.test(l)), [], 'no error line');
});

t.test('a client that goes away inside Prefer: tx=rollback: the query is cancelled, its connection closed', async (t) => {
  const { s, monitor } = await setup(t, { 'db-tx-end': 'commit-allow-override' });
  const c = open(s, '/rpc/sleepy?s=60&limit=1', { Prefer: 'tx=rollback' });
  c.req.on('error', () => undefined);
  const running = await until(10_000, async () => (await backends(monitor)).some((b) => b.state === 'active' && b.query.includes('sleepy')));
  t.not(running, null, 'the query runs');
  c.req.destroy();
  // A cancel that landed on a closing ROLLBACK could leave the transaction open: the connection
  // is closed instead, so no backend of dbrest stays (the pool opens a new one when asked).
  const gone = await until(5_000, async () => (await backends(monitor)).length === 0);
  t.not(gone, null, 'the statement was cancelled and its connection closed');
  t.ok(gone !== null && gone < 1000, `within 1000 ms (took ${gone?.toFixed(0)} ms)`);
  const next = await s.request('/big?id=eq.1&select=id');
  t.equal(next.status, 200, 'the next request gets a fresh connection');
  t.same(next.json(), [{ id: 1 }]);
  const states = (await backends(monitor)).map((b) => b.state);
  t.same(states, ['idle'], 'which is idle, outside any transaction');
});

t.test('a client that goes away mid-stream frees its connection', async (t) => {
  const { s, monitor } = await setup(t, { 'server-stream-threshold': '2' });
  const c = open(s, '/huge');
  const res = await c.response;
  t.equal(res.statusCode, 200);
  await new Promise<void>((resolve) => res.once('data', () => resolve()));
  t.ok((await backends(monitor)).some((b) => b.state !== 'idle'), 'the cursor is open');
  c.req.destroy();
  const freed = await until(5_000, idle(monitor));
  t.ok(freed !== null && freed < 1000, `idle within 1000 ms (took ${freed?.toFixed(0)} ms)`);
  const next = await s.request('/big?id=eq.2&select=id');
  t.same(next.json(), [{ id: 2 }]);
});

t.test('a client that reads slowly does not grow the server', async (t) => {
  const { s, monitor } = await setup(t, { 'server-stream-threshold': '2' });
  const c = open(s, '/huge', { Accept: 'application/x-ndjson' });
  const res = await c.response;
  let received = 0;
  await new Promise<void>((resolve) => res.once('data', (b: Buffer) => ((received += b.length), resolve())));
  res.pause();
  // Let the server fill whatever buffers it will fill, then watch it for a while.
  await new Promise((r) => setTimeout(r, 500));
  global.gc?.();
  const before = process.memoryUsage().rss;
  await new Promise((r) => setTimeout(r, 2000));
  global.gc?.();
  const after = process.memoryUsage().rss;
  const grew = (after - before) / 1024 / 1024;
  t.comment(`RSS while the client is paused: ${(before / 1048576).toFixed(1)} MB → ${(after / 1048576).toFixed(1)} MB (${grew.toFixed(1)} MB)`);
  t.ok(grew < 16, `RSS grew by less than 16 MB (${grew.toFixed(1)} MB) while ~600 MB of answer waited`);
  // The database waits too: its cursor is open (no Sync yet, so pg_stat_activity still says
  // active) and the backend waits for the next Execute instead of producing rows.
  t.same((await backends(monitor)).map((b) => [b.state, b.wait_event]), [['active', 'ClientRead']]);
  // Reading again resumes the answer: count a few MB more, then leave.
  res.on('data', (b: Buffer) => (received += b.length));
  res.resume();
  t.not(await until(5000, async () => received > 8 * 1024 * 1024), null, 'the answer flows again');
  c.req.destroy();
  t.not(await until(5000, idle(monitor)), null);
});

t.test('an error after the first byte ends the response abnormally', async (t) => {
  const { s, monitor } = await setup(t, { 'server-stream-threshold': '2' });
  const c = open(s, '/boom');
  const res = await c.response;
  t.equal(res.statusCode, 200, 'the head was sent before the error');
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (d: string) => (body += d));
  const ending = await new Promise<string>((resolve) => {
    res.on('end', () => resolve('end'));
    res.on('aborted', () => resolve('aborted'));
    res.on('error', () => resolve('error'));
  });
  t.not(ending, 'end', `the client sees an incomplete response (${ending})`);
  t.ok(body.startsWith('[{"id":1,"v":1}, \n {"id":2,"v":2}'), 'rows before the error arrived');
  t.notOk(body.endsWith(']'), 'no closing bracket');
  t.not(await until(5000, idle(monitor)), null, 'the connection is back, idle');
  t.equal((await s.request('/big?id=eq.3&select=id')).status, 200);
  // Buffered (a limit within the threshold), the same error is an error response.
  const whole = await s.request('/boom?id=gt.2499&limit=2');
  t.equal(whole.status, 400);
  t.equal(whole.json().code, '22012');
});
