// db-schema-watch: dbrest installs event triggers that NOTIFY 'reload schema' on DDL, so a table or
// a function created over SQL reaches the API without a signal, requests keep succeeding while the
// cache is swapped, and a migration's burst of notifications costs a few reloads, not one each.
import pg from 'pg';
import t from 'tap';
import { createTestDatabase, withDatabase } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { schemaWatchSql } from '../../../src/catalog/schema-watch.js';

const quickstart = 'examples/quickstart/schema.sql';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds (generous bound: 10 s); returns how long it took, for the record. */
async function within10s(what: string, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 10_000) {
    if (await check()) return Math.round(performance.now() - started);
    await sleep(10);
  }
  throw new Error(`${what}: not within 10 s`);
}

const reloadLines = (lines: string[]) => lines.filter((l) => l.includes('schema cache reloaded'));
/** How many NOTIFYs the reload lines so far stand for (`NOTIFY` is one, `NOTIFY ×7` seven). */
const notifiesCounted = (lines: string[]) =>
  reloadLines(lines).reduce((n, l) => n + [...l.matchAll(/NOTIFY(?: ×(\d+))?/g)].reduce((m, x) => m + Number(x[1] ?? 1), 0), 0);

const watched = async (t: { teardown(fn: () => unknown): void }, logLines: string[] = []): Promise<TestServer> =>
  startTestServer(t, { fixtures: [quickstart], logLines, config: { 'db-anon-role': 'web_anon', 'db-schema-watch': 'true', 'log-level': 'info' } });

t.test('a table and a function created over SQL answer without a signal; no request fails meanwhile', async (t) => {
  const lines: string[] = [];
  const s = await watched(t, lines);
  t.ok(lines.some((l) => l.includes('db-schema-watch: event triggers installed')), 'the install is logged');
  const triggers = await s.db.query<{ evtname: string; evtevent: string }>(`SELECT evtname, evtevent FROM pg_event_trigger ORDER BY evtname`);
  t.same(triggers, [{ evtname: 'dbrest_watch_ddl', evtevent: 'ddl_command_end' }, { evtname: 'dbrest_watch_drop', evtevent: 'sql_drop' }]);

  // Requests to an existing table all the while the cache is swapped.
  const statuses: number[] = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) statuses.push((await s.request('/films?select=id&limit=1')).status);
  })();

  t.equal((await s.request('/watched')).status, 404, 'not there before');
  await s.db.query(`CREATE TABLE public.watched (id int PRIMARY KEY, name text); INSERT INTO public.watched VALUES (1, 'one')`);
  await s.db.query(`GRANT SELECT ON public.watched TO web_anon`);
  const tableMs = await within10s('the new table', async () => (await s.request('/watched')).status === 200);
  t.same((await s.request('/watched')).json(), [{ id: 1, name: 'one' }]);
  t.comment(`CREATE TABLE answered after ${tableMs} ms`);
  t.comment(reloadLines(lines).join(' | '));

  await s.db.query(`CREATE FUNCTION public.watched_names() RETURNS SETOF text LANGUAGE sql STABLE AS $$ SELECT name FROM public.watched $$`);
  const fnMs = await within10s('the new function', async () => (await s.request('/rpc/watched_names')).status === 200);
  t.same((await s.request('/rpc/watched_names')).json(), ['one']);
  t.comment(`CREATE FUNCTION answered after ${fnMs} ms`);

  // ALTER and a column grant count too.
  await s.db.query(`ALTER TABLE public.watched ADD COLUMN extra int DEFAULT 7`);
  await within10s('the new column', async () => (await s.request('/watched?select=extra')).status === 200);
  t.same((await s.request('/watched?select=extra')).json(), [{ extra: 7 }]);

  // DROP is seen by the sql_drop trigger (ddl_command_end lists no dropped objects).
  await s.db.query(`DROP FUNCTION public.watched_names()`);
  await within10s('the dropped function', async () => (await s.request('/rpc/watched_names')).status === 404);

  stop = true;
  await loop;
  t.ok(statuses.length > 0, `${statuses.length} requests ran during the swaps`);
  t.same([...new Set(statuses)], [200], 'every one answered 200');
  t.ok(reloadLines(lines).every((l) => /schema cache reloaded \(NOTIFY[^)]*\): .* \(\d+ ms\)/.test(l)), 'each reload line names its trigger and duration');
});

t.test('GRANT alone reaches the API (follow-privileges)', async (t) => {
  const s = await watched(t);
  await s.db.query(`CREATE TABLE public.later (id int)`);
  await within10s('the reload after CREATE TABLE', async () => (await s.request('/later')).status === 401);
  await s.db.query(`GRANT SELECT ON public.later TO web_anon`);
  await within10s('the GRANT', async () => ((await s.request('/')).json().paths['/later'] !== undefined));
  t.equal((await s.request('/later')).status, 200);
});

t.test('temporary objects notify nobody', async (t) => {
  const s = await watched(t);
  const listener = new pg.Client({ connectionString: s.db.uri });
  await listener.connect();
  t.teardown(() => listener.end());
  const got: string[] = [];
  listener.on('notification', (m) => got.push(m.payload ?? ''));
  await listener.query('LISTEN dbrest');
  // Notifications arrive in commit order: once 'sentinel' is here, anything the temp DDL sent is too.
  await s.db.query(`CREATE TEMP TABLE scratch (x int); CREATE INDEX ON scratch (x); DROP TABLE scratch`);
  await s.db.query(`NOTIFY dbrest, 'sentinel'`);
  await within10s('the sentinel', async () => got.includes('sentinel'));
  t.same(got, ['sentinel']);
  await s.db.query(`CREATE TABLE public.real_one (x int)`);
  await s.db.query(`NOTIFY dbrest, 'sentinel'`);
  await within10s('the second sentinel', async () => got.length === 3);
  t.same(got, ['sentinel', 'reload schema', 'sentinel'], 'a real table does');
});

t.test('a migration of 50 statements costs far fewer than 50 reloads', async (t) => {
  const lines: string[] = [];
  const s = await watched(t, lines);
  const grants = (from: number) => Array.from({ length: 25 }, (_, i) => `GRANT SELECT ON public.m${from + i} TO web_anon`);
  const creates = (from: number) => Array.from({ length: 25 }, (_, i) => `CREATE TABLE public.m${from + i} (id int)`);

  // One transaction: PostgreSQL delivers identical notifications of a transaction once.
  await s.db.query(['BEGIN', ...creates(0), ...grants(0), 'COMMIT'].join(';\n'));
  await within10s('the single-transaction migration', async () => (await s.request('/m24')).status === 200 && notifiesCounted(lines) >= 1);
  const inOne = reloadLines(lines).length;
  t.equal(notifiesCounted(lines), 1, 'one NOTIFY for the whole transaction');
  t.equal(inOne, 1, 'one reload');

  // 50 statements, each its own transaction: 50 NOTIFYs, coalesced.
  for (const sql of [...creates(100), ...grants(100)]) await s.db.query(sql);
  await within10s('every NOTIFY accounted for', async () => notifiesCounted(lines) === 51);
  t.equal((await s.request('/m124')).status, 200);
  const separate = reloadLines(lines).length - inOne;
  t.comment(`50 separate statements: ${separate} reload(s): ${reloadLines(lines).slice(inOne).map((l) => l.replace(/.*\(NOTIFY/, '(NOTIFY')).join(' | ')}`);
  t.ok(separate <= 10, `${separate} reloads for 50 notifications`);
});

t.test('installing is idempotent: a second start changes nothing', async (t) => {
  const db = await createTestDatabase([quickstart]);
  t.teardown(() => db.drop());
  const oids = () => db.query(`SELECT oid::int, evtname FROM pg_event_trigger ORDER BY evtname`);
  const lines: string[] = [];
  await startTestServer(t, { db, config: { 'db-anon-role': 'web_anon', 'db-schema-watch': 'true', 'log-level': 'debug' } });
  const first = await oids();
  t.equal(first.length, 2);
  await startTestServer(t, { db, logLines: lines, config: { 'db-anon-role': 'web_anon', 'db-schema-watch': 'true', 'log-level': 'debug' } });
  t.same(await oids(), first, 'the same triggers, not dropped and made again');
  t.ok(lines.some((l) => l.includes('event triggers already installed')));
});

t.test('without db-schema-watch (a db-uri\'s default) nothing is installed', async (t) => {
  const s = await startTestServer(t, { fixtures: [quickstart], config: { 'db-anon-role': 'web_anon' } });
  t.same(await s.db.query(`SELECT evtname FROM pg_event_trigger`), []);
});

t.test('a role that may not create event triggers: one warning, and the server serves', async (t) => {
  const db = await createTestDatabase([quickstart]);
  t.teardown(() => db.drop());
  await db.query(`DO $$ BEGIN CREATE ROLE watch_plain LOGIN PASSWORD 'watch_plain'; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
  await db.query(`GRANT CREATE ON DATABASE ${db.name} TO watch_plain; GRANT web_anon TO watch_plain`);
  const u = new URL(db.uri);
  u.username = 'watch_plain';
  u.password = 'watch_plain';
  const plainDb = { ...db, uri: withDatabase(u.toString(), db.name) };
  const lines: string[] = [];
  const s = await startTestServer(t, { db: plainDb, logLines: lines, config: { 'db-anon-role': 'web_anon', 'db-schema-watch': 'true', 'log-level': 'warn' } });
  const warnings = lines.filter((l) => l.includes('db-schema-watch'));
  t.equal(warnings.length, 1, 'warned once');
  t.match(warnings[0], /only a superuser may create event triggers/);
  t.same(await db.query(`SELECT evtname FROM pg_event_trigger`), [], 'nothing half-installed');
  t.same(await db.query(`SELECT nspname FROM pg_namespace WHERE nspname = 'dbrest'`), [], 'not even the schema');
  t.equal((await s.request('/films?select=id&limit=1')).status, 200);
});

t.test('the README\'s snippet is the install script, and runs twice', async (t) => {
  const db = await createTestDatabase([]);
  t.teardown(() => db.drop());
  await db.query(schemaWatchSql('dbrest'));
  await db.query(schemaWatchSql('dbrest'));
  t.equal((await db.query(`SELECT evtname FROM pg_event_trigger`)).length, 2);
  const { readFileSync } = await import('node:fs');
  t.ok(readFileSync('README.md', 'utf8').includes(schemaWatchSql('dbrest').trim()), 'README.md shows schemaWatchSql(\'dbrest\')');
});
