// The bundled examples in the embedded database: each loaded once and recorded; an example added
// later (a newer dbrest) is loaded into an existing data directory at its next start; one that fails
// is reported, rolled back and tried again next time, without stopping the others.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { bootstrapEmbedded } from '../../../src/embedded/bootstrap.js';
import { examplesDir, listExamples } from '../../../src/embedded/examples.js';
import { clusterUri, queryOnce, withDatabase } from '../../helpers/db.js';

const query = queryOnce;

t.test('examples: listed in order with their routes and manifest', async (t) => {
  const names = listExamples().map((e) => e.name);
  t.equal(names[0], 'quickstart', 'quickstart first');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-ex-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'zoo'));
  mkdirSync(path.join(dir, 'quickstart'));
  writeFileSync(path.join(dir, 'zoo', '2-data.sql'), 'SELECT 2');
  writeFileSync(path.join(dir, 'zoo', '1-schema.sql'), 'SELECT 1');
  writeFileSync(path.join(dir, 'zoo', 'routes.json'), '[{"method":"GET","path":"/zoo","call":"zoo.all"}]');
  writeFileSync(path.join(dir, 'zoo', 'example.json'), '{"title":"Zoo API","try":["/zoo"]}');
  const [quick, zoo] = listExamples(dir);
  t.equal(quick?.name, 'quickstart');
  t.same(zoo?.sqlFiles.map((f) => path.basename(f)), ['1-schema.sql', '2-data.sql'], 'SQL in name order');
  t.same(zoo?.routes, [{ method: 'GET', path: '/zoo', call: 'zoo.all' }]);
  t.equal(zoo?.title, 'Zoo API');
  t.same(zoo?.tryPaths, ['/zoo']);
});

t.test('an example added later is loaded into an existing database; a broken one is retried', async (t) => {
  // A cluster of our own is not needed: a database named dbrest on the test cluster stands in for the
  // embedded one, so the test cluster must not already have one (it never has: tests make random names).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-ex-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const superuser = withDatabase(clusterUri(), 'postgres');
  t.teardown(async () => query(superuser, 'DROP DATABASE IF EXISTS dbrest WITH (FORCE)'));
  cpSync(path.join(examplesDir, 'quickstart'), path.join(dir, 'quickstart'), { recursive: true });

  const progress: string[] = [];
  const uri = await bootstrapEmbedded(superuser, 'pw-of-the-test', (m) => progress.push(m), dir);
  const db = withDatabase(clusterUri(), 'dbrest');
  t.match(uri, /^postgres:\/\/authenticator:/);
  t.same(await query(db, 'SELECT name FROM dbrest_meta.examples ORDER BY name'), [{ name: 'quickstart' }]);

  mkdirSync(path.join(dir, 'later'));
  writeFileSync(path.join(dir, 'later', 'schema.sql'), 'CREATE SCHEMA later; CREATE TABLE later.t (x int); INSERT INTO later.t VALUES (7);');
  mkdirSync(path.join(dir, 'broken'));
  writeFileSync(path.join(dir, 'broken', 'schema.sql'), 'CREATE SCHEMA broken; SELECT no_such_function();');
  progress.length = 0;
  await bootstrapEmbedded(superuser, 'pw-of-the-test', (m) => progress.push(m), dir);
  t.same(await query(db, 'SELECT x FROM later.t'), [{ x: 7 }], 'the new example is loaded');
  t.same(await query(db, 'SELECT name FROM dbrest_meta.examples ORDER BY name'), [{ name: 'later' }, { name: 'quickstart' }]);
  t.same(await query(db, "SELECT 1 FROM pg_namespace WHERE nspname = 'broken'"), [], 'the broken one is rolled back');
  t.match(progress.join('\n'), /example broken not loaded: .*no_such_function/);
  t.notMatch(progress.join('\n'), /quickstart/, 'quickstart is not loaded twice');

  writeFileSync(path.join(dir, 'broken', 'schema.sql'), 'CREATE SCHEMA broken;');
  await bootstrapEmbedded(superuser, 'pw-of-the-test', () => undefined, dir);
  t.same(await query(db, "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'broken'"), [{ n: 1 }], 'retried at the next start');
});

t.test('a data directory from before the record keeps its quickstart and gets the rest', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-ex-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const superuser = withDatabase(clusterUri(), 'postgres');
  t.teardown(async () => query(superuser, 'DROP DATABASE IF EXISTS dbrest WITH (FORCE)'));
  cpSync(path.join(examplesDir, 'quickstart'), path.join(dir, 'quickstart'), { recursive: true });
  await bootstrapEmbedded(superuser, 'pw-of-the-test', () => undefined, dir);
  const db = withDatabase(clusterUri(), 'dbrest');
  await query(db, 'DROP SCHEMA dbrest_meta CASCADE'); // as an older dbrest left it
  mkdirSync(path.join(dir, 'later'));
  writeFileSync(path.join(dir, 'later', 'schema.sql'), 'CREATE SCHEMA later;');
  const progress: string[] = [];
  await bootstrapEmbedded(superuser, 'pw-of-the-test', (m) => progress.push(m), dir);
  t.notMatch(progress.join('\n'), /quickstart/, 'the quickstart it has is not loaded again');
  t.match(progress.join('\n'), /loading example later\/schema\.sql/);
});
