// A read that may be large (no limit at or under server-stream-threshold) is run first as a
// buffered read limited to threshold + 1 rows (http/read.ts, http/stream-memo.ts): a small answer
// is that one statement, with the bytes and headers of its bounded equivalent; a large one is run
// again as a cursor and streamed (its first bytes leave before its last rows are read), and its
// next requests go to the cursor directly. Which statements ran is read from log-query's lines.
import t from 'tap';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { STREAM_SQL } from './fixture.js';
import { readWhileGated } from './gated.js';

const BASE = { 'db-schemas': 'stream', 'db-anon-role': 'stream_anon', 'log-query': 'true', 'log-level': 'info' };
const THRESHOLD = 100;
const LOCK = 727272;

// Row 2,000 of `gated` waits for a shared advisory lock: while the test holds it exclusively, a
// read of `gated` cannot get past that row (no ORDER BY: a lazy sequential scan, rows in id order).
const GATE_SQL = `
CREATE FUNCTION stream.gate(i int) RETURNS int LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF i = 2000 THEN PERFORM pg_advisory_xact_lock_shared(${LOCK}); END IF;
  RETURN i;
END $$;
CREATE VIEW stream.gated AS SELECT id, name, stream.gate(id) AS g FROM stream.big;
GRANT EXECUTE ON FUNCTION stream.gate(int) TO stream_anon;
GRANT SELECT ON stream.gated TO stream_anon;
`;

interface Setup {
  readonly small: TestServer;
  /** server-stream-threshold far above every answer: everything buffered (the reference). */
  readonly buffered: TestServer;
  readonly lines: string[];
}

async function setup(t: { teardown(fn: () => unknown): void }): Promise<Setup> {
  const lines: string[] = [];
  const small = await startTestServer(t, { fixtures: [STREAM_SQL, GATE_SQL], config: { ...BASE, 'server-stream-threshold': String(THRESHOLD) }, logLines: lines });
  const buffered = await startTestServer(t, { db: small.db, config: { ...BASE, 'log-query': 'false', 'server-stream-threshold': '1000000' } });
  return { small, buffered, lines };
}

/** The statements logged by log-query since `from`. */
const queries = (lines: string[], from: number): string[] => lines.slice(from).filter((l) => l.includes('query: '));
const limited = (q: string): boolean => q.includes(`LIMIT ${THRESHOLD + 1}`) && q.includes('json_agg(_postgrest_t)');
/** sql/stream.ts's statement: one row per answer row. */
const cursor = (q: string): boolean => /query: SELECT (pg_catalog\.row_to_json\(_postgrest_t\)::text|_postgrest_t\.\*) FROM \(/.test(q);

const SAME_HEADERS = ['content-type', 'content-range'];

t.test('a small answer to an unbounded read: one limited buffered statement, the bounded read\'s bytes and headers', async (t) => {
  const { small, lines } = await setup(t);
  for (const accept of ['application/json', 'text/csv', 'application/x-ndjson']) {
    const from = lines.length;
    const unbounded = await small.request('/big?id=lte.50&order=id', { headers: { Accept: accept } });
    const ran = queries(lines, from);
    const bounded = await small.request('/big?id=lte.50&order=id&limit=60', { headers: { Accept: accept } });
    t.equal(unbounded.status, 200, accept);
    t.ok(unbounded.bytes.equals(bounded.bytes), `${accept}: byte-identical body`);
    t.ok(unbounded.bytes.length > 1000, `${accept}: 50 rows`);
    for (const h of SAME_HEADERS) t.equal(unbounded.headers[h], bounded.headers[h], `${accept}: ${h}`);
    t.equal(ran.length, 1, `${accept}: one statement`);
    t.ok(ran[0]!.includes(`LIMIT ${THRESHOLD + 1}`), `${accept}: limited to threshold + 1 rows`);
    t.notOk(ran.some(cursor), `${accept}: no cursor`);
  }
  t.equal((await small.request('/big?id=lte.50&order=id')).headers['content-range'], '0-49/*');
});

t.test('a large answer is run again as a cursor with the bytes of its bounded read, and its next request streams directly', async (t) => {
  const { small, buffered, lines } = await setup(t);
  const reference = await buffered.request('/big?order=id&limit=5000');
  let from = lines.length;
  const first = await small.request('/big?order=id');
  let ran = queries(lines, from);
  t.equal(first.status, 200);
  t.ok(first.bytes.equals(reference.bytes), 'byte-identical to the bounded (buffered) read');
  t.equal(first.headers['content-type'], reference.headers['content-type']);
  t.equal(first.headers['content-range'], undefined, 'streamed: no Content-Range (the row count is not known at the head), as before');
  t.equal(ran.length, 2);
  t.ok(limited(ran[0]!), 'the limited run first');
  t.ok(cursor(ran[1]!), 'then the cursor');

  from = lines.length;
  const again = await small.request('/big?order=id');
  ran = queries(lines, from);
  t.ok(again.bytes.equals(reference.bytes));
  t.equal(ran.length, 1, 'the same read again: straight to the cursor');
  t.ok(cursor(ran[0]!));

  const csvRef = await buffered.request('/big?order=id&limit=5000', { headers: { Accept: 'text/csv' } });
  const csv = await small.request('/big?order=id', { headers: { Accept: 'text/csv' } });
  t.ok(csv.bytes.equals(csvRef.bytes), 'CSV too');
});

t.test('a small answer over server-max-response-bytes is streamed, as before (streams are not bounded)', async (t) => {
  const lines: string[] = [];
  const s = await startTestServer(t, { fixtures: [STREAM_SQL], config: { ...BASE, 'server-stream-threshold': String(THRESHOLD), 'server-max-response-bytes': '2000' }, logLines: lines });
  const from = lines.length;
  const r = await s.request('/big?id=lte.90&order=id');
  t.equal(r.status, 200);
  t.equal(r.json().length, 90);
  const ran = queries(lines, from);
  t.equal(ran.length, 2);
  t.ok(cursor(ran[1]!), 'run again as a cursor');
  // A bounded read of the same rows is buffered, so capped.
  t.equal((await s.request('/big?id=lte.90&order=id&limit=95')).json().code, 'DBRST702');
});

t.test('a large answer streams: its first bytes arrive while its row 2,000 is not read yet', async (t) => {
  const { small, buffered } = await setup(t);
  const gated = await readWhileGated(small.url + '/gated', small.db.uri, LOCK);
  t.ok(gated.early.length > 0, 'bytes before row 2,000 can be read');
  t.equal(gated.status, 200);
  t.match(gated.early.toString(), /^\[\{"id":1,"name":"row 1","g":1\}/);
  // The request's backend is waiting at row 2,000 for the lock: not every row was read.
  t.equal(gated.waiting, 1, 'the statement waits at row 2,000');
  const reference = await buffered.request('/gated?limit=5000');
  t.equal(reference.status, 200);
  t.ok(gated.body.equals(reference.bytes), 'the whole body: the bounded read\'s bytes');
});
