// The embedded PostgreSQL: first start initialises, second start reuses the data, restart works,
// and a server orphaned by a killed parent is stopped by the next start.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startEmbeddedPostgres } from '../../../src/embedded/postgres.js';
import { queryOnce } from '../../helpers/db.js';

const query = queryOnce;

t.test('first start initialises, second start reuses the data', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-emb-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'pgdata');

  const first = await startEmbeddedPostgres({ dataDir });
  t.equal(first.initialised, true);
  t.match(first.uri, /^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/postgres$/);
  await query(first.uri, 'CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)');
  await first.stop();

  const second = await startEmbeddedPostgres({ dataDir });
  t.teardown(() => second.stop());
  t.equal(second.initialised, false);
  t.same(await query(second.uri, 'SELECT x FROM kept'), [{ x: 42 }]);

  await second.restart();
  t.same(await query(second.uri, 'SELECT x FROM kept'), [{ x: 42 }], 'data survives a restart on the same port');
});

t.test('a server left behind by a killed process is stopped by the next start', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-emb-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'pgdata');
  const script = `import('${path.resolve('dist/src/embedded/postgres.js')}').then(async (m) => {
    const e = await m.startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} });
    console.log('ready ' + e.port);
  });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => {
    child.stdout.on('data', (c: Buffer) => {
      const m = /ready (\d+)/.exec(c.toString());
      if (m) resolve(Number(m[1]));
    });
  });
  child.kill('SIGKILL'); // no exit handlers run: postgres is orphaned
  await new Promise((r) => child.on('exit', r));

  const again = await startEmbeddedPostgres({ dataDir });
  t.teardown(() => again.stop());
  t.equal(again.initialised, false);
  t.same(await query(again.uri, 'SELECT 1 AS one'), [{ one: 1 }]);
  t.not(again.port, 0);
  t.ok(port > 0);
});
