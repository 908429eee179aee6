// Connections shared by pipelining (db/leases.ts, policy in db/share-policy.ts): with every connection
// busy, a request's batch goes behind the fresh batches on a connection instead of waiting (at most
// one batch shares with a batch not known fast); with a free one, only fast classes share; each batch stays its own
// transaction (settings, failures and rollbacks never reach a neighbour); a connection whose head
// batch is slow takes no more, so those requests wait for the pool as before.
import type pg from 'pg';
import t from 'tap';
import { LeaseManager, leases, type Lease } from '../../../src/db/leases.js';
import { poolHost, sharePolicyFor } from '../../../src/db/locality.js';
import { LOCAL_SHARE_POLICY, SharePolicy } from '../../../src/db/share-policy.js';
import { createPool } from '../../../src/db/pool.js';
import { runTransaction, type RequestTransaction } from '../../../src/db/transaction.js';
import { ClientGone } from '../../../src/request/gone.js';
import { createTestDatabase } from '../../helpers/db.js';

const base: RequestTransaction = { readOnly: false, settings: [], preRequest: null, statements: [], end: 'commit', prepared: true };
const tick = () => new Promise<void>((r) => setImmediate(r));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A throwaway database and a pool of `size` connections on it, both gone when the test ends. */
async function databaseWithPool(t: { teardown(fn: () => unknown): void }, size: number, acquisitionTimeout: number, fixtures: string[] = []) {
  const db = await createTestDatabase(fixtures);
  const pool = createPool(db.uri, { dbPool: size, dbPoolAcquisitionTimeout: acquisitionTimeout, dbPoolMaxLifetime: 1800, dbPoolMaxIdletime: 30 });
  t.teardown(async () => {
    const ended = pool.end();
    endCheckedOut(pool);
    await ended;
    await db.drop();
  });
  return { db, pool };
}

type PoolInternals = { _clients: pg.PoolClient[]; _idle: { client: pg.PoolClient }[]; _remove(c: pg.PoolClient, done: () => void): void; _pulseQueue(): void };

/**
 * pool.end() waits until every checked-out client is released. A test that failed part-way (an
 * acquisition that timed out on a busy machine, say) leaves its leases unreleased: end those
 * clients, so the failure is reported instead of hanging the file until tap's timeout.
 */
function endCheckedOut(pool: pg.Pool): void {
  const internals = pool as unknown as PoolInternals;
  const idle = new Set(internals._idle.map((i) => i.client));
  for (const client of internals._clients.filter((c) => !idle.has(c))) internals._remove(client, () => internals._pulseQueue());
}

/**
 * A manager with the pool's own policy but time windows 50 times as wide (the tests that use it
 * sleep 250 ms to age a head, not 10): on a busy machine the test process can be descheduled for a
 * few ms between two awaits, which would age a head past the product's 2 ms. Classes stay fast
 * whatever times the releases record.
 */
function roomyManager(pool: pg.Pool): LeaseManager {
  const options = sharePolicyFor(poolHost(pool));
  return new LeaseManager(pool, new SharePolicy({ ...options, fastMs: 60_000, slowMs: 60_000, firstMs: 100, stallMinMs: 100, stallMaxMs: 100 }));
}

/**
 * Opens all `size` connections of `pool` now, so that tests timing short acquisition timeouts do
 * not time connecting to PostgreSQL as well (slow on a busy machine). A connect that times out is
 * tried again.
 */
async function openAll(pool: pg.Pool, size: number): Promise<void> {
  for (let tries = 0; pool.idleCount < size && tries < 20; tries++) {
    const got = await Promise.allSettled(Array.from({ length: size - pool.totalCount }, () => pool.connect()));
    for (const g of got) if (g.status === 'fulfilled') g.value.release();
  }
  if (pool.idleCount < size) throw new Error(`could not open ${size} connections`);
}

t.test('a busy connection is shared while its head batch is young, then not', async (t) => {
  const { pool } = await databaseWithPool(t, 1, 0.3);
  await openAll(pool, 1);
  const manager = leases(pool);
  const first = await manager.acquire();
  const started = performance.now();
  const second = await manager.acquire();
  t.ok(performance.now() - started < 50, 'the second lease did not wait for the first to be released');
  t.equal(second.client, first.client, 'it is the same (only) connection');

  await sleep(40); // the head batch is now older than the sharing window
  const third = manager.acquire();
  await t.rejects(third, /timeout/i, 'a connection busy for long is not shared: the pool timeout applies');

  first.release();
  second.release();
  t.equal(pool.idleCount, 1, 'released once, back in the pool, when its last lease ends');
  const fourth = await manager.acquire();
  t.equal(fourth.client, first.client);
  fourth.release();
  fourth.release(); // a second release is a no-op
  t.equal(pool.idleCount, 1);
});

t.test('fast batches are joined even with a free connection; others, and behind a busy head, are not', async (t) => {
  const { pool } = await databaseWithPool(t, 3, 5);
  const manager = roomyManager(pool);
  // Three measured fast batches of class 'q' (the times a real batch reports on release).
  for (let i = 0; i < 3; i++) manager.policy.record('q', 0.5);
  const a = await manager.acquire('q');
  const b = await manager.acquire('q');
  t.equal(b.client, a.client, 'a fast class joins a fresh fast head, though a second connection was free');
  const u = await manager.acquire('unknown');
  t.not(u.client, a.client, 'a class never measured gets a connection of its own');
  await sleep(250);
  const c = await manager.acquire('q');
  t.not(c.client, a.client, 'the head has been served longer than the window: not joined');
  t.not(c.client, u.client, 'nor the connection of a batch not known fast');
  t.equal(pool.totalCount, 3);
  for (const l of [a, b, c, u]) l.release();
  t.equal(pool.idleCount, 3);
});

t.test('pipelined batches on one connection stay separate transactions', async (t) => {
  const { db, pool } = await databaseWithPool(t, 1, 5, ['CREATE TABLE items (id int PRIMARY KEY, note text NOT NULL)']);
  const insert = (id: number, note: string | null) => ({ text: 'INSERT INTO items VALUES ($1, $2) RETURNING id', values: [id, note] });
  const readSetting = { text: "SELECT coalesce(current_setting('request.method', true), '')", values: [] };

  // The first batch takes the connection; the rest, started one tick later, are pipelined behind
  // it (up to the depth limit) or wait for it.
  const head = runTransaction(pool, { ...base, statements: [insert(1, 'head')] });
  await tick();
  const runs = Array.from({ length: 24 }, (_, i) => {
    const id = 100 + i;
    switch (i % 4) {
      case 0: // commits
        return runTransaction(pool, { ...base, settings: [['request.method', `M${i}`]], statements: [insert(id, 'kept'), readSetting] });
      case 1: // fails after a successful statement: its first insert is rolled back
        return runTransaction(pool, { ...base, statements: [insert(id, 'lost'), insert(id + 1000, null)] });
      case 2: // rolls back by request, after failing inside its explicit transaction
        return runTransaction(pool, { ...base, end: 'rollback', statements: [insert(id, 'lost'), { text: 'SELECT 1/0', values: [] }] });
      default: // sees no setting of a neighbour
        return runTransaction(pool, { ...base, statements: [readSetting] });
    }
  });
  const [first, ...rest] = await Promise.all([head, ...runs]);
  t.ok(first!.ok);
  rest.forEach((out, i) => {
    switch (i % 4) {
      case 0:
        t.ok(out.ok, `#${i} committed`);
        if (out.ok) t.same(out.results[1]!.rows, [[`M${i}`]], `#${i} saw its own setting`);
        break;
      case 1:
        t.equal(!out.ok && out.kind === 'database' && out.error.code, '23502', `#${i} failed with 23502`);
        break;
      case 2:
        t.equal(!out.ok && out.kind === 'database' && out.error.code, '22012', `#${i} failed with 22012`);
        break;
      default:
        t.ok(out.ok);
        if (out.ok) t.same(out.results[0]!.rows, [['']], `#${i} saw no neighbour's setting`);
    }
  });
  const kept = (await db.query<{ id: number }>('SELECT id FROM items ORDER BY id')).map((r) => r.id);
  t.same(kept, [1, ...Array.from({ length: 6 }, (_, k) => 100 + 4 * k)], 'exactly the committed rows');
  const after = await runTransaction(pool, { ...base, statements: [{ text: 'SELECT pg_catalog.txid_current_if_assigned() IS NULL', values: [] }] });
  t.ok(after.ok, 'the connection is usable afterwards (no aborted transaction left open)');
  t.equal(pool.totalCount, 1, 'all of it on one connection');
});

t.test('requests that wait are served in order, and a newcomer does not join past them', async (t) => {
  const { pool } = await databaseWithPool(t, 1, 5);
  const manager = roomyManager(pool);
  for (let i = 0; i < 3; i++) manager.policy.record('q', 0.5); // class 'q' is fast (0.5 ms)
  // The one connection runs three fast batches, pipelined while the head was fresh.
  const a1 = await manager.acquire('q');
  const a2 = await manager.acquire('q');
  const a3 = await manager.acquire('q');
  t.equal(a3.client, a1.client);
  await sleep(250); // the head has run longer than the window: nobody joins now
  const order: string[] = [];
  const b = manager.acquire('unknown').then((l) => (order.push('b'), l));
  await tick();
  t.equal(manager.waitingCount(), 1, 'a batch that may not join waits');
  a1.release();
  await tick();
  // The head (a2) is fresh again. A batch not known fast may not be third on a connection, but a
  // fast one could join: it must not go past the one waiting.
  const d = manager.acquire('q').then((l) => (order.push('d'), l));
  await tick();
  t.equal(manager.waitingCount(), 2, 'the newcomer queues behind the waiting request instead of joining');
  t.same(order, []);
  a2.release();
  a3.release(); // the connection goes back to the pool, and to the first in line
  const [lb, ld] = await Promise.all([b, d]);
  t.same(order, ['b', 'd'], 'served in the order they came');
  t.equal(lb.client, a1.client);
  t.equal(ld.client, lb.client, 'the second joined the first one behind it');
  t.equal(manager.waitingCount(), 0);
  lb.release();
  ld.release();
  // The second's own request to the pool, no longer needed, gets the connection and gives it back.
  await tick();
  await tick();
  t.equal(pool.idleCount, 1, 'the connection is back in the pool');
  t.equal(pool.waitingCount, 0);
});

t.test('a waiter whose acquisition times out leaves the line; the next one is served', async (t) => {
  const { pool } = await databaseWithPool(t, 1, 0.2);
  await openAll(pool, 1);
  const manager = leases(pool);
  const held = await manager.acquire('x');
  await sleep(10); // too long at the head to be joined
  const first = manager.acquire('x');
  await t.rejects(first, /timeout/i, 'no connection within the acquisition timeout');
  t.equal(manager.waitingCount(), 0, 'it left the line');
  const second = manager.acquire('x');
  await sleep(20);
  held.release();
  const l = await second;
  t.equal(l.client, held.client, 'the next waiter got the connection');
  l.release();
  t.equal(pool.idleCount, 1);
});

// A client that goes away while its batch runs at the head of a connection, with another batch
// pipelined behind it: the running batch is cancelled at once (not left to run to its end), the
// follower is answered, and the connection is not reused. A follower that the cancel may have hit
// (simulated here by a second cancel while it runs) is run again on another connection.
t.test('a batch whose client went away is cancelled though another follows it; the follower is answered', async (t) => {
  const { db, pool } = await databaseWithPool(t, 1, 5, ['CREATE TABLE items (id int PRIMARY KEY, note text NOT NULL)']);
  const pid = async (): Promise<number> => {
    const out = await runTransaction(pool, { ...base, statements: [{ text: 'SELECT pg_backend_pid()', values: [] }] });
    if (!out.ok) throw new Error('pg_backend_pid failed');
    return out.results[0]!.rows[0]![0] as number;
  };
  /** pg_cancel_backend on the backend running insertThenSleep's pg_sleep, once it runs; false if it never did. */
  const cancelRunningSleep = async (): Promise<boolean> => {
    for (let i = 0; i < 100; i++) {
      const hit = await db.query<{ n: number }>(
        "SELECT count(pg_cancel_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep($1::float8)%' AND state = 'active'",
      );
      if (hit[0]!.n > 0) return true;
      await sleep(20);
    }
    return false;
  };
  const insertThenSleep = (id: number, seconds: number) => [
    { text: 'INSERT INTO items VALUES ($1, $2)', values: [id, 'follower'] },
    { text: 'SELECT pg_sleep($1::float8), $2::int AS id', values: [seconds, id] },
  ];

  await t.test('the head batch is cancelled at once', async (t) => {
    const before = await pid();
    const gone = new ClientGone();
    const started = performance.now();
    // Started in the same tick: the second joins the first's connection (all the pool has).
    const head = runTransaction(pool, { ...base, signal: gone, statements: [{ text: 'SELECT pg_sleep(5)', values: [] }] });
    const follower = runTransaction(pool, { ...base, statements: insertThenSleep(1, 0) });
    await sleep(150);
    t.equal(pool.totalCount, 1, 'one connection for both');
    gone.abort();
    const [h, f] = await Promise.all([head, follower]);
    const ms = performance.now() - started;
    t.equal(!h.ok && h.kind === 'database' && h.error.code, '57014', 'the head batch was cancelled');
    t.ok(ms < 2000, `and did not run its 5 s (${Math.round(ms)} ms)`);
    t.ok(f.ok, 'the follower was answered');
    if (f.ok) t.same(f.results[1]!.rows, [['', 1]], 'with its rows');
    t.same(await db.query('SELECT id FROM items'), [{ id: 1 }], 'its insert was made once');
    t.not(await pid(), before, 'the connection the cancel was sent on was not reused');
  });

  await t.test('a follower hit by a cancel meant for the head runs again', async (t) => {
    await db.query('TRUNCATE items');
    const gone = new ClientGone();
    const head = runTransaction(pool, { ...base, signal: gone, statements: [{ text: 'SELECT pg_sleep(5)', values: [] }] });
    const follower = runTransaction(pool, { ...base, statements: insertThenSleep(2, 0.8) });
    await sleep(100);
    gone.abort();
    // The follower is running its pg_sleep now: cancel it, as the head's cancel would if it came late.
    t.ok(await cancelRunningSleep(), 'the follower was cancelled while it ran');
    const hitAt = performance.now();
    const [h, f] = await Promise.all([head, follower]);
    t.equal(!h.ok && h.kind === 'database' && h.error.code, '57014', 'the head batch was cancelled');
    t.ok(f.ok, 'the follower was answered after all');
    if (f.ok) t.same(f.results[1]!.rows, [['', 2]]);
    const after = performance.now() - hitAt;
    t.ok(after >= 750, `by a second run, whole after the cancel (${Math.round(after)} ms)`);
    t.same(await db.query('SELECT id FROM items'), [{ id: 2 }], 'its insert is there once: the cancelled run left nothing');
  });

  await t.test('a batch cancelled by anyone else is not run again', async (t) => {
    await db.query('TRUNCATE items');
    const alone = runTransaction(pool, { ...base, statements: insertThenSleep(3, 2) });
    t.ok(await cancelRunningSleep(), 'cancelled while it ran');
    const out = await alone;
    t.equal(!out.ok && out.kind === 'database' && out.error.code, '57014', 'its 57014 is its answer');
    t.same(await db.query('SELECT id FROM items'), [], 'and nothing was written');
  });
});

// Hedging: a read-only batch held up behind a stalled head batch on a shared connection is also run
// on another connection, and its first answer wins; a batch that may not run twice waits its turn.
t.test('a read held up by a stalled head is answered from another connection; a write waits', async (t) => {
  const { db, pool } = await databaseWithPool(t, 2, 5, ['CREATE TABLE items (id int PRIMARY KEY, note text NOT NULL)']);
  const manager = leases(pool);
  // Long enough that a busy machine's connect and run of the hedge fit well inside it.
  const slow = { text: 'SELECT pg_sleep($1::float8)', values: [1.5] };
  const read = { text: 'SELECT $1::int AS n', values: [42] };
  const write = { text: 'INSERT INTO items VALUES ($1, $2) RETURNING id', values: [1, 'once'] };
  // Known fast classes (as measured by earlier batches), so the reads join the head's connection
  // while a second connection is still free.
  for (const st of [slow, read, write]) for (let i = 0; i < 3; i++) manager.policy.record(st.text, 0.5);
  const after = manager.policy.hedgeAfter(slow.text);

  await t.test('the read is hedged', async (t) => {
    const started = performance.now();
    const head = runTransaction(pool, { ...base, readOnly: true, statements: [slow] });
    const follower = runTransaction(pool, { ...base, readOnly: true, hedge: true, statements: [read] });
    const f = await follower;
    const ms = performance.now() - started;
    t.ok(f.ok, 'answered');
    if (f.ok) t.same(f.results[0]!.rows, [[42]], 'with its rows');
    t.ok(ms < 1200, `before the head's 1,500 ms were over (${Math.round(ms)} ms; hedged after ${after} ms)`);
    t.equal(manager.hedges, 1, 'by a second run');
    t.equal(pool.totalCount, 2, 'on the other connection');
    t.ok((await head).ok, 'the head ends as usual');
    await sleep(20);
    t.equal(pool.idleCount, 2, 'and the run left behind gave its connection back');
  });

  await t.test('a batch that may not run twice waits for the head', async (t) => {
    const started = performance.now();
    const head = runTransaction(pool, { ...base, readOnly: true, statements: [slow] });
    const follower = runTransaction(pool, { ...base, statements: [write] });
    const f = await follower;
    const ms = performance.now() - started;
    t.ok(f.ok, 'answered');
    t.ok(ms >= 1450, `after the head (${Math.round(ms)} ms)`);
    t.equal(manager.hedges, 1, 'not hedged');
    t.same(await db.query('SELECT id FROM items'), [{ id: 1 }], 'its row is there once');
    t.ok((await head).ok);
  });
});

t.test('a class with big answers gets connections of its own; answer sizes are measured', async (t) => {
  const { pool } = await databaseWithPool(t, 3, 5);
  const measured = leases(pool);
  const big = { text: 'SELECT repeat($1, 5000)', values: ['x'] };
  const small = { text: 'SELECT $1::text', values: ['x'] };
  for (let i = 0; i < 3; i++) {
    t.ok((await runTransaction(pool, { ...base, statements: [big] })).ok);
    t.ok((await runTransaction(pool, { ...base, statements: [small] })).ok);
  }
  t.ok(measured.policy.size(big.text) > 5_000, `a 5,000-character answer measures over 5,000 bytes (${Math.round(measured.policy.size(big.text))})`);
  t.ok(measured.policy.size(small.text) < 100, `a one-character answer, a few bytes (${Math.round(measured.policy.size(small.text))})`);

  // Sharing by those measured sizes, with windows a busy machine cannot miss.
  const manager = roomyManager(pool);
  for (const st of [big, small]) for (let i = 0; i < 3; i++) manager.policy.record(st.text, 0.5, measured.policy.size(st.text));

  const a = await manager.acquire(small.text);
  const b = await manager.acquire(small.text);
  t.equal(b.client, a.client, 'small answers share');
  const c = await manager.acquire(big.text);
  t.equal(c.client, a.client, 'a big one may follow small ones');
  const d = await manager.acquire(big.text);
  t.not(d.client, a.client, 'but not a second big one');
  for (const l of [a, b, c, d]) l.release();
});

t.test('on a database on this machine, fast batches pipeline deep; a few ms ahead is the limit', async (t) => {
  const { pool } = await databaseWithPool(t, 3, 5);
  t.same(leases(pool).policy.options, sharePolicyFor(poolHost(pool)), "the pool's manager has the policy for where its database runs");
  const manager = new LeaseManager(pool, new SharePolicy(LOCAL_SHARE_POLICY));
  for (let i = 0; i < 3; i++) manager.policy.record('quick', 0.05);
  const first = await manager.acquire('quick');
  const joined = Array.from({ length: 20 }, () => manager.tryShare('quick'));
  t.ok(
    joined.every((l) => l?.client === first.client),
    '20 more join the first connection, though two more were free',
  );
  t.equal(pool.totalCount, 1);
  for (const l of [first, ...joined]) l!.release();

  for (let i = 0; i < 3; i++) manager.policy.record('four', 4);
  const a = await manager.acquire('four');
  const b = manager.tryShare('four');
  const c = manager.tryShare('four');
  t.equal(b?.client, a.client, 'a class usually taking 4 ms: the second joins (4 ms ahead)');
  t.equal(c?.client, a.client, 'the third too (8 ms ahead)');
  const d = await manager.acquire('four');
  t.not(d.client, a.client, 'the fourth (12 ms ahead) gets a connection of its own');
  for (const l of [a, b!, c!, d]) l.release();
});

t.test('fast batches run on a bounded number of connections; the rest wait for one, others do not', async (t) => {
  const { pool } = await databaseWithPool(t, 4, 1);
  await openAll(pool, 4);
  // The leases here are held for tens of ms (longer on a busy machine): thresholds that keep the
  // class fast whatever times its releases record, since this is about the bound.
  const manager = new LeaseManager(pool, new SharePolicy({ ...LOCAL_SHARE_POLICY, maxFastConnections: 2, fastMs: 60_000, slowMs: 60_000 }));
  // A fast class with big answers: it cannot join, so each batch would take a connection.
  for (let i = 0; i < 3; i++) manager.policy.record('big', 0.5, 7000);
  const a = await manager.acquire('big');
  const b = await manager.acquire('big');
  t.not(b.client, a.client);
  let third: Lease | null = null;
  const waiting = manager.acquire('big').then((l) => (third = l));
  await sleep(50);
  t.equal(third, null, 'a third waits, though the pool has two more connections');
  t.equal(pool.idleCount, 2);
  const slow = await manager.acquire('unknown');
  t.ok(slow.client !== a.client && slow.client !== b.client, 'a batch not known fast takes one of those at once');
  a.release();
  await waiting;
  t.ok(third !== null, 'the third gets a connection once one of the two is released');
  t.equal(pool.idleCount, 1, 'it took one connection, no more');

  t.ok(manager.policy.fast('big'), 'the class is still fast');
  const late = manager.acquire('big');
  await t.rejects(late, /timeout exceeded/, 'one that waits longer than the acquisition timeout gets its error (DBRST003)');
  t.equal(manager.waitingCount(), 0, 'and leaves the line');
  for (const l of [b, slow, third!]) l.release();
  const again = await manager.acquire('big');
  t.ok(again, 'with those released, fast batches get connections again');
  again.release();
});

t.test('a parked batch waits one acquisition timeout in all, parked or not', async (t) => {
  const { pool } = await databaseWithPool(t, 2, 1);
  await openAll(pool, 2);
  // firstMs: while a connection is free, a batch joins a head only within firstMs (2) of its start;
  // on a loaded machine the test resumed after that now and then (clean-clone CI, 2026-11-28), so
  // the first join must not hang on the test's own pace. The rest does not depend on it: 'unknown'
  // is not known fast (it never joins while a connection is free), and after it none is free.
  const options = { ...LOCAL_SHARE_POLICY, maxFastConnections: 1, fastMs: 60_000, slowMs: 60_000, firstMs: 60_000 };
  const manager = new LeaseManager(pool, new SharePolicy(options));
  for (let i = 0; i < 3; i++) {
    manager.policy.record('big', 0.5, 7000);
    manager.policy.record('small', 0.5, 10);
  }
  const a = await manager.acquire('big');
  const joined = manager.tryShare('small');
  t.equal(joined?.client, a.client, 'a small batch shares the big one\'s connection');
  const other = await manager.acquire('unknown'); // the pool's last connection
  await sleep(10); // its head is no longer fresh: nothing joins it
  const started = performance.now();
  const parked = manager.acquire('big');
  let settled = false;
  parked.then(
    () => (settled = true),
    () => (settled = true),
  );
  await sleep(600);
  t.equal(settled, false, 'parked');
  // Room for a second connection of fast batches, noticed when the small batch ends: it now asks
  // the pool, which has none free.
  (options as { maxFastConnections: number }).maxFastConnections = 2;
  joined!.release();
  await t.rejects(parked, /timeout exceeded/, 'it gets the timeout error');
  const ms = performance.now() - started;
  t.ok(ms < 1400, `one timeout after it came (${Math.round(ms)} ms), not one after it asked the pool (1,600)`);
  a.release();
  other.release();
});

t.test('a connection whose batches are answered goes to the next in line without the pool, for a while', async (t) => {
  const { pool } = await databaseWithPool(t, 1, 5);
  await openAll(pool, 1);
  let releases = 0;
  pool.on('release', () => releases++);
  // One connection of fast batches at most: the others are parked in line (not asking the pool).
  const manager = new LeaseManager(pool, new SharePolicy({ ...LOCAL_SHARE_POLICY, maxFastConnections: 1, fastMs: 60_000, slowMs: 60_000 }));
  // A fast class with big answers: a batch never joins another, so each waits for the connection.
  for (let i = 0; i < 3; i++) manager.policy.record('big', 0.5, 7000);

  const a = await manager.acquire('big');
  const next = manager.acquire('big');
  await tick();
  t.equal(manager.waitingCount(), 1, 'the second waits for the connection of fast batches');
  a.release();
  const b = await next;
  t.equal(b.client, a.client, 'it gets the connection the first one had');
  t.equal(releases, 0, 'handed on: the pool did not see it');

  await t.test('not while someone waits for the pool itself', async (t) => {
    const own = pool.connect(); // a cursor's exclusive connection, say
    const inLine = manager.acquire('big');
    await tick();
    b.release();
    const client = await own;
    t.equal(client, a.client, 'the pool\'s own waiter got it');
    t.equal(releases, 1, 'back through the pool');
    client.release();
    const c = await inLine;
    t.equal(c.client, a.client, 'then the one in line');
    const later = manager.acquire('big');
    await sleep(1100); // longer than a connection is handed on without the pool
    const before = releases;
    c.release();
    const d = await later;
    t.equal(d.client, a.client);
    t.equal(releases, before + 1, 'after a second away from the pool, it goes back through it');
    const last = manager.acquire('big');
    await tick();
    d.release(new Error('broken'));
    const e = await last;
    t.not(e.client, a.client, 'a broken connection is never handed on: the next gets a new one');
    t.equal(pool.totalCount, 1);
    e.release();
    t.equal(pool.idleCount, 1);
  });
});

t.test('while connections are free, writes each get one (beyond the bound on fast ones) and nothing waits behind them', async (t) => {
  const { db, pool } = await databaseWithPool(t, 6, 10, ['CREATE TABLE seen (pid int NOT NULL)']);
  await openAll(pool, 6);
  const manager = leases(pool);
  // Fast batches on two connections at most, and windows no busy machine can outlast: the bound is
  // what writes must not be held to, and the policy would let fast batches join while a connection is free.
  Object.assign(manager.policy.options as object, { maxFastConnections: 2, fastMs: 60_000, slowMs: 60_000, firstMs: 60_000 });
  // Each write waits, inside its transaction, for a lock this test holds: until it is released,
  // PostgreSQL shows which backends the writes reached.
  const write = { text: 'INSERT INTO seen (pid) SELECT pg_backend_pid() FROM (SELECT pg_advisory_xact_lock_shared(7)) AS l', values: [] };
  const read = { text: 'SELECT $1::int AS n', values: [42] };
  for (let i = 0; i < 3; i++) manager.policy.record(write.text, 0.5);
  for (let i = 0; i < 3; i++) manager.policy.record(read.text, 0.5);
  t.ok(manager.policy.fast(write.text) && manager.policy.fast(read.text), 'both classes are known fast');

  await db.query('SELECT pg_advisory_lock(7)');
  const writes = Array.from({ length: 5 }, () => runTransaction(pool, { ...base, statements: [write] }));
  const waitingBackends = async () =>
    Number((await db.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'"))[0]!.n);
  let waiting = 0;
  for (const until = Date.now() + 10_000; Date.now() < until && (waiting = await waitingBackends()) < 5; ) await sleep(20);
  t.equal(waiting, 5, 'five writes wait in five backends at once: their commits would flush together');

  const r = await Promise.race([runTransaction(pool, { ...base, readOnly: true, statements: [read] }), sleep(10_000).then(() => null)]);
  t.ok(r?.ok, 'a read answers while the writes still wait: it took the free connection instead of joining one of them');
  t.equal(await waitingBackends(), 5, 'they still wait');

  await db.query('SELECT pg_advisory_unlock(7)');
  const outcomes = await Promise.all(writes);
  t.ok(outcomes.every((o) => o.ok), 'every write commits');
  const rows = await db.query<{ pid: number }>('SELECT pid FROM seen');
  t.equal(rows.length, 5);
  t.equal(new Set(rows.map((row) => row.pid)).size, 5, 'each on a backend of its own');
});
