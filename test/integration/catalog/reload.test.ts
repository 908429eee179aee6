// listenForNotifications against a real PostgreSQL: a NOTIFY on the channel reaches onNotify, the
// channel name is quoted, and after the listening backend is killed (pg_terminate_backend) the
// listener reconnects by itself, calls onConnected again and keeps receiving.
import t from 'tap';
import { listenForNotifications } from '../../../src/catalog/reload.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

let db: TestDatabase;
t.before(async () => {
  db = await createTestDatabase();
});
t.teardown(async () => {
  await db?.drop();
});

/** Resolves when `check` holds, polling every 20 ms; rejects after `ms`. */
async function until(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function listenerPids(): Promise<number[]> {
  const rows = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`,
    [db.name],
  );
  return rows.map((r) => r.pid);
}

t.test('NOTIFY reaches the listener, which survives a killed connection', async (t) => {
  const channel = 'dbrest "test" channel';
  const payloads: string[] = [];
  const errors: Error[] = [];
  let connects = 0;
  const listener = listenForNotifications({
    uri: db.uri,
    channel,
    onNotify: (p) => payloads.push(p),
    onError: (e) => errors.push(e),
    onConnected: () => connects++,
  });
  t.teardown(() => listener.close());

  await until(() => connects === 1, 10_000, 'first connection');
  await db.query('SELECT pg_notify($1, $2)', [channel, 'reload schema']);
  await db.query(`NOTIFY "dbrest ""test"" channel"`);
  await db.query('SELECT pg_notify($1, $2)', ['some other channel', 'ignored']);
  await until(() => payloads.length >= 2, 10_000, 'notifications');
  t.same(payloads, ['reload schema', ''], 'payloads in order; other channels ignored');

  const pids = await listenerPids();
  t.equal(pids.length, 1, 'one listening backend');
  await db.query('SELECT pg_terminate_backend($1)', [pids[0]]);
  await until(() => connects === 2, 10_000, 'reconnection');
  t.ok(errors.length >= 1, 'the lost connection was reported');
  const newPids = await listenerPids();
  t.equal(newPids.length, 1);
  t.not(newPids[0], pids[0], 'a new backend');

  await db.query('SELECT pg_notify($1, $2)', [channel, 'reload config']);
  await until(() => payloads.length >= 3, 10_000, 'notification after reconnect');
  t.equal(payloads[2], 'reload config');

  await listener.close();
  await new Promise((r) => setTimeout(r, 200));
  t.same(await listenerPids(), [], 'close() ends the connection and does not reconnect');
});

t.test('keeps retrying while the database is unreachable, then connects', async (t) => {
  // A port nothing listens on: every attempt fails and is reported; close() stops the retries.
  const errors: Error[] = [];
  const started = Date.now();
  const listener = listenForNotifications({
    uri: 'postgres://nobody:x@127.0.0.1:1/none',
    channel: 'dbrest',
    onNotify: () => undefined,
    onError: (e) => errors.push(e),
  });
  await until(() => errors.length >= 4, 10_000, 'retries');
  // 100 + 200 + 400 ms of backoff at least between the first and the fourth attempt
  t.ok(Date.now() - started >= 600, `backoff grows (${Date.now() - started} ms for ${errors.length} attempts)`);
  await listener.close();
  const n = errors.length;
  await new Promise((r) => setTimeout(r, 1000));
  t.equal(errors.length, n, 'no attempt after close()');
});

t.test('a listener closed before it connected does not linger', async (t) => {
  const listener = listenForNotifications({ uri: db.uri, channel: 'dbrest', onNotify: () => undefined });
  await listener.close();
  await new Promise((r) => setTimeout(r, 300));
  t.same(await listenerPids(), []);
});
