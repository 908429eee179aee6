// Several instances (issue 30 item 4): two `dbrest serve` processes on different ports against one
// database. PostgreSQL delivers a NOTIFY to every session listening on the channel, so one
// `NOTIFY dbrest, 'reload schema'` (or 'reload config') reloads both, as with PostgREST; SIGUSR2
// reloads the one it is sent to.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { freePort } from '../../src/embedded/postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { spawnServe } from '../helpers/spawn-serve.js';
import { get, ITEMS, superuser, tempDir, until } from './workers-fixture.js';

t.setTimeout(600_000);

async function instance(t: Test, db: TestDatabase, file: object) {
  const port = await freePort();
  const dir = tempDir(t);
  writeFileSync(path.join(dir, 'dbrest.config.json'), JSON.stringify(file));
  const child = await spawnServe(dir, port, { DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: superuser(), DBREST_SERVER_HOST: '127.0.0.1' });
  t.teardown(async () => {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  });
  t.match(child.output(), /listening on/);
  return { child, url: `http://127.0.0.1:${port}`, file: path.join(dir, 'dbrest.config.json') };
}

t.test('two instances, one database: one NOTIFY reloads both schema caches, one reload config both configurations', async (t) => {
  const db = await createTestDatabase([ITEMS]);
  t.teardown(() => db.drop());
  const a = await instance(t, db, { 'db-max-rows': 8 });
  const b = await instance(t, db, { 'db-max-rows': 8 });
  const status = async (url: string) => (await get(url)).status;
  t.equal(await status(`${a.url}/later`), 404);
  t.equal(await status(`${b.url}/later`), 404);

  await db.query('CREATE TABLE public.later (id int); INSERT INTO public.later VALUES (1)');
  await db.query('NOTIFY dbrest, \'reload schema\'');
  t.ok(await until(async () => (await status(`${a.url}/later`)) === 200), 'the first instance sees the new table');
  t.ok(await until(async () => (await status(`${b.url}/later`)) === 200), 'and so does the second, from the same NOTIFY');

  // 'reload config': each re-reads its file, environment and the database's pgrst.* settings.
  const role = `"${superuser().replace(/"/g, '""')}"`;
  await db.query(`ALTER ROLE ${role} IN DATABASE ${db.name} SET pgrst.db_max_rows = '2'`);
  t.teardown(() => db.query(`ALTER ROLE ${role} IN DATABASE ${db.name} RESET pgrst.db_max_rows`).catch(() => undefined));
  const rows = async (url: string) => (JSON.parse((await get(`${url}/items`)).body) as unknown[]).length;
  t.equal(await rows(a.url), 8, 'the setting applies only once reloaded');
  await db.query('NOTIFY dbrest, \'reload config\'');
  t.ok(await until(async () => (await rows(a.url)) === 2), 'one NOTIFY reload config: the first instance');
  t.ok(await until(async () => (await rows(b.url)) === 2), 'and the second');

  // SIGUSR2 is per process: each instance re-reads its own file.
  await db.query(`ALTER ROLE ${role} IN DATABASE ${db.name} RESET pgrst.db_max_rows`);
  writeFileSync(a.file, JSON.stringify({ 'db-max-rows': 4 }));
  writeFileSync(b.file, JSON.stringify({ 'db-max-rows': 5 }));
  a.child.child.kill('SIGUSR2');
  b.child.child.kill('SIGUSR2');
  t.ok(await until(async () => (await rows(a.url)) === 4), 'SIGUSR2 to each: the first has its new file');
  t.ok(await until(async () => (await rows(b.url)) === 5), 'and the second its own');
});
