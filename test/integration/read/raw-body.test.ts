// A read's body sent as SQL built it goes from PostgreSQL's DataRow to the response as bytes, never
// decoded (db/data-row.ts, db/batch.ts's rawColumn, http/read-prep.ts): the bytes and
// Content-Length are those of the text PostgreSQL built, for bodies with multi-byte characters,
// small and large enough to span several socket reads (and so DataRow messages cut between reads),
// in JSON (buffered, probed, counted, templated), CSV, a handler's media and the singular object
// (shaped as a string); HEAD sends no body.
import net from 'node:net';
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

// A body is a view of the socket read it came in (db/data-row.ts: no copy), held until the
// response is written, while the same connection goes on reading other requests' answers: each
// must still get exactly its own bytes, however the answers share and cut the reads.
interface NoteRange {
  readonly from: number;
  readonly to: number;
  readonly path: string;
  /** The body it must get. */
  readonly want: Buffer;
}

/** `n` ranges of notes, of some 500 bytes to 100 KB each, no two alike, with the body each must get. */
async function noteRanges(s: TestServer, n: number): Promise<NoteRange[]> {
  const out: NoteRange[] = [];
  for (let k = 0; k < n; k++) {
    const from = 1 + ((k * 37) % 250);
    const to = from + ((k * 53) % 120) + (k % 5);
    out.push({ from, to, path: `/notes?order=id&id=gte.${from}&id=lte.${to}&limit=300`, want: await jsonArray(s, `id BETWEEN ${from} AND ${to}`) });
  }
  return out;
}

for (const pool of ['1', '2']) {
  t.test(`concurrent reads on a pool of ${pool}: each gets exactly its own bytes`, async (t) => {
    const s = await startTestServer(t, { fixtures: [FIXTURE], config: { 'db-schemas': 'public', 'db-anon-role': 'postgres', 'db-pool': pool } });
    const ranges = await noteRanges(s, 48);
    t.equal(new Set(ranges.map((r) => r.want.toString('base64'))).size, ranges.length, 'distinct bodies');
    for (let round = 0; round < 3; round++) {
      const got = await Promise.all(ranges.map((q) => s.request(q.path)));
      let same = 0;
      got.forEach((r, k) => {
        const { from, to, want } = ranges[k]!;
        if (r.status === 200 && r.headers['content-length'] === String(want.length) && r.bytes.equals(want)) same++;
        else sameBytes(t, r, want, `round ${round}, notes ${from} to ${to}`);
      });
      t.equal(same, ranges.length, `round ${round}: every response its own bytes`);
    }
  });
}

/** The bodies of the HTTP/1.1 responses in `raw` (each with a Content-Length), in order. */
function responseBodies(raw: Buffer): Array<{ status: number; body: Buffer }> {
  const out: Array<{ status: number; body: Buffer }> = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const head = raw.subarray(at, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
    out.push({ status: Number(head.split(' ')[1]), body: raw.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return out;
}

// A body held long after its answer was parsed: its client reads nothing while a large response
// ahead of it on the same connection (HTTP/1.1 pipelining) fills the socket, so the body waits in
// the response, as the view of the parser's buffer it is, while the pool's one connection goes on
// parsing other requests' answers, pipelined with it and cut between reads. pg-protocol's own
// mergeBuffer could move a cut message over it then.
t.test('a body held by a client that does not read yet: still its own bytes after many other reads', async (t) => {
  const BIG = `CREATE TABLE public.big (id int PRIMARY KEY, body text NOT NULL);
    INSERT INTO public.big VALUES (1, repeat('${UNIT}', 300000));`; // some 6 MB
  const s = await startTestServer(t, { fixtures: [FIXTURE, BIG], config: { 'db-schemas': 'public', 'db-anon-role': 'postgres', 'db-pool': '1' } });
  const [bigRow] = await queryOnce(s.db.uri, `SELECT json_agg(b)::text AS b FROM public.big AS b`);
  const big = Buffer.from(bigRow!['b'] as string, 'utf-8');
  const ranges = await noteRanges(s, 24);
  const held = await jsonArray(s, 'id BETWEEN 1 AND 200');
  const { hostname, port } = new URL(s.url);
  for (let attempt = 0; attempt < 6; attempt++) {
    const sock = net.connect(Number(port), hostname);
    await new Promise((r) => sock.once('connect', r));
    sock.pause();
    // Others' reads meanwhile, on the same database connection: the held body's answer comes amid
    // theirs (its requests are sent while the first round is in flight).
    const others = (async () => {
      for (let round = 0; round < 3; round++) {
        const got = await Promise.all(ranges.map((q) => s.request(q.path)));
        got.forEach((r, k) => {
          const { want } = ranges[k]!;
          if (!(r.status === 200 && r.bytes.equals(want))) sameBytes(t, r, want, `attempt ${attempt}, round ${round}, request ${k}`);
        });
      }
    })();
    await new Promise((r) => setTimeout(r, 2 * attempt));
    sock.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /notes?order=id&id=gte.1&id=lte.200&limit=300 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await others;
    const chunks: Buffer[] = [];
    sock.on('data', (b: Buffer) => chunks.push(b));
    sock.resume();
    await new Promise((r) => sock.once('end', r));
    const [first, second] = responseBodies(Buffer.concat(chunks));
    t.equal(first?.status, 200, `attempt ${attempt}: the large body's status`);
    t.ok(first?.body.equals(big), `attempt ${attempt}: the large body's bytes`);
    t.equal(second?.status, 200, `attempt ${attempt}: the held body's status`);
    t.ok(second?.body.equals(held), `attempt ${attempt}: the held body, still its own bytes`);
  }
});
