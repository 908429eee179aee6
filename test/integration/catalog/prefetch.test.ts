// The first schema-cache load started before the server (catalog/prefetch.ts, as `dbrest serve`
// does): startServer takes it as its first load and serves exactly the cache an ordinary load
// builds, role settings included; a prefetch that failed (bad credentials) only means the server
// loads again through its pool and serves all the same.
import pg from 'pg';
import t from 'tap';
import { loadSchemaCache } from '../../../src/catalog/load.js';
import { prefetchSchemaCache } from '../../../src/catalog/prefetch.js';
import { startServer } from '../../../src/http/start.js';
import { cacheSchemas } from '../../../src/mount/check.js';
import { createLogger } from '../../../src/observe/log.js';
import { createTestDatabase, fixture, type TestDatabase } from '../../helpers/db.js';
import { httpRequest, testConfig } from '../../helpers/server.js';

let db: TestDatabase;
t.before(async () => {
  db = await createTestDatabase([fixture('sql', 'catalog.sql')]);
  await db.query("INSERT INTO public.films (id, title) VALUES (1, 'One'), (2, 'Two'), (3, 'Three')");
});
t.teardown(async () => {
  await db?.drop();
});

async function ordinaryCache() {
  const client = new pg.Client({ connectionString: db.uri });
  await client.connect();
  try {
    return (await loadSchemaCache(client, ['public'])).cache;
  } finally {
    await client.end();
  }
}

t.test('a prefetched first load is the cache the server serves', async (t) => {
  const config = await testConfig(db.uri, { 'db-schemas': 'public', 'db-anon-role': 'postgres', 'db-hoisted-tx-settings': 'statement_timeout' });
  const prefetched = prefetchSchemaCache(db.uri, cacheSchemas(config), config.dbHoistedTxSettings, 5000);
  const got = await prefetched;
  const expected = await ordinaryCache();
  t.same(got.loaded.cache, expected, 'same cache as an ordinary load');
  t.ok(got.loaded.cache.relations.some((r) => r.name === 'films'), 'the fixture is in it');
  t.type(got.roleSettings, Map);

  const server = await startServer(config, db.uri, createLogger(config.logLevel), { prefetched });
  t.teardown(() => server.close());
  t.equal(server.app.cache(), got.loaded.cache, 'startServer kept the prefetched cache (no second load)');
  const res = await httpRequest(server.url + '/films?select=id&order=id&limit=2');
  t.equal(res.status, 200);
  t.same(res.json(), [{ id: 1 }, { id: 2 }]);
});

t.test('a failed prefetch falls back to the ordinary first load', async (t) => {
  const config = await testConfig(db.uri, { 'db-schemas': 'public', 'db-anon-role': 'postgres' });
  const bad = new URL(db.uri);
  bad.password = 'not-the-password';
  bad.username = 'no_such_role_for_prefetch';
  const prefetched = prefetchSchemaCache(bad.toString(), cacheSchemas(config), [], 5000);
  prefetched.catch(() => undefined);
  await t.rejects(prefetched, 'the prefetch itself fails');

  const server = await startServer(config, db.uri, createLogger(config.logLevel), { prefetched });
  t.teardown(() => server.close());
  t.same(server.app.cache(), await ordinaryCache(), 'the server loaded the cache itself');
  const res = await httpRequest(server.url + '/films?select=id&order=id&limit=1');
  t.equal(res.status, 200);
  t.same(res.json(), [{ id: 1 }]);
});
