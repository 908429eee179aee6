// A set-returning call that may be large (no limit at or under server-stream-threshold) of a STABLE
// or IMMUTABLE function is run first as a buffered call limited to threshold + 1 rows
// (http/call.ts, http/stream-memo.ts), as reads are (small-first.test.ts): a small answer is that one
// statement, with the bytes and headers of its bounded equivalent; a large one is run again as a
// cursor and streamed, and its next request goes to the cursor directly. A VOLATILE function is
// never run twice: it goes to the cursor only. Which statements ran is read from log-query's lines.
import t from 'tap';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { STREAM_SQL } from './fixture.js';
import { readWhileGated } from './gated.js';

const BASE = { 'db-schemas': 'stream', 'db-anon-role': 'stream_anon', 'log-query': 'true', 'log-level': 'info' };
const THRESHOLD = 100;
const LOCK = 737373;

// Row 2,000 of gated_rows() waits for a shared advisory lock: while the test holds it exclusively,
// the call cannot get past that row (an inlined SQL function over a lazy sequential scan).
const CALL_SQL = `
CREATE FUNCTION stream.gate(i int) RETURNS int LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF i = 2000 THEN PERFORM pg_advisory_xact_lock_shared(${LOCK}); END IF;
  RETURN i;
END $$;
CREATE FUNCTION stream.gated_rows() RETURNS TABLE (id int, name text, g int) LANGUAGE sql STABLE AS $$
  SELECT id, name, stream.gate(id) FROM stream.big $$;
CREATE FUNCTION stream.vol_nums(n int) RETURNS SETOF int LANGUAGE sql VOLATILE AS $$ SELECT g FROM generate_series(1, n) g $$;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA stream TO stream_anon;
`;

interface Setup {
  readonly small: TestServer;
  /** server-stream-threshold far above every answer: everything buffered (the reference). */
  readonly buffered: TestServer;
  readonly lines: string[];
}

async function setup(t: { teardown(fn: () => unknown): void }): Promise<Setup> {
  const lines: string[] = [];
  const small = await startTestServer(t, { fixtures: [STREAM_SQL, CALL_SQL], config: { ...BASE, 'server-stream-threshold': String(THRESHOLD) }, logLines: lines });
  const buffered = await startTestServer(t, { db: small.db, config: { ...BASE, 'log-query': 'false', 'server-stream-threshold': '1000000' } });
  return { small, buffered, lines };
}

const queries = (lines: string[], from: number): string[] => lines.slice(from).filter((l) => l.includes('query: '));
const limited = (q: string): boolean => q.includes(`LIMIT ${THRESHOLD + 1}`) && !cursor(q);
/** sql/stream.ts's call statement: one row per answer row. */
const cursor = (q: string): boolean => /query: WITH pgrst_source AS \(.*\) SELECT (pg_catalog\.row_to_json\(_postgrest_t\)::text|pg_catalog\.to_json\(_postgrest_t\.pgrst_scalar\)::text|_postgrest_t\.\*) FROM/s.test(q);

t.test('a small answer to an unbounded call: one limited buffered statement, the bounded call\'s bytes and headers', async (t) => {
  const { small, lines } = await setup(t);
  const cases: Array<[string, string, string]> = [
    ['/rpc/big_rows?n=50', '/rpc/big_rows?n=50&limit=60', 'application/json'],
    ['/rpc/big_rows?n=50&select=name', '/rpc/big_rows?n=50&select=name&limit=60', 'text/csv'],
    ['/rpc/big_rows?n=50', '/rpc/big_rows?n=50&limit=60', 'application/x-ndjson'],
    ['/rpc/nums?n=70', '/rpc/nums?n=70&limit=80', 'application/json'],
    ['/rpc/nums?n=70', '/rpc/nums?n=70&limit=80', 'text/csv'],
  ];
  for (const [path, boundedPath, accept] of cases) {
    const from = lines.length;
    const unbounded = await small.request(path, { headers: { Accept: accept } });
    const ran = queries(lines, from);
    const bounded = await small.request(boundedPath, { headers: { Accept: accept } });
    const what = `${path} ${accept}`;
    t.equal(unbounded.status, 200, what);
    t.ok(unbounded.bytes.length > 200, `${what}: rows`);
    t.ok(unbounded.bytes.equals(bounded.bytes), `${what}: byte-identical body`);
    for (const h of ['content-type', 'content-range']) t.equal(unbounded.headers[h], bounded.headers[h], `${what}: ${h}`);
    t.equal(ran.length, 1, `${what}: one statement`);
    t.ok(limited(ran[0]!), `${what}: limited to threshold + 1 rows`);
    t.notOk(ran.some(cursor), `${what}: no cursor`);
  }
  // A POSTed call too.
  const from = lines.length;
  const posted = await small.request('/rpc/big_rows', { method: 'POST', body: { n: 30 } });
  const ran = queries(lines, from);
  t.equal(posted.status, 200);
  t.equal(posted.json().length, 30);
  t.equal(ran.length, 1);
  t.ok(limited(ran[0]!), 'POST: limited');
});

t.test('a large answer is run again as a cursor with the bytes of its bounded call, and its next call streams directly', async (t) => {
  const { small, buffered, lines } = await setup(t);
  const reference = await buffered.request('/rpc/big_rows?n=2000&limit=5000');
  let from = lines.length;
  const first = await small.request('/rpc/big_rows?n=2000');
  let ran = queries(lines, from);
  t.equal(first.status, 200);
  t.ok(first.bytes.equals(reference.bytes), 'byte-identical to the bounded (buffered) call');
  t.equal(first.headers['content-range'], undefined, 'streamed: no Content-Range');
  t.equal(ran.length, 2);
  t.ok(limited(ran[0]!), 'the limited run first');
  t.ok(cursor(ran[1]!), 'then the cursor');

  from = lines.length;
  const again = await small.request('/rpc/big_rows?n=2000');
  ran = queries(lines, from);
  t.ok(again.bytes.equals(reference.bytes));
  t.equal(ran.length, 1, 'the same call again: straight to the cursor');
  t.ok(cursor(ran[0]!));

  // A smaller answer of another shape is still tried limited first.
  from = lines.length;
  await small.request('/rpc/big_rows?n=20');
  ran = queries(lines, from);
  t.equal(ran.length, 1);
  t.ok(limited(ran[0]!));
});

t.test('a VOLATILE function is never run twice: straight to the cursor, small or large', async (t) => {
  const { small, buffered, lines } = await setup(t);
  for (const n of [10, 500]) {
    const from = lines.length;
    const r = await small.request(`/rpc/vol_nums?n=${n}`);
    const ran = queries(lines, from);
    t.equal(r.status, 200);
    t.ok(r.bytes.equals((await buffered.request(`/rpc/vol_nums?n=${n}&limit=1000`)).bytes), `n=${n}: the bounded call's bytes`);
    t.equal(ran.length, 1, `n=${n}: one statement`);
    t.ok(cursor(ran[0]!), `n=${n}: the cursor`);
    t.notOk(ran[0]!.includes(`LIMIT ${THRESHOLD + 1}`), `n=${n}: not limited`);
  }
});

t.test('a large call answer streams: its first bytes arrive while its row 2,000 is not read yet', async (t) => {
  const { small, buffered } = await setup(t);
  const gated = await readWhileGated(small.url + '/rpc/gated_rows', small.db.uri, LOCK);
  t.ok(gated.early.length > 0, 'bytes before row 2,000 can be read');
  t.equal(gated.status, 200);
  t.match(gated.early.toString(), /^\[\{"id":1,"name":"row 1","g":1\}/);
  // The request's backend is waiting at row 2,000 for the lock: not every row was read.
  t.equal(gated.waiting, 1, 'the statement waits at row 2,000');
  const reference = await buffered.request('/rpc/gated_rows?limit=5000');
  t.equal(reference.status, 200);
  t.ok(gated.body.equals(reference.bytes), 'the whole body: the bounded call\'s bytes');
});
