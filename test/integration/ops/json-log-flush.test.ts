// log-format=json writes its lines in batches (observe/line-batch.ts: lines of concurrent requests go
// out together): no line may be lost for it, nor a request held up by a reader that lags. A
// SIGTERM'd server has written the access line of every request it answered, and its shutdown event
// last; a server that crashes (an uncaught exception, planted through a preloaded module) still has
// written the line of every request it answered; a server whose stderr is not read for a while
// answers meanwhile, and every line arrives once it is read again.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/embedded/postgres.js';
import { createTestDatabase } from '../../helpers/db.js';
import { httpRequest } from '../../helpers/server.js';
import { spawnServe, type ServeChild } from '../../helpers/spawn-serve.js';
import { OPS_SQL } from './fixture.js';

// SIGWINCH (which dbrest does not handle) throws outside any request: an uncaught exception.
const CRASH = `--import=data:text/javascript,process.on('SIGWINCH',()=>setImmediate(()=>{throw(Error('planted-crash'))}))`;

async function serveJson(t: Test, extra: Record<string, string> = {}): Promise<{ child: ServeChild; port: number }> {
  const db = await createTestDatabase([OPS_SQL]);
  t.teardown(() => db.drop());
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-logflush-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const port = await freePort();
  const child = await spawnServe(cwd, port, {
    DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: 'ops_anon', DBREST_DB_SCHEMAS: 'public',
    DBREST_LOG_FORMAT: 'json', DBREST_LOG_LEVEL: 'info', ...extra,
  });
  t.teardown(() => void child.child.kill('SIGKILL'));
  t.match(child.output(), /listening on/, 'serving');
  return { child, port };
}

const accessIds = (output: string): Set<string> =>
  new Set(output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.event === 'request').map((e) => e.id as string));

/** `n` requests, `concurrency` at a time; `after(k)` is called once k have been answered. */
async function drive(port: number, n: number, concurrency: number, after?: { k: number; run: () => void }): Promise<string[]> {
  const answered: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      try {
        const r = await httpRequest(`http://127.0.0.1:${port}/items?id=eq.${(i % 5) + 1}`);
        if (r.status === 200) answered.push(String(r.headers['x-request-id']));
        if (after && answered.length === after.k) after.run();
      } catch {
        return; // the server is gone
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return answered;
}

t.test('SIGTERM: every answered request has its access line, and shutdown comes last', async (t) => {
  const { child, port } = await serveJson(t);
  const answered = await drive(port, 300, 16);
  t.equal(answered.length, 300);
  child.child.kill('SIGTERM');
  t.equal(await child.exited, 0);
  const logged = accessIds(child.output());
  t.same(answered.filter((id) => !logged.has(id)), [], 'no access line lost');
  t.equal(logged.size, 300);
  const last = child.output().trim().split('\n').at(-1)!;
  t.match(JSON.parse(last), { event: 'shutdown', signal: 'SIGTERM' });
});

t.test('a crash: every request answered before it has its access line', async (t) => {
  const { child, port } = await serveJson(t, { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${CRASH}`.trim() });
  const answered = await drive(port, 2000, 16, { k: 150, run: () => void child.child.kill('SIGWINCH') });
  t.not(await child.exited, 0, 'it crashed');
  t.match(child.output(), /planted-crash/);
  t.ok(answered.length >= 150, `${answered.length} answered before the crash`);
  const logged = accessIds(child.output());
  t.same(answered.filter((id) => !logged.has(id)), [], 'no access line lost');
});

t.test('a quiet server: one request’s access line is written while it keeps running', async (t) => {
  // Lines are written in batches of 4 KiB; one short line must not wait for more to come.
  const { child, port } = await serveJson(t);
  const r = await httpRequest(`http://127.0.0.1:${port}/items?id=eq.1`);
  t.equal(r.status, 200);
  const id = String(r.headers['x-request-id']);
  let seen = false;
  for (let i = 0; i < 100 && !seen; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = accessIds(child.output()).has(id);
  }
  t.ok(seen, 'the access line arrived within 5 s');
  t.equal(child.child.exitCode, null, 'the server is still running');
});

t.test('a stalled log reader: requests are still answered, and every line arrives once it reads again', async (t) => {
  // stderr is written without waiting: while nobody reads it (the pipe full), lines wait in the
  // server, not the requests; a server blocked on its log would answer none of these.
  const { child, port } = await serveJson(t);
  child.child.stderr!.pause();
  const answered = await drive(port, 3000, 16); // ~800 KB of lines: more than a pipe holds
  t.equal(answered.length, 3000, 'every request answered while stderr was not read');
  child.child.stderr!.resume();
  let missing = answered;
  for (let i = 0; i < 200 && missing.length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const logged = accessIds(child.output());
    missing = answered.filter((id) => !logged.has(id));
  }
  t.same(missing, [], 'no access line lost (within 10 s of reading again)');
});
