// `dbrest serve` supervises the embedded PostgreSQL it started: kill -9 of the postmaster under a
// running serve is logged, the server is restarted, and requests are answered 200 again by the same
// dbrest process. The cluster is durable (fsync on) by default; db-embedded-durable=false turns
// fsync off and says so at start.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { freePort } from '../../src/embedded/postgres.js';
import { httpRequest } from '../helpers/server.js';
import { spawnServe } from '../helpers/spawn-serve.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/** The running postmaster's pid and port, from its lock file. */
function postmaster(cwd: string): { pid: number; port: number } {
  const lines = readFileSync(path.join(cwd, '.dbrest', 'pgdata', 'postmaster.pid'), 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

async function showFsync(cwd: string): Promise<string> {
  const password = readFileSync(path.join(cwd, '.dbrest', 'pgdata.password'), 'utf8').trim();
  const client = new pg.Client({ host: '127.0.0.1', port: postmaster(cwd).port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  try {
    return (await client.query('SHOW fsync')).rows[0].fsync;
  } finally {
    await client.end();
  }
}

/** Until dbrest's output holds `text` `times` times (its supervisor noticed a crash, say), or 30 s. */
async function untilLogged(output: () => string, text: string, times = 1): Promise<void> {
  for (let i = 0; i < 300 && output().split(text).length - 1 < times; i++) await sleep(100);
}

const films = (port: number) => httpRequest(`http://localhost:${port}/films?select=title&order=id&limit=1`);

t.test('kill -9 of the embedded postmaster: dbrest restarts it and serves again', async (t) => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-supervise-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const port = await freePort();

  const s = await spawnServe(cwd, port);
  t.teardown(() => void (s.child.exitCode === null && s.child.kill('SIGKILL')));
  t.match(s.output(), `listening on http://localhost:${port}`);
  t.match(s.output(), 'embedded PostgreSQL is durable (fsync on)', 'the start-up log says it is durable');
  t.equal(await showFsync(cwd), 'on', 'durable by default: SHOW fsync is on');
  const before = await films(port);
  t.equal(before.status, 200);
  t.same(before.json(), [{ title: 'Cléo from 5 to 7' }]);

  const first = postmaster(cwd);
  process.kill(first.pid, 'SIGKILL');
  // Backends outlive their postmaster for a moment and may still answer: probe once dbrest saw the exit.
  await untilLogged(s.output, 'exited unexpectedly');

  // Requests in the gap get 503s in the error model (or succeed if the restart already happened);
  // never anything else, and the same dbrest process ends up answering 200.
  const seen = new Set<number>();
  let after = await films(port);
  for (let i = 0; i < 600 && after.status !== 200; i++) {
    seen.add(after.status);
    if (after.status !== 503) break;
    t.match(after.json(), { code: /^DBRST00\d$/ });
    await sleep(100);
    after = await films(port);
  }
  t.equal(after.status, 200, `served again after the kill (statuses in between: ${[...seen].join(', ') || 'none'})`);
  t.same(after.json(), [{ title: 'Cléo from 5 to 7' }]);
  t.ok([...seen].every((st) => st === 503), 'only 503s while the database was down');
  t.equal(s.child.exitCode, null, 'dbrest itself was not restarted');
  const second = postmaster(cwd);
  t.not(second.pid, first.pid, 'a new postmaster');
  t.equal(second.port, first.port, 'on the same port');
  t.match(s.output(), 'embedded PostgreSQL exited unexpectedly (killed by SIGKILL)', 'the crash is logged');
  t.match(s.output(), /embedded PostgreSQL restarted on port \d+ \(attempt \d+/, 'and the restart');
  t.equal(await showFsync(cwd), 'on', 'still durable after the restart');

  // Writes and reads of the restarted server: a second kill is handled the same way.
  process.kill(second.pid, 'SIGKILL');
  await untilLogged(s.output, 'exited unexpectedly', 2);
  let again = await films(port);
  for (let i = 0; i < 600 && again.status !== 200; i++) {
    await sleep(100);
    again = await films(port);
  }
  t.equal(again.status, 200, 'a second crash is recovered from too');

  s.child.kill('SIGTERM');
  t.equal(await s.exited, 0, 'SIGTERM still stops dbrest and its database cleanly');
  t.notMatch(s.output().split('SIGTERM')[1] ?? '', /exited unexpectedly/, 'a requested stop is not taken for a crash');

  // The same data directory with db-embedded-durable=false: fsync off, and the start says so.
  const fast = await spawnServe(cwd, port, { DBREST_DB_EMBEDDED_DURABLE: 'false' });
  t.teardown(() => void (fast.child.exitCode === null && fast.child.kill('SIGKILL')));
  t.match(fast.output(), 'db-embedded-durable=false: the embedded PostgreSQL runs with fsync=off');
  t.equal(await showFsync(cwd), 'off');
  t.equal((await films(port)).status, 200);
  fast.child.kill('SIGTERM');
  t.equal(await fast.exited, 0);
});
