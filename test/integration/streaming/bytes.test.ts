// Streamed answers (server-stream-threshold low: every answer above it goes through the cursor)
// carry the same bytes as buffered ones (threshold high), in JSON, CSV and NDJSON, for reads and
// set-returning calls; the request's role, JWT claims, pre-request and response GUCs apply to
// them; CSV values are PostgreSQL's text output, as PostgREST writes them.
import { SignJWT, type JWTPayload } from 'jose';
import t from 'tap';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { STREAM_SQL } from './fixture.js';

const SECRET = 'streaming-integration-secret-of-32-chars!';
const bearer = async (claims: JWTPayload) => ({
  Authorization: `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET))}`,
});

const BASE = { 'db-schemas': 'stream', 'db-anon-role': 'stream_anon', 'jwt-secret': SECRET };

async function pair(t: { teardown(fn: () => unknown): void }, extra: Record<string, string> = {}): Promise<{ streamed: TestServer; buffered: TestServer }> {
  const streamed = await startTestServer(t, { fixtures: [STREAM_SQL], config: { ...BASE, ...extra, 'server-stream-threshold': '2' } });
  const buffered = await startTestServer(t, { db: streamed.db, config: { ...BASE, ...extra, 'server-stream-threshold': '1000000' } });
  return { streamed, buffered };
}

const CASES: ReadonlyArray<readonly [string, string]> = [
  ['/vals?order=id', 'application/json'],
  ['/vals?order=id', 'text/csv'],
  ['/vals?order=id', 'application/x-ndjson'],
  ['/vals?select=id,comp,txt&order=id.desc', 'text/csv'],
  ['/big?order=id', 'application/json'],
  ['/big?order=id', 'text/csv'],
  ['/big?order=id', 'application/x-ndjson'],
  ['/big?select=id,name&order=id.desc&offset=7', 'application/json'],
  ['/big?select=tags,id&id=gt.100&order=id&limit=1500', 'text/csv'],
  ['/rpc/big_rows?n=2000', 'application/json'],
  ['/rpc/big_rows?n=2000&select=name', 'text/csv'],
  ['/rpc/big_rows?n=2000', 'application/x-ndjson'],
  ['/rpc/nums?n=700', 'application/json'],
  ['/rpc/nums?n=700', 'text/csv'],
  ['/rpc/nums?n=700', 'application/x-ndjson'],
  ['/rpc/arrs?n=300', 'application/json'],
];

t.test('a streamed answer equals the buffered one byte for byte', async (t) => {
  const { streamed, buffered } = await pair(t);
  for (const [path, accept] of CASES) {
    const a = await streamed.request(path, { headers: { Accept: accept } });
    const b = await buffered.request(path, { headers: { Accept: accept } });
    t.equal(a.status, 200, `${path} ${accept}: streamed status`);
    t.equal(b.status, 200, `${path} ${accept}: buffered status`);
    // Streamed: chunked, no length known up front; buffered: a Content-Length.
    t.equal(a.headers['transfer-encoding'], 'chunked', `${path} ${accept}: streamed`);
    t.equal(a.headers['content-length'], undefined, `${path} ${accept}: no length when streamed`);
    t.equal(b.headers['content-length'], String(b.bytes.length), `${path} ${accept}: buffered`);
    t.equal(a.headers['content-type'], b.headers['content-type'], `${path} ${accept}: same type`);
    t.ok(a.bytes.equals(b.bytes), `${path} ${accept}: same ${b.bytes.length} bytes`);
  }
  // Sanity of the bodies compared: whole, parseable, every row.
  const big = await streamed.request('/big?order=id', { headers: { Accept: 'application/x-ndjson' } });
  const lines = big.text.split('\n');
  t.equal(lines.length, 3001, 'NDJSON: 3000 lines, each ended by \\n');
  t.same(JSON.parse(lines[2999]!), { id: 3000, name: 'row 3000', tags: ['t3000', 'x,y'], owner: 'stream_user' });
  t.equal((await streamed.request('/big?order=id')).json().length, 3000);
});

t.test('an answer within the threshold is buffered, with its Content-Range', async (t) => {
  const { streamed, buffered } = await pair(t);
  const a = await streamed.request('/big?order=id&id=lte.2');
  const b = await buffered.request('/big?order=id&id=lte.2');
  t.equal(a.headers['content-range'], '0-1/*');
  t.equal(a.headers['content-length'], String(a.bytes.length));
  t.ok(a.bytes.equals(b.bytes));
  t.equal(a.text, '[{"id":1,"name":"row 1","tags":["t1","x,y"],"owner":null}, \n {"id":2,"name":"row 2","tags":["t2","x,y"],"owner":"stream_user"}]');
  const empty = await streamed.request('/big?id=lt.0', { headers: { Accept: 'text/csv' } });
  t.equal(empty.text, '\n', 'no rows: no header, one newline (PostgREST)');
  t.equal(empty.headers['content-range'], '*/*');
  const emptyNd = await streamed.request('/big?id=lt.0', { headers: { Accept: 'application/x-ndjson' } });
  t.equal(emptyNd.status, 200);
  t.equal(emptyNd.text, '');
  // A limit at or under the threshold and count=exact are never streamed.
  const limited = await streamed.request('/big?order=id&limit=2');
  t.equal(limited.headers['content-length'], String(limited.bytes.length));
  const counted = await streamed.request('/big?order=id', { headers: { Prefer: 'count=exact' } });
  t.equal(counted.headers['content-range'], '0-2999/3000');
  t.equal(counted.headers['content-length'], String(counted.bytes.length));
});

t.test('CSV values are PostgreSQL text output, as PostgREST writes them', async (t) => {
  const { streamed, buffered } = await pair(t);
  const expected =
    'id,arr,tarr,rng,tsv,js,jb,comp,txt,n,b,ts,bytes\n' +
    '1,"{1,2}","{""a b"",""c,d"",NULL}","[1,5)","\'a\' \'cat\' \'fat\'","{""a"": [1, 2]}","{""b"": ""x, y""}","(1,""x """"y"""""")",plain,1.50,t,"2024-01-02 03:04:05+00","\\\\xdeadbeef"\n' +
    '2,,{},empty,"",null,[],,"comma, ""quote""\nnewline\\\\back",,f,,"\\\\x"\n' +
    '3,{},,,,,,"(,"""")","",0.0,,infinity,\n' +
    '4,"{{1,2},{3,4}}","{(x)}","(,11)","\'b\':1A \'c\'","""s""","{""k"": null}","(2,""(p)"")"," lead",10000000000,t,,"\\\\x00"';
  for (const s of [buffered, streamed]) {
    const r = await s.request('/vals?order=id', { headers: { Accept: 'text/csv', Prefer: 'timezone=UTC' } });
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'text/csv; charset=utf-8');
    t.equal(r.text, expected);
  }
  // A call's CSV is named by its select, the same streamed or not.
  const call = await buffered.request('/rpc/big_rows?n=3&select=name,id', { headers: { Accept: 'text/csv' } });
  t.equal(call.text, 'name,id\n"row 1",1\n"row 2",2\n"row 3",3');
});

t.test('role, JWT claims, pre-request and response GUCs apply to streamed answers', async (t) => {
  const { streamed, buffered } = await pair(t, { 'db-pre-request': 'stream.pre' });
  const auth = await bearer({ role: 'stream_user', sub: 'alice' });
  for (const s of [streamed, buffered]) {
    const who = await s.request('/rpc/who?n=5', { headers: auth });
    t.equal(who.status, 200);
    t.same(who.json()[4], { i: 5, usr: 'stream_user', claim: 'alice' });
    t.equal(who.headers['x-pre'], 'stream_user', 'pre-request ran as the role and set a header');
    // Row-level security as the JWT role: only the user's rows (1500 of 3000).
    const own = await s.request('/big?select=owner', { headers: { ...auth, Accept: 'application/x-ndjson' } });
    t.equal(own.text.split('\n').length, 1501);
    t.notOk(own.text.includes('null'));
    const anon = await s.request('/rpc/who?n=3');
    t.same(anon.json()[0], { i: 1, usr: 'stream_anon', claim: null });
    // Set by the function before its first row.
    const tagged = await s.request('/rpc/tag_response?n=50');
    t.equal(tagged.headers['x-rows'], '50');
    t.equal(tagged.json().length, 50);
  }
  t.equal((await streamed.request('/rpc/who?n=5', { headers: auth })).headers['transfer-encoding'], 'chunked');
  t.ok((await streamed.request('/rpc/who?n=5', { headers: auth })).bytes.equals((await buffered.request('/rpc/who?n=5', { headers: auth })).bytes));
});

t.test('an NDJSON body inserts its rows', async (t) => {
  const { streamed: s } = await pair(t);
  const body = '{"id": 10001, "name": "nd a", "tags": ["p"]}\n{"id": 10002, "name": "nd b", "tags": null}\n\n{"id": 10003, "name": "line \\n c", "tags": []}\n';
  const r = await s.request('/big?select=id,name,tags', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-ndjson', Prefer: 'return=representation', Accept: 'application/x-ndjson' },
    body,
  });
  t.equal(r.status, 201);
  t.equal(r.headers['content-type'], 'application/x-ndjson; charset=utf-8');
  t.equal(r.text, '{"id":10001,"name":"nd a","tags":["p"]}\n{"id":10002,"name":"nd b","tags":null}\n{"id":10003,"name":"line \\n c","tags":[]}\n');
  const back = await s.request('/big?id=gt.10000&select=id,name&order=id');
  t.same(back.json(), [{ id: 10001, name: 'nd a' }, { id: 10002, name: 'nd b' }, { id: 10003, name: 'line \n c' }]);

  const bad = await s.request('/big', { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: '{"id": 1}\n{"id": \n' });
  t.equal(bad.status, 400);
  t.equal(bad.json().code, 'DBRST102');
  t.match(bad.json().details, /^line 2: /);
  const keys = await s.request('/big', { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: '{"id": 20001}\n{"name": "x"}\n' });
  t.equal(keys.status, 400);
  t.equal(keys.json().message, 'All object keys must match');
  t.same((await s.request('/big?id=gt.20000')).json(), [], 'nothing of a refused body was written');
});
