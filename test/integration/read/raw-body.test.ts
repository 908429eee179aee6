// A read's body sent as SQL built it goes from PostgreSQL's DataRow to the response as bytes, never
// decoded (db/data-row.ts, db/batch.ts's rawColumn, http/read-prep.ts): the bytes and
// Content-Length are those of the text PostgreSQL built, for bodies with multi-byte characters,
// small and large enough to span several socket reads (and so DataRow messages cut between reads),
// in JSON (buffered, probed, counted, templated), CSV, a handler's media and the singular object
// (shaped as a string); HEAD sends no body.
import pg from 'pg';
import t, { type Test } from 'tap';
import { runBatch } from '../../../src/db/batch.js';
import { createTestDatabase } from '../../helpers/db.js';
import { queryOnce } from '../../helpers/db.js';
import { startTestServer, type TestResponse, type TestServer } from '../../helpers/server.js';

// Notes of 20 to 1,000 bytes of 1-, 2-, 3- and 4-byte characters: 300 of them make some 150 KB.
// No spaces, commas or quotes: a row's CSV line is `id,body` as it is.
const UNIT = 'ÆØÅ日本語🎸x';
const FIXTURE = `
  CREATE TABLE public.notes (id int PRIMARY KEY, body text NOT NULL);
  INSERT INTO public.notes SELECT i, repeat('${UNIT}', 1 + i % 50) FROM generate_series(1, 300) AS i;
  CREATE VIEW public."nøtes" AS SELECT * FROM public.notes;
  CREATE DOMAIN public."text/tab-separated-values" AS text;
  CREATE FUNCTION public.notes_tsv_trans(state text, next public.notes) RETURNS public."text/tab-separated-values" AS $$
    SELECT (state || next.id::text || E'\\t' || next.body || E'\\n')::public."text/tab-separated-values";
  $$ LANGUAGE sql;
  CREATE AGGREGATE public.notes_tsv_agg(public.notes) (INITCOND = '', STYPE = public."text/tab-separated-values", SFUNC = public.notes_tsv_trans);
`;

const notes = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => ({ id: from + k, body: UNIT.repeat(1 + ((from + k) % 50)) }));

/** The body as PostgreSQL builds the JSON array of `where`'s notes by id (what dbrest sends). */
async function jsonArray(s: TestServer, where: string): Promise<Buffer> {
  const [row] = await queryOnce(s.db.uri, `SELECT coalesce(json_agg(n), '[]')::text AS b FROM (SELECT id, body FROM public.notes WHERE ${where} ORDER BY id) AS n`);
  return Buffer.from(row!['b'] as string, 'utf-8');
}

function sameBytes(t: Test, r: TestResponse, want: Buffer, what: string): void {
  t.equal(r.status, 200, `${what}: status`);
  t.equal(r.headers['content-length'], String(want.length), `${what}: Content-Length`);
  t.equal(r.bytes.length, want.length, `${what}: length`);
  t.ok(r.bytes.equals(want), `${what}: the same bytes`);
}

t.test('a read body with multi-byte characters: the bytes PostgreSQL built, small and large', async (t) => {
  const s = await startTestServer(t, { fixtures: [FIXTURE], config: { 'db-schemas': 'public', 'db-anon-role': 'postgres' } });
  const all = await jsonArray(s, 'true');
  t.ok(all.length > 3 * 64 * 1024 / 2, 'the large body spans several 64 KiB socket reads');
  t.ok(all.toString('utf-8').includes('🎸'));

  // No limit: probed (server-stream-threshold + 1 rows, buffered) and answered whole.
  sameBytes(t, await s.request('/notes?order=id'), all, 'JSON, probed');
  // Limited under the threshold: the buffered statement.
  sameBytes(t, await s.request('/notes?order=id&limit=300'), all, 'JSON, buffered');
  const counted = await s.request('/notes?order=id&limit=300', { headers: { Prefer: 'count=exact' } });
  sameBytes(t, counted, all, 'JSON, counted');
  t.equal(counted.headers['content-range'], '0-299/300');
  sameBytes(t, await s.request('/notes?order=id&limit=3'), await jsonArray(s, 'id <= 3'), 'JSON, small');
  sameBytes(t, await s.request('/notes?order=id&id=gt.1000'), Buffer.from('[]'), 'JSON, no rows');
  // One shape, other values (http/read-template.ts): the second read fills the first's template.
  for (const id of [7, 8, 49]) sameBytes(t, await s.request(`/notes?id=eq.${id}`), await jsonArray(s, `id = ${id}`), `JSON, id ${id}`);
  // A relation named past ASCII: Content-Location is sent as UTF-8 bytes (writeResponse's non-ASCII path).
  const viaView = await s.request(`/${encodeURIComponent('nøtes')}?order=id&limit=300`);
  sameBytes(t, viaView, all, 'JSON, non-ASCII Content-Location');
  t.equal(Buffer.from(viaView.headers['content-location']!, 'latin1').toString('utf-8'), '/nøtes?limit=300&order=id');

  const csvWant = Buffer.from('id,body\n' + notes(1, 300).map((n) => `${n.id},${n.body}`).join('\n'), 'utf-8');
  const csv = await s.request('/notes?order=id', { headers: { Accept: 'text/csv' } });
  sameBytes(t, csv, csvWant, 'CSV');
  t.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');

  const tsvWant = Buffer.from(notes(1, 300).map((n) => `${n.id}\t${n.body}\n`).join(''), 'utf-8');
  const tsv = await s.request('/notes?order=id', { headers: { Accept: 'text/tab-separated-values' } });
  sameBytes(t, tsv, tsvWant, 'a handler media');
  t.equal(tsv.headers['content-type'], 'text/tab-separated-values');

  const [one] = await queryOnce(s.db.uri, `SELECT row_to_json(n)::text AS b FROM (SELECT id, body FROM public.notes WHERE id = 49) AS n`);
  const object = await s.request('/notes?id=eq.49', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
  sameBytes(t, object, Buffer.from(one!['b'] as string, 'utf-8'), 'singular object');
  const stripped = await s.request('/notes?id=eq.49', { headers: { Accept: 'application/vnd.pgrst.object+json;nulls=stripped' } });
  sameBytes(t, stripped, Buffer.from(JSON.stringify({ id: 49, body: UNIT.repeat(50) }), 'utf-8'), 'singular object, nulls stripped');

  for (const accept of ['application/json', 'text/csv', 'text/tab-separated-values']) {
    const get = await s.request('/notes?order=id', { headers: { Accept: accept } });
    const head = await s.request('/notes?order=id', { method: 'HEAD', headers: { Accept: accept } });
    t.equal(head.status, 200, `HEAD ${accept}`);
    t.equal(head.bytes.length, 0, `HEAD ${accept}: no body`);
    t.equal(head.headers['content-length'], undefined, `HEAD ${accept}: no Content-Length`);
    t.equal(head.headers['content-type'], get.headers['content-type']);
    t.equal(head.headers['content-range'], get.headers['content-range']);
  }
});

t.test('runBatch: rawColumn gives the column as its bytes when its type is kept as text, described or not', async (t) => {
  const db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.uri });
  await client.connect();
  t.teardown(async () => {
    await client.end();
    await db.drop();
  });
  const text = 'SELECT $1::text AS a, $1::varchar AS b, $1::json AS c, $1::bytea AS d, NULL::text AS e';
  const value = '"ÆØÅ 🎸"';
  const bytes = Buffer.from(value, 'utf-8');
  const run = async (rawColumn: number | undefined) => {
    const [r] = await runBatch(client, [{ text, values: [value], name: 'raw_body_test', ...(rawColumn === undefined ? {} : { rawColumn }) }]);
    return r!.rows[0]!;
  };
  // First run: described; then the same name again, its parsers known from the first (no RowDescription).
  for (const round of ['described', 'known']) {
    t.same(await run(undefined), [value, value, 'ÆØÅ 🎸', Buffer.from(value), null], `${round}: no rawColumn, all parsed`);
    const a = await run(0);
    t.ok(Buffer.isBuffer(a[0]) && (a[0] as Buffer).equals(bytes), `${round}: text as its bytes`);
    t.same(a.slice(1), [value, 'ÆØÅ 🎸', Buffer.from(value), null]);
    const b = await run(1);
    t.ok(Buffer.isBuffer(b[1]) && (b[1] as Buffer).equals(bytes), `${round}: varchar as its bytes`);
    t.equal(b[0], value);
    t.equal((await run(2))[2], 'ÆØÅ 🎸', `${round}: json is parsed all the same`);
    t.same((await run(3))[3], Buffer.from(value), `${round}: bytea is parsed (its hex text decoded) all the same`);
    t.equal((await run(4))[4], null, `${round}: NULL stays null`);
  }
});
