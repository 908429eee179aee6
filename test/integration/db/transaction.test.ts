// The one-round-trip transaction: settings hold for the main statement, a failure anywhere leaves
// nothing behind and the connection usable, prepared statements are parsed once per connection.
import t from 'tap';
import { runTransaction, type RequestTransaction } from '../../../src/db/transaction.js';
import { createPool } from '../../../src/db/pool.js';
import { createTestDatabase } from '../../helpers/db.js';

const poolConfig = { dbPool: 1, dbPoolAcquisitionTimeout: 5, dbPoolMaxLifetime: 1800, dbPoolMaxIdletime: 30 };
const base: RequestTransaction = { readOnly: false, settings: [], preRequest: null, statements: [], end: 'commit', prepared: true };

t.test('one implicit transaction per request', async (t) => {
  const db = await createTestDatabase(['CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)']);
  const pool = createPool(db.uri, poolConfig);
  t.teardown(async () => {
    await pool.end();
    await db.drop();
  });

  await t.test('settings are visible to the main statement and gone afterwards', async (t) => {
    const out = await runTransaction(pool, {
      ...base,
      settings: [['request.method', 'GET'], ['app.settings.x', 'y']],
      statements: [{ text: "SELECT current_setting('request.method', true), current_setting('app.settings.x', true)", values: [] }],
    });
    t.ok(out.ok);
    if (out.ok) t.same(out.results[0]!.rows, [['GET', 'y']]);
    const after = await runTransaction(pool, { ...base, statements: [{ text: "SELECT coalesce(current_setting('request.method', true), '')", values: [] }] });
    if (after.ok) t.same(after.results[0]!.rows, [['']], 'transaction-local: not leaked to the next request');
  });

  await t.test('a failing statement rolls back the statements before it', async (t) => {
    const out = await runTransaction(pool, {
      ...base,
      statements: [
        { text: 'INSERT INTO items VALUES ($1, $2)', values: [1, 'kept?'] },
        { text: 'INSERT INTO items VALUES ($1, $2)', values: [2, null] },
      ],
    });
    t.equal(out.ok, false);
    if (!out.ok && out.kind === 'database') t.equal(out.error.code, '23502');
    t.same(await db.query('SELECT * FROM items'), [], 'nothing was written');
    const again = await runTransaction(pool, { ...base, statements: [{ text: 'INSERT INTO items VALUES ($1, $2) RETURNING id', values: [3, 'ok'] }] });
    t.ok(again.ok, 'the same (only) connection is usable afterwards');
  });

  await t.test('end: rollback leaves no trace and the connection idle', async (t) => {
    const out = await runTransaction(pool, { ...base, end: 'rollback', statements: [{ text: 'INSERT INTO items VALUES ($1, $2) RETURNING id', values: [10, 'gone'] }] });
    t.ok(out.ok);
    if (out.ok) t.same(out.results[0]!.rows, [[10]]);
    t.same(await db.query('SELECT id FROM items WHERE id = 10'), []);
    const failing = await runTransaction(pool, { ...base, end: 'rollback', statements: [{ text: 'SELECT 1/0', values: [] }] });
    t.equal(failing.ok, false);
    const next = await runTransaction(pool, { ...base, statements: [{ text: 'SELECT 1', values: [] }] });
    t.ok(next.ok, 'an aborted explicit transaction was cleaned up');
  });

  await t.test('readOnly refuses writes with 25006', async (t) => {
    const out = await runTransaction(pool, { ...base, readOnly: true, statements: [{ text: 'INSERT INTO items VALUES (20, $1)', values: ['x'] }] });
    t.equal(out.ok, false);
    if (!out.ok && out.kind === 'database') t.equal(out.error.code, '25006');
  });

  await t.test('prepared statements are parsed once per connection, and survive an error in their batch', async (t) => {
    const st = { text: 'SELECT count(*)::int FROM items WHERE id > $1', values: [0] };
    for (let i = 0; i < 3; i++) t.ok((await runTransaction(pool, { ...base, statements: [st] })).ok);
    const bad = await runTransaction(pool, { ...base, statements: [st, { text: 'SELECT 1/0', values: [] }] });
    t.equal(bad.ok, false);
    const good = await runTransaction(pool, { ...base, statements: [st, { text: 'SELECT name FROM pg_prepared_statements WHERE statement = $1', values: [st.text] }] });
    t.ok(good.ok);
    if (good.ok) t.equal(good.results[1]!.rows.length, 1, 'one prepared statement for this text on the connection');
  });

  await t.test('a prepared statement is described once per connection; its values are still parsed by type', async (t) => {
    // Count the RowDescriptions the (only) connection receives.
    const client = await pool.connect();
    let descriptions = 0;
    const onDescription = () => descriptions++;
    const connection = (client as unknown as { connection: { on(e: string, f: () => void): void; off(e: string, f: () => void): void } }).connection;
    connection.on('rowDescription', onDescription);
    client.release();
    t.teardown(() => connection.off('rowDescription', onDescription));
    const typed = { text: "SELECT $1::int AS n, '2024-05-06'::date AS d, '[1,2]'::json AS j, 'x'::text AS s", values: [7] };
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await runTransaction(pool, { ...base, statements: [typed] }));
    t.equal(descriptions, 1, 'described on its first run only');
    for (const out of runs) {
      t.ok(out.ok);
      if (!out.ok) continue;
      const [n, d, j, s] = out.results[0]!.rows[0]!;
      t.equal(n, 7, 'int parsed as a number');
      t.ok(d instanceof Date, 'date parsed as a Date');
      t.same(j, [1, 2], 'json parsed');
      t.equal(s, 'x');
    }
    // A statement first run in a batch that fails is not taken as described: it is described again.
    const fresh = { text: 'SELECT $1::int + 1 AS m', values: [1] };
    const failed = await runTransaction(pool, { ...base, statements: [fresh, { text: 'SELECT 1/0', values: [] }] });
    t.equal(failed.ok, false);
    const before = descriptions;
    const ok = await runTransaction(pool, { ...base, statements: [fresh] });
    t.ok(ok.ok);
    if (ok.ok) t.same(ok.results[0]!.rows, [[2]]);
    t.equal(descriptions, before + 1, 'described again after its failed batch');
    await runTransaction(pool, { ...base, statements: [fresh] });
    t.equal(descriptions, before + 1, 'and not after that');
  });
});

