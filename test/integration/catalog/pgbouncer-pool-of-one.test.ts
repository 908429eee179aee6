// The schema cache through a transaction-mode PgBouncer with ONE server connection. The load's main
// connection holds that connection for its transaction, so its helper can never join the snapshot
// (catalog/fetch.ts): the load goes on alone after a second, and the helper must be ended then, not
// left queued in PgBouncer. Left queued, its BEGIN took the connection as soon as the main
// transaction ended and kept it in an aborted transaction, while the main connection's next query
// (the role settings) waited for it for ever: the first load, the prefetch and reloads all hung.
import t from 'tap';
import { prefetchSchemaCache } from '../../../src/catalog/prefetch.js';
import { startServer, type RunningServer } from '../../../src/http/start.js';
import { createLogger } from '../../../src/observe/log.js';
import { clusterUri, createTestDatabase } from '../../helpers/db.js';
import { findPgBouncer, startPgBouncer } from '../../helpers/pgbouncer.js';
import { httpRequest, testConfig } from '../../helpers/server.js';

/** `p`, or a rejection naming `what` after `ms`: a hang fails the test instead of the file. */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const superuser = () => decodeURIComponent(new URL(clusterUri()).username);

const found = findPgBouncer();
t.test('through a PgBouncer pool of one server connection, the schema cache loads and reloads', { skip: 'skip' in found ? found.skip : false }, async (t) => {
  const db = await createTestDatabase(['CREATE TABLE public.items (id int PRIMARY KEY); INSERT INTO public.items VALUES (1), (2)']);
  t.teardown(() => db.drop());
  const pgb = await startPgBouncer((found as { bin: string }).bin, clusterUri(), { poolMode: 'transaction', defaultPoolSize: 1 });
  t.teardown(() => pgb.stop());
  const uri = pgb.through(db.uri);
  const config = await testConfig(uri, { 'db-schemas': 'public', 'db-anon-role': superuser(), 'db-hoisted-tx-settings': 'statement_timeout' });

  // `dbrest serve`'s first load: two connections of its own, then the role settings on the main one.
  const prefetched = await within(20_000, 'prefetchSchemaCache', prefetchSchemaCache(uri, ['public'], config.dbHoistedTxSettings, 5000));
  t.ok(prefetched.loaded.cache.relations.some((r) => r.name === 'items'), 'the prefetch read the catalog');
  t.equal(prefetched.sessionUser, superuser(), 'and then the session user, on the same connection');

  // The server's own loads: a pooled connection and a helper outside the pool.
  const lines: string[] = [];
  let server: RunningServer | null = null;
  t.teardown(() => server?.close());
  server = await within(20_000, 'startServer', startServer(config, uri, createLogger('warn', (l) => void lines.push(l))));
  const items = await httpRequest(`${server.url}/items?order=id`);
  t.equal(items.status, 200);
  t.same(items.json(), [{ id: 1 }, { id: 2 }]);

  await db.query('CREATE TABLE public.fresh (id int)');
  await within(20_000, 'reloadSchemaCache', server.reloadSchemaCache('test'));
  t.equal((await httpRequest(`${server.url}/fresh`)).status, 200, 'the reload read the new table');

  // What reached PostgreSQL: no server connection is left inside a transaction by a helper.
  const held = await db.query<{ state: string; query: string }>(
    `SELECT state, query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`);
  t.same(held, [], 'no connection idle in a transaction');
  t.same(lines.filter((l) => /schema cache/.test(l)), [], 'no schema cache failure logged');
});
