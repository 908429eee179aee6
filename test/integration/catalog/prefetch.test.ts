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

// Relationships are worked out on first use (build.ts): a read of one table leaves them; the first
// embed works them out, and they are those of an ordinary load. A reload works them out before
// the new cache is swapped in, so no request after it pays for them.
t.test('relationships on first use; a reload works them out before the swap', async (t) => {
  const config = await testConfig(db.uri, { 'db-schemas': 'public', 'db-anon-role': 'postgres' });
  const server = await startServer(config, db.uri, createLogger(config.logLevel));
  t.teardown(() => server.close());
  const computed = () => typeof Object.getOwnPropertyDescriptor(server.app.cache()!, 'relationships')?.get !== 'function';

  t.equal((await httpRequest(server.url + '/films?select=id&limit=1')).status, 200);
  t.notOk(computed(), 'a plain read did not work them out');
  const embed = await httpRequest(server.url + '/films?select=title,directors(name)&id=eq.1');
  t.equal(embed.status, 200);
  t.same(embed.json(), [{ title: 'One', directors: null }]);
  t.ok(computed(), 'the embed did');
  const expected = await ordinaryCache();
  t.same(server.app.cache()!.relationships, expected.relationships, 'the same relationships as an ordinary load');
  t.ok(server.app.cache()!.relationships.length > 5);

  const before = server.app.cache();
  await server.reloadSchemaCache();
  t.not(server.app.cache(), before, 'a new cache');
  t.ok(computed(), 'worked out before the swap');
  t.same(server.app.cache()!.relationships, expected.relationships);
});
