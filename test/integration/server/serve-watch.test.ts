// `dbrest serve --watch`: an edit of the config file applies without a signal (the path SIGUSR2
// takes), whether the file is written in place or replaced by a rename as editors do; --watch also
// turns db-schema-watch on, so a table created over SQL appears too.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { freePort } from '../../../src/embedded/postgres.js';
import { createTestDatabase } from '../../helpers/db.js';
import { httpRequest } from '../../helpers/server.js';
import { spawnServe, type ServeChild } from '../../helpers/spawn-serve.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const within = async (what: string, check: () => Promise<boolean>, boundMs = 10_000) => {
  const started = performance.now();
  while (performance.now() - started < boundMs) {
    if (await check()) return Math.round(performance.now() - started);
    await sleep(20);
  }
  throw new Error(`${what}: not within ${boundMs / 1000} s`);
};
const within10s = (what: string, check: () => Promise<boolean>) => within(what, check);

/** A quickstart database, a temporary directory and a port, all removed at the end. */
async function setUp(t: Test) {
  const db = await createTestDatabase(['examples/quickstart/schema.sql']);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-watch-'));
  t.teardown(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });
  return { db, dir, port: await freePort() };
}

/** `dbrest serve` (spawnServe: returns once it listens), stopped at the end. */
async function serve(t: Test, ...args: Parameters<typeof spawnServe>): Promise<ServeChild> {
  const served = await spawnServe(...args);
  t.teardown(async () => {
    served.child.kill('SIGTERM');
    await served.exited;
  });
  if (!served.output().includes('listening on')) throw new Error(`serve did not start:\n${served.output()}`);
  return served;
}

t.test('serve --watch applies an edited config file, written in place or renamed over', async (t) => {
  const { db, dir, port } = await setUp(t);
  const file = path.join(dir, 'dbrest.json');
  const config = (maxRows: number) =>
    JSON.stringify({ 'db-uri': db.uri, 'db-anon-role': 'web_anon', 'server-host': '127.0.0.1', 'server-port': port, 'db-max-rows': maxRows, 'log-level': 'info' }, null, 2);
  writeFileSync(file, config(5));
  const served = await serve(t, dir, port, {}, ['--watch', file]);
  const output = (): string => served.output();
  await within10s('its watch', async () => /--watch: reloading the configuration when .*dbrest\.json changes/.test(output()));
  const rows = async () => ((await httpRequest(`http://127.0.0.1:${port}/films?select=id`)).json() as unknown[]).length;
  t.equal(await rows(), 5, 'db-max-rows 5 at start');

  writeFileSync(file, config(2));
  const inPlaceMs = await within10s('the file written in place', async () => (await rows()) === 2);
  t.comment(`written in place: applied after ${inPlaceMs} ms`);
  await within10s('the log line', async () => /config reloaded \(config file changed, \d+ ms\)/.test(output()));

  // An editor's save: a new file renamed over the old one (a watch on the old file would miss it).
  writeFileSync(path.join(dir, 'dbrest.json.tmp'), config(3));
  renameSync(path.join(dir, 'dbrest.json.tmp'), file);
  const renamedMs = await within10s('the file renamed over', async () => (await rows()) === 3);
  t.comment(`renamed over: applied after ${renamedMs} ms`);

  // --watch turns db-schema-watch on (this config sets a db-uri, where it is off by default).
  t.equal((await db.query(`SELECT evtname FROM pg_event_trigger`)).length, 2, 'the event triggers are installed');
  await db.query(`CREATE TABLE public.fresh (id int); INSERT INTO public.fresh VALUES (1); GRANT SELECT ON public.fresh TO web_anon`);
  await within10s('the new table', async () => (await httpRequest(`http://127.0.0.1:${port}/fresh`)).status === 200);
  await within10s('the reload line', async () => /schema cache reloaded \(NOTIFY\): /.test(output()));
  t.pass('the log names the trigger of each reload');
});

t.test('serve --watch without a config file says there is none to watch', async (t) => {
  const { db, dir, port } = await setUp(t);
  const served = await serve(t, dir, port, { DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: 'web_anon', DBREST_SERVER_HOST: '127.0.0.1' }, ['--watch']);
  await within10s('the --watch line', async () => /--watch: no config file to watch/.test(served.output()));
  t.equal((await httpRequest(`http://127.0.0.1:${port}/films?select=id&limit=1`)).status, 200);
});
