// http/shape-memo.ts: a request shape is planned once; later requests only put their own body into
// the statement. The memo is checked on the first request (a stand-in body must give the same SQL
// text and differ in the body parameter only), so a build whose SQL depends on body values is
// never memoized.
import t from 'tap';
import type { SchemaCache } from '../../../src/catalog/types.js';
import type { AppConfig } from '../../../src/config/types.js';
import { ok, type Result } from '../../../src/errors/types.js';
import { plannedByShape, type Planned } from '../../../src/http/shape-memo.js';
import type { ApiRequest } from '../../../src/request/api-request.js';
import { parseRequest } from '../../../src/request/parse-request.js';

const cache = () => ({}) as SchemaCache; // only its identity matters here
const config = {} as AppConfig;

function post(url: string, body: unknown, headers: Record<string, string> = {}): ApiRequest {
  const r = parseRequest(
    { method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) },
    { schemas: ['public'], routineArgNames: () => null },
  );
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

/** A build like the real ones: SQL text from the body's keys, the body as parameter 2 of 3. */
function counting(textFromBody = false) {
  const calls: string[] = [];
  const build = (req: ApiRequest): Result<Planned<{ keys: string }>> => {
    const body = req.body!.toString();
    calls.push(body);
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const keys = Object.keys(Array.isArray(parsed) ? parsed[0] ?? {} : parsed).join(',');
    const text = `INSERT (${keys}) SELECT … FROM json_to_recordset($2) WHERE x = $1 AND y = $3` + (textFromBody ? ` -- ${body}` : '');
    return ok({ plan: { keys }, statement: { text, values: ['filter', body, 7] } });
  };
  return { calls, build };
}

t.test('planned once per shape; later bodies only fill the body parameter', async (t) => {
  const c = cache();
  const { calls, build } = counting();
  const first = plannedByShape(post('/items?x=eq.1', { a: 1, b: 'x' }), c, config, false, null, build);
  t.ok(first.ok);
  t.equal(calls.length, 2, 'the first request is planned twice: its own body and a stand-in');
  t.same(JSON.parse(calls[1]!), { a: null, b: null }, 'the stand-in has the same keys, null values');

  const second = plannedByShape(post('/items?x=eq.1', { a: 2, b: 'y' }), c, config, false, null, build);
  t.equal(calls.length, 2, 'the second request of the shape is not planned');
  t.ok(second.ok);
  if (second.ok && first.ok) {
    t.equal(second.value.statement.text, first.value.statement.text);
    t.same(second.value.statement.values, ['filter', '{"a":2,"b":"y"}', 7], 'its own body, the other values kept');
    t.match(second.value.statement.name, /^dbrest_[0-9a-f]{20}$/, 'the prepared-statement name comes with it');
    t.same(second.value.plan, { keys: 'a,b' });
  }

  plannedByShape(post('/items?x=eq.1', { b: 1, a: 2 }), c, config, false, null, build);
  t.equal(calls.length, 4, 'other key order: another shape');
  plannedByShape(post('/items?x=eq.1', [{ a: 1, b: 2 }]), c, config, false, null, build);
  t.equal(calls.length, 6, 'an array of the same keys: another shape');
  plannedByShape(post('/items?x=eq.2', { a: 1, b: 2 }), c, config, false, null, build);
  t.equal(calls.length, 8, 'another query string: another shape');
  plannedByShape(post('/items?x=eq.1', { a: 1, b: 2 }, { prefer: 'return=representation' }), c, config, false, null, build);
  t.equal(calls.length, 10, 'another Prefer: another shape');
  plannedByShape(post('/items?x=eq.1', { a: 5, b: 6 }), cache(), config, false, null, build);
  t.equal(calls.length, 12, 'another schema cache (a reload): planned afresh');
});

t.test('a build whose SQL text depends on body values is never memoized', async (t) => {
  const c = cache();
  const { calls, build } = counting(true);
  const first = plannedByShape(post('/items', { a: 1 }), c, config, false, null, build);
  const second = plannedByShape(post('/items', { a: 2 }), c, config, false, null, build);
  t.equal(calls.length, 3, 'checked once, then always planned in full');
  if (first.ok && second.ok) t.match(second.value.statement.text, /-- \{"a":2\}$/, 'the second request got its own SQL');
});

t.test('bodies that are not JSON objects or arrays of them are always planned in full', async (t) => {
  const c = cache();
  const calls: string[] = [];
  const csv = parseRequest(
    { method: 'POST', url: '/items', headers: { 'content-type': 'text/csv' }, body: Buffer.from('a\n1\n') },
    { schemas: ['public'], routineArgNames: () => null },
  );
  if (!csv.ok) throw new Error('csv request');
  const csvBuild = (req: ApiRequest) => {
    calls.push('csv');
    return ok({ plan: {}, statement: { text: 'X', values: [req.body!.toString()] } });
  };
  plannedByShape(csv.value, c, config, false, null, csvBuild);
  plannedByShape(csv.value, c, config, false, null, csvBuild);
  t.same(calls, ['csv', 'csv'], 'CSV: planned each time, no stand-in');
  calls.length = 0;
  const bad = plannedByShape(post('/items', '{"a":'), c, config, false, null, (req) => {
    calls.push(req.body!.toString());
    return ok({ plan: { keys: '' }, statement: { text: 'X', values: [] } });
  });
  t.ok(bad.ok);
  t.equal(calls.length, 1, 'invalid JSON goes to the planner (which answers DBRST102) without a stand-in');
});

t.test('the last shape is compared part by part: any part that differs is another shape', async (t) => {
  const c = cache();
  const { calls, build } = counting();
  const planned = (req: ApiRequest, cfg: AppConfig = config) => {
    const before = calls.length;
    plannedByShape(req, c, cfg, false, null, build);
    return calls.length - before;
  };
  t.equal(planned(post('/items', { a: 1, b: 2 })), 2, 'first: planned and checked');
  t.equal(planned(post('/items', { a: 3, b: 4 })), 0, 'same shape again');
  t.equal(planned(post('/items', { a: 1 })), 2, 'fewer keys');
  t.equal(planned(post('/items', { a: 1, c: 2 })), 2, 'a key renamed');
  t.equal(planned(post('/other', { a: 1, c: 2 })), 2, 'another path');
  t.equal(planned(post('/other', { a: 1, c: 2 }, { accept: 'text/csv' })), 2, 'another Accept');
  t.equal(planned(post('/other', { a: 1, c: 2 }, { 'content-type': 'application/json; charset=utf-8' })), 2, 'another Content-Type');
  const patch = parseRequest(
    { method: 'PATCH', url: '/other', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a":1,"c":2}') },
    { schemas: ['public'], routineArgNames: () => null },
  );
  if (!patch.ok) throw new Error('patch request');
  t.equal(planned(patch.value), 2, 'another method');
  const profiled = parseRequest(
    { method: 'POST', url: '/other', headers: { 'content-type': 'application/json', 'content-profile': 'api' }, body: Buffer.from('{"a":1,"c":2}') },
    { schemas: ['public', 'api'], routineArgNames: () => null },
  );
  if (!profiled.ok) throw new Error('profiled request');
  t.equal(planned(profiled.value), 2, 'another schema');
  t.equal(planned(post('/items', { a: 5, b: 6 })), 0, 'an earlier shape, not the last one: from the table');
  t.equal(planned(post('/items', { a: 5, b: 6 })), 0, 'and again, now the last one');
  t.equal(planned(post('/items', { a: 5, b: 6 }), {} as AppConfig), 2, 'another configuration: planned afresh');
});
