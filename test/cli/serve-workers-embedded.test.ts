// server-workers (issue 30 item 1) with the embedded database: the primary starts and stops it, the
// workers learn its URI over IPC only.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { freePort } from '../../src/embedded/postgres.js';
import { spawnServe } from '../helpers/spawn-serve.js';
import { childrenOf, get, parentOf, tempDir } from './workers-fixture.js';

t.setTimeout(600_000);

t.test('the embedded database belongs to the primary; workers get its URI over IPC only', async (t) => {
  const dir = tempDir(t);
  const port = await freePort();
  const child = await spawnServe(dir, port, { DBREST_SERVER_WORKERS: '2', DBREST_SERVER_HOST: '127.0.0.1' });
  t.teardown(async () => {
    if (child.child.exitCode === null) {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  });
  t.match(child.output(), /listening on http:\/\/127\.0\.0\.1:\d+ \(2 workers/, child.output());
  t.equal(child.output().match(/starting the embedded PostgreSQL/g)?.length, 1, 'started once');
  for (let i = 0; i < 4; i++) t.equal((await get(`http://127.0.0.1:${port}/films?select=title&limit=1`)).status, 200);
  const pgdata = path.join(dir, '.dbrest', 'pgdata');
  const postmaster = Number(readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
  t.equal(parentOf(postmaster), child.child.pid, 'the primary runs the postmaster');
  // The authenticator's password is in no worker's command line or environment.
  const password = readFileSync(path.join(dir, '.dbrest', 'pgdata.authenticator.password'), 'utf8').trim();
  const children = childrenOf(child.child.pid as number).filter((pid) => pid !== postmaster);
  t.equal(children.length, 2, 'two workers');
  for (const pid of children) {
    t.notOk(readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(password), `worker ${pid}: not on its command line`);
    t.notOk(readFileSync(`/proc/${pid}/environ`, 'utf8').includes(password), `worker ${pid}: not in its environment`);
  }
  t.notOk(child.output().includes(password), 'never printed');
  child.child.kill('SIGTERM');
  t.equal(await child.exited, 0);
  t.notOk(existsSync(path.join(pgdata, 'postmaster.pid')), 'the embedded database stopped with the primary');
});
