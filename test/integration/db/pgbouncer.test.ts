// dbrest behind a real PgBouncer in transaction mode (default_pool_size 2, dbrest's db-pool 10,
// db-prepared-statements false): reads, embeds, writes, RPC, streamed exports (the cursor path),
// Prefer: tx=rollback, db-pre-request and the request's SET LOCAL settings, under 32 concurrent
// clients. Every request's transaction must stay on one server connection: no "prepared statement
// does not exist", no role or request.jwt.claims seen by a later request, and the same answers as
// a second dbrest on a direct connection to the same database.
import http from 'node:http';
import { SignJWT, type JWTPayload } from 'jose';
import t from 'tap';
import { loadConfig } from '../../../src/config/load.js';
import { startServer, type RunningServer } from '../../../src/http/start.js';
import { createLogger } from '../../../src/observe/log.js';
import { opsCounters } from '../../../src/observe/counters.js';
import { clusterUri, createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { findPgBouncer, startPgBouncer, type PgBouncer } from '../../helpers/pgbouncer.js';
import { httpRequest, type RequestOptions, type TestResponse } from '../../helpers/server.js';

const SECRET = 'pgbouncer-integration-secret-of-32-chars';
const sign = (claims: JWTPayload) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

const SQL = `
DO $$ BEGIN CREATE ROLE pgb_anon NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE pgb_alice NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE pgb_bob NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
GRANT pgb_anon, pgb_alice, pgb_bob TO CURRENT_USER;
-- A hoisted role setting: applied as a transaction-scoped setting for alice's requests only.
ALTER ROLE pgb_alice SET statement_timeout = '7s';
CREATE SCHEMA pgb;
GRANT USAGE ON SCHEMA pgb TO pgb_anon, pgb_alice, pgb_bob;
CREATE TABLE pgb.owners (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE pgb.items (id int PRIMARY KEY, name text NOT NULL, owner_id int REFERENCES pgb.owners, price numeric);
CREATE TABLE pgb.tags (item_id int REFERENCES pgb.items, tag text, PRIMARY KEY (item_id, tag));
INSERT INTO pgb.owners SELECT g, 'owner ' || g FROM generate_series(1, 20) g;
INSERT INTO pgb.items SELECT g, 'item ' || g, 1 + g % 20, g * 1.25 FROM generate_series(1, 3000) g;
INSERT INTO pgb.tags SELECT g, t FROM generate_series(1, 3000) g, unnest(ARRAY['a', 'b']) t WHERE g % 3 = 0;
CREATE TABLE pgb.log (id bigserial PRIMARY KEY, who text NOT NULL, claim text);
CREATE TABLE pgb.scratch (id int PRIMARY KEY, note text);
GRANT SELECT ON ALL TABLES IN SCHEMA pgb TO pgb_anon, pgb_alice, pgb_bob;
GRANT INSERT ON pgb.log, pgb.scratch TO pgb_alice, pgb_bob, pgb_anon;
GRANT UPDATE ON pgb.scratch, pgb.items TO pgb_alice, pgb_bob, pgb_anon;
GRANT USAGE ON SEQUENCE pgb.log_id_seq TO pgb_alice, pgb_bob, pgb_anon;
-- What a request's transaction sees of its context.
CREATE FUNCTION pgb.who() RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'usr', current_user,
    'sub', current_setting('request.jwt.claims', true)::json->>'sub',
    'timeout', current_setting('statement_timeout'),
    'pre', current_setting('pgb.pre', true),
    'method', current_setting('request.method', true),
    'path', current_setting('request.path', true)) $$;
CREATE FUNCTION pgb.nums(n int) RETURNS SETOF int LANGUAGE sql STABLE AS $$ SELECT g FROM generate_series(1, n) g $$;
CREATE FUNCTION pgb.add(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$;
CREATE FUNCTION pgb.record(note text) RETURNS bigint LANGUAGE sql VOLATILE AS $$
  INSERT INTO pgb.log (who, claim) VALUES (current_user, note) RETURNING id $$;
-- pre-request: a transaction-scoped setting the main statement then reads (pgb.who's 'pre').
CREATE FUNCTION pgb.pre() RETURNS void LANGUAGE sql AS $$
  SELECT set_config('pgb.pre', current_user || ':' || coalesce(current_setting('request.jwt.claims', true)::json->>'sub', '-'), true) $$;
-- A long statement, to cancel (a client going away, db-statement-timeout).
CREATE FUNCTION pgb.sleepy(s float8) RETURNS SETOF int LANGUAGE sql STABLE AS $$ SELECT 1 FROM pg_sleep(s) $$;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgb TO pgb_anon, pgb_alice, pgb_bob;
`;

const found = findPgBouncer();
if ('skip' in found) {
  t.plan(0, `PgBouncer suite skipped: ${found.skip}`);
} else {
  const bin = found.bin;
  const BASE: Record<string, string> = {
    'db-schemas': 'pgb',
    'db-anon-role': 'pgb_anon',
    'jwt-secret': SECRET,
    'db-pool': '10',
    'db-prepared-statements': 'false',
    'db-pre-request': 'pgb.pre',
    'db-tx-end': 'commit-allow-override',
    'db-aggregates-enabled': 'true',
    // Every answer above 100 rows goes through the cursor (http/stream.ts).
    'server-stream-threshold': '100',
  };

  interface Running {
    readonly url: string;
    readonly server: RunningServer;
    readonly lines: string[];
    request(path: string, opts?: RequestOptions): Promise<TestResponse>;
  }

  /** A dbrest on `uri` (its config names the same uri), log lines kept at warn level. */
  async function serve(tt: { teardown(fn: () => unknown): void }, uri: string, extra: Record<string, string> = {}): Promise<Running> {
    const env: Record<string, string> = { DBREST_DB_URI: uri, DBREST_SERVER_PORT: '0', DBREST_SERVER_HOST: '127.0.0.1', DBREST_LOG_LEVEL: 'warn' };
    for (const [k, v] of Object.entries({ ...BASE, ...extra })) env['DBREST_' + k.replace(/[-.]/g, '_').toUpperCase()] = v;
    const loaded = await loadConfig({ cwd: process.cwd(), env, flags: {}, search: false });
    if (loaded.problems.length > 0) throw new Error('bad test config: ' + JSON.stringify(loaded.problems));
    const lines: string[] = [];
    const server = await startServer(loaded.config, uri, createLogger('warn', (l) => void lines.push(l)));
    tt.teardown(() => server.close());
    return { url: server.url, server, lines, request: (p, o) => httpRequest(server.url + p, o) };
  }

  let db: TestDatabase;
  let pgb: PgBouncer;
  t.before(async () => {
    db = await createTestDatabase([SQL]);
    pgb = await startPgBouncer(bin, clusterUri(), { poolMode: 'transaction', defaultPoolSize: 2, maxClientConn: 200 });
  });
  t.teardown(async () => {
    await pgb?.stop();
    await db?.drop();
  });

  const tokens: Record<string, string> = {};
  const bearer = async (role: string, sub: string) => {
    const k = `${role}/${sub}`;
    tokens[k] ??= await sign({ role, sub });
    return { Authorization: `Bearer ${tokens[k]}` };
  };

  /** Runs `jobs` with at most `clients` in flight. */
  async function concurrently<T>(clients: number, jobs: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
    const out: T[] = new Array(jobs.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < jobs.length) {
          const i = next++;
          out[i] = await jobs[i]!();
        }
      }),
    );
    return out;
  }

  interface Probe {
    readonly path: string;
    readonly opts?: RequestOptions;
  }

  // Reads, embeds, RPC (GET and POST), streamed exports in three formats, a rollback write.
  const READ_PROBES: ReadonlyArray<Probe> = [
    { path: '/items?id=lt.50&order=id' },
    { path: '/items?select=id,name,owner:owners(name),tags(tag)&id=lt.40&order=id' },
    { path: '/owners?select=name,items(id,price)&id=in.(3,4)&items.order=id.desc&items.limit=5' },
    { path: '/items?order=id', opts: { headers: { Accept: 'application/json' } } },
    { path: '/items?order=id.desc', opts: { headers: { Accept: 'text/csv' } } },
    { path: '/items?select=id,owner:owners(name)&order=id', opts: { headers: { Accept: 'application/x-ndjson' } } },
    { path: '/rpc/nums?n=2500' },
    { path: '/rpc/add?a=2&b=40' },
    { path: '/rpc/add', opts: { method: 'POST', body: { a: 1, b: 2 } } },
    { path: '/items?select=count()&owner_id=eq.3', opts: {} },
    { path: '/items?id=eq.7', opts: { headers: { Accept: 'application/vnd.pgrst.object+json' } } },
    { path: '/items?limit=5&offset=10&order=id', opts: { headers: { Prefer: 'count=exact' } } },
    {
      path: '/scratch?select=id,note',
      opts: { method: 'POST', headers: { Prefer: 'return=representation, tx=rollback' }, body: [{ id: 1, note: 'never kept' }, { id: 2, note: 'nor this' }] },
    },
    { path: '/items?id=eq.1', opts: { method: 'PATCH', headers: { Prefer: 'return=representation, tx=rollback' }, body: { name: 'rolled back' } } },
  ];

  const normalise = (r: TestResponse) => ({
    status: r.status,
    body: r.text,
    range: r.headers['content-range'] ?? null,
    type: r.headers['content-type'] ?? null,
  });

  t.test('the same answers as over a direct connection, 32 clients at once', async (t) => {
    const direct = await serve(t, db.uri);
    const pooled = await serve(t, pgb.through(db.uri), { 'db-channel-enabled': 'false' });
    const jobs = Array.from({ length: 8 }, () => READ_PROBES).flat();
    const viaPgb = await concurrently(32, jobs.map((p) => () => pooled.request(p.path, p.opts)));
    const viaDirect = await concurrently(32, jobs.map((p) => () => direct.request(p.path, p.opts)));
    for (let i = 0; i < jobs.length; i++) {
      const a = normalise(viaPgb[i]!);
      const b = normalise(viaDirect[i]!);
      if (a.status !== b.status || a.body !== b.body || a.range !== b.range || a.type !== b.type) {
        t.same(a, b, `${jobs[i]!.opts?.method ?? 'GET'} ${jobs[i]!.path}: same answer through PgBouncer as direct`);
        break;
      }
    }
    const failed = viaPgb.flatMap((r, i) => (r.status < 300 ? [] : [`${jobs[i]!.path}: ${r.status} ${r.text.slice(0, 160)}`]));
    t.same([...new Set(failed)], [], 'every request through PgBouncer answered 2xx');
    // Streamed answers really were long (the cursor path): the biggest export has all its rows.
    t.equal((viaPgb[3]!.json() as unknown[]).length, 3000, 'the streamed export has every row');
    t.equal(viaPgb[6]!.json().length, 2500, 'the streamed set-returning call has every row');
    const rows = await db.query<{ n: string }>('SELECT count(*) AS n FROM pgb.scratch');
    t.equal(Number(rows[0]!.n), 0, 'tx=rollback kept nothing');
    t.equal((await db.query("SELECT 1 FROM pgb.items WHERE name = 'rolled back'")).length, 0, 'the rolled-back PATCH kept nothing');
    t.notOk(pooled.lines.some((l) => /prepared statement/i.test(l)), 'no prepared-statement error logged');
  });

  t.test('no role, claim or setting leaks from one request to the next through PgBouncer', async (t) => {
    const pooled = await serve(t, pgb.through(db.uri), { 'db-channel-enabled': 'false' });
    const direct = await serve(t, db.uri);
    await db.query('TRUNCATE pgb.log');
    const identities = [
      { role: 'pgb_anon', sub: null as string | null },
      { role: 'pgb_alice', sub: 'alice' },
      { role: 'pgb_bob', sub: 'bob' },
    ];
    interface Outcome {
      readonly want: { role: string; sub: string | null; kind: string };
      readonly res: TestResponse;
    }
    const jobs: Array<() => Promise<Outcome>> = [];
    let writes = 0;
    for (let i = 0; i < 960; i++) {
      const id = identities[i % 3]!;
      const sub = id.sub === null ? null : `${id.sub}-${i}`;
      const kind = ['who-get', 'who-post', 'record', 'stream', 'rollback', 'who-get'][i % 6]!;
      if (kind === 'record') writes++;
      jobs.push(async () => {
        const headers: Record<string, string> = sub === null ? {} : await bearer(id.role, sub);
        let res: TestResponse;
        if (kind === 'who-get') res = await pooled.request('/rpc/who', { headers });
        else if (kind === 'who-post') res = await pooled.request('/rpc/who', { method: 'POST', headers, body: {} });
        else if (kind === 'record') res = await pooled.request('/rpc/record', { method: 'POST', headers, body: { note: sub ?? 'anon' } });
        else if (kind === 'stream') res = await pooled.request('/items?select=id,name&order=id', { headers: { ...headers, Accept: 'text/csv' } });
        else res = await pooled.request('/scratch', { method: 'POST', headers: { ...headers, Prefer: 'tx=rollback' }, body: { id: i, note: String(sub) } });
        return { want: { role: id.role, sub, kind }, res };
      });
    }
    // Interleaved with requests on the direct server, so PgBouncer's server connections see other work too.
    const outcomes = await concurrently(32, jobs);
    const bad: string[] = [];
    for (const { want, res } of outcomes) {
      if (res.status >= 300) {
        bad.push(`${want.kind} as ${want.role}: ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      if (want.kind !== 'who-get' && want.kind !== 'who-post') continue;
      const got = res.json();
      const expected = {
        usr: want.role,
        sub: want.sub,
        timeout: want.role === 'pgb_alice' ? '7s' : '0',
        pre: `${want.role}:${want.sub ?? '-'}`,
        method: want.kind === 'who-get' ? 'GET' : 'POST',
        path: '/rpc/who',
      };
      if (JSON.stringify(got) !== JSON.stringify(expected)) bad.push(`${want.kind}: got ${JSON.stringify(got)}, want ${JSON.stringify(expected)}`);
    }
    t.same(bad.slice(0, 5), [], `every request saw its own role, claims and settings (${bad.length} did not)`);
    t.ok(outcomes.some((o) => o.want.role === 'pgb_anon' && o.want.kind === 'who-get'), 'anonymous requests were among them');
    // Every committed write is there exactly once, under its own role and claim.
    const logged = await db.query<{ who: string; claim: string }>('SELECT who, claim FROM pgb.log');
    t.equal(logged.length, writes, 'each committed write once');
    t.ok(logged.every((r) => (r.claim === 'anon' ? r.who === 'pgb_anon' : r.claim.startsWith(r.who.slice(4) + '-'))), 'each write under its own role');
    t.equal((await db.query('SELECT 1 FROM pgb.scratch')).length, 0, 'tx=rollback writes kept nothing');
    t.notOk(pooled.lines.some((l) => /prepared statement/i.test(l)), 'no prepared-statement error logged');
    // The direct server's who() agrees for an anonymous request after all of that.
    const a = await pooled.request('/rpc/who');
    const b = await direct.request('/rpc/who');
    t.equal(a.text, b.text, 'an anonymous who() through PgBouncer equals the direct one');
  });
  t.test('db-channel-uri: LISTEN on a direct connection while requests go through PgBouncer', async (t) => {
    const pooled = await serve(t, pgb.through(db.uri), { 'db-channel-uri': db.uri, 'db-channel': 'pgb_reload' });
    t.equal((await pooled.request('/fresh')).status, 404, 'the table does not exist yet');
    await db.query('CREATE TABLE pgb.fresh (id int PRIMARY KEY); INSERT INTO pgb.fresh VALUES (1); GRANT SELECT ON pgb.fresh TO pgb_anon');
    await db.query("NOTIFY pgb_reload, 'reload schema'");
    // Generous bound: the reload is coalesced and then reads the catalog; 10 s only proves it came.
    let res = await pooled.request('/fresh');
    for (const until = Date.now() + 10_000; res.status !== 200 && Date.now() < until; res = await pooled.request('/fresh')) {
      await new Promise((r) => setTimeout(r, 100));
    }
    t.equal(res.status, 200, 'the NOTIFY reached dbrest: the new table answers');
    t.same(res.json(), [{ id: 1 }]);
    t.same(pooled.lines.filter((l) => /listener|pooler/.test(l)), [], 'no listener error and no pooler warning logged');
  });
  t.test('start-up warnings: prepared statements and LISTEN through a pooler', async (t) => {
    const pooled = await serve(t, pgb.through(db.uri), { 'db-prepared-statements': 'true', 'db-channel-enabled': 'true' });
    const warned = (re: RegExp) => pooled.lines.filter((l) => re.test(l));
    t.equal(warned(/db-prepared-statements is on but db-uri goes through a connection pooler.*set db-prepared-statements = false/).length, 1, 'one prepared-statements warning');
    t.equal(warned(/LISTEN dbrest goes through a connection pooler.*set db-channel-uri/).length, 1, 'one LISTEN warning naming db-channel-uri');
    // Direct: neither warning.
    const direct = await serve(t, db.uri, { 'db-prepared-statements': 'true', 'db-channel-enabled': 'true' });
    t.same(direct.lines.filter((l) => /pooler/.test(l)), [], 'no warning on a direct connection');
    // Through the pooler with a direct db-channel-uri: only the prepared-statements warning.
    const split = await serve(t, pgb.through(db.uri), { 'db-prepared-statements': 'true', 'db-channel-uri': db.uri });
    t.same(split.lines.filter((l) => /pooler/.test(l)).map((l) => /db-prepared-statements/.test(l)), [true], 'a direct db-channel-uri silences the LISTEN warning');
  });

  /** The test database's backends running pgb.sleepy (through PgBouncer their application_name is not dbrest's). */
  const sleeping = async () =>
    db.query<{ pid: number; state: string }>(
      `SELECT pid, state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE '%"sleepy"%'`,
    );
  /** Polls until `ok` holds; false after 10 s (a bound on a hang, not a timing assertion). */
  const within10s = async (ok: () => Promise<boolean>): Promise<boolean> => {
    for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) if (await ok()) return true;
    return false;
  };

  for (const [what, path] of [
    ['a buffered answer (limit=1)', '/rpc/sleepy?s=60&limit=1'],
    ['a streamed answer, before its first row', '/rpc/sleepy?s=60'],
  ] as const) {
    t.test(`a client that goes away mid-query: ${what} is cancelled through PgBouncer`, async (t) => {
      const pooled = await serve(t, pgb.through(db.uri), { 'db-channel-enabled': 'false' });
      const cancelsBefore = opsCounters.cancelRequests;
      const req = http.get(pooled.url + path, { agent: false });
      req.on('error', () => undefined);
      t.ok(await within10s(async () => (await sleeping()).length === 1), 'the statement runs on a server connection');
      const [backend] = await sleeping();
      req.destroy();
      // PgBouncer forwards dbrest's cancel request (sent to it, with the key it handed out) to that backend.
      t.ok(await within10s(async () => (await sleeping()).length === 0), 'the statement stopped');
      const same = await db.query<{ state: string }>('SELECT state FROM pg_stat_activity WHERE pid = $1', [backend!.pid]);
      t.same(same.map((r) => r.state), ['idle'], 'its backend is still there, idle: the statement was cancelled, not the connection killed');
      t.equal((await pooled.request('/items?id=eq.1&select=id')).status, 200, 'the next request through PgBouncer answers');
      t.ok(opsCounters.cancelRequests > cancelsBefore, 'dbrest sent a cancel request');
    });
  }

  t.test('db-statement-timeout through PgBouncer: the statement ends at the limit (57014), the connection serves the next request', async (t) => {
    const pooled = await serve(t, pgb.through(db.uri), { 'db-channel-enabled': 'false', 'db-statement-timeout': '300' });
    const res = await pooled.request('/rpc/sleepy?s=60&limit=1');
    t.equal(res.status, 500);
    t.equal(res.json().code, '57014', 'canceling statement due to statement timeout');
    t.same(await sleeping(), [], 'no statement left running');
    t.equal((await pooled.request('/items?id=eq.1&select=id')).status, 200, 'the next request through PgBouncer answers');
  });
}
