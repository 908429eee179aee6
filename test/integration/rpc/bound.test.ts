// The seam route mounts (engine spec §5) will use: arguments bound by name from any request part
// (planBoundCall), executed and rendered by the same executeCall as /rpc.
import t from 'tap';
import { findRoutines } from '../../../src/catalog/lookup.js';
import { executeCall } from '../../../src/http/call.js';
import { planBoundCall, type CallArgValue } from '../../../src/plan/call-plan.js';
import { parseRequest } from '../../../src/request/parse-request.js';
import { startWriteServer } from '../write/write-server.js';

t.test('planBoundCall + executeCall', async (t) => {
  const s = await startWriteServer(t);
  const app = s.server.app;
  const cache = app.cache()!;
  const who = { role: 'write_anon', claims: {}, authenticated: false };

  const call = async (fn: string, values: Record<string, CallArgValue>, method = 'GET', extra: Record<string, string> = {}) => {
    // The mount layer builds its own ApiRequest (a mount path is deeper than /rpc/f); any parsed
    // request carries the same context (method, path, headers → GUCs; Accept; Prefer).
    const parsed = parseRequest(
      { method, url: `/rpc/${fn}?ignored=eq.1`, headers: { accept: 'application/json', ...extra }, body: null },
      { schemas: ['public'], routineArgNames: () => null },
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
    const apiReq = parsed.value;
    const routine = findRoutines(cache, 'public', fn)[0]!;
    const planned = planBoundCall(routine, new Map(Object.entries(values)), apiReq, cache, app.config);
    if (!planned.ok) return { status: planned.error.status, body: planned.error as unknown };
    const res = await executeCall(planned.value, apiReq, who, cache, app);
    if (!res.ok) return { status: res.error.status, body: res.error as unknown };
    return { status: res.value.status, body: res.value.body === null ? null : JSON.parse(res.value.body.toString()) as unknown, headers: res.value.headers };
  };

  t.same(await call('greet', { name: 'Bob' }), { status: 200, body: 'hello Bob', headers: { 'Content-Range': '0-0/*', 'Content-Type': 'application/json; charset=utf-8' } });
  t.same((await call('greet', { name: 'Bob', greeting: 'hi' })).body, 'hi Bob');
  t.same((await call('vsum', { xs: ['1', '2', '5'] })).body, 8, 'a list feeds VARIADIC');
  t.same((await call('bytes_length', { '': Buffer.from([1, 2, 3]) })).body, 3, "a single unnamed parameter is bound as ''");
  t.same((await call('text_length', { '': 'héllo' })).body, 5);
  t.same((await call('named_json', { payload: '{"a":[1,2]}' })).body, { a: [1, 2] }, 'a body bound to a jsonb parameter');
  t.same((await call('all_items', {})).body, [
    { id: 1, name: 'one', qty: 1 },
    { id: 2, name: 'two', qty: 2 },
    { id: 3, name: 'three', qty: 3 },
  ], 'query parameters of the mount are not filters');
  t.equal((await call('greet', {})).status, 404, 'a required argument left unbound: DBRST202');
  t.equal((await call('add', { a: '1', zzz: '2' })).status, 404, 'an unknown argument: DBRST202');

  const writes = await call('write_audit', { note: 'mounted' }, 'POST');
  t.equal(writes.status, 204);
  t.same(await s.db.query(`SELECT note FROM audit WHERE note = 'mounted'`), [{ note: 'mounted' }]);
  const readOnly = await call('new_item', { id: '300', name: 'x' }, 'GET');
  t.equal(readOnly.status, 200, 'a volatile function runs read-write unless the mount says readOnly');
});
