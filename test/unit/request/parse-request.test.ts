// parseRequest keeps a parsed query string by its text, except for GET /rpc, whose parameters are
// arguments or filters depending on the function called.
import t from 'tap';
import { parseRequest } from '../../../src/request/parse-request.js';

const get = (url: string, args: (name: string) => Set<string> | null = () => null) =>
  parseRequest({ method: 'GET', url, headers: {}, body: null }, { schemas: ['public'], routineArgNames: (_schema, name) => args(name) });

t.test('a query string seen before is not parsed again', async (t) => {
  const a = get('/tracks?album_id=lte.500&order=id.desc&limit=50');
  const b = get('/albums?album_id=lte.500&order=id.desc&limit=50');
  if (!a.ok || !b.ok) throw new Error('parse failed');
  t.equal(b.value.query, a.value.query, 'the same parsed query, whatever the table');
  t.same(a.value.query.ranges, [{ path: [], offset: 0, limit: 50 }]);
  const bad = get('/tracks?id=eq.%FF');
  const again = get('/tracks?id=eq.%FF');
  t.equal(!bad.ok && bad.error.code, 'DBRST100', 'invalid UTF-8 in the query string');
  t.equal(!again.ok && again.error.code, 'DBRST100', 'and again');
});

t.test('GET /rpc parameters depend on the function, not only on the text', async (t) => {
  const args = (name: string) => (name === 'f' ? new Set(['a']) : new Set<string>());
  const f = get('/rpc/f?a=eq.1', args);
  const g = get('/rpc/g?a=eq.1', args);
  if (!f.ok || !g.ok) throw new Error('parse failed');
  t.same(f.value.query.rpcArgs, [['a', 'eq.1']], "f's argument a");
  t.same(g.value.query.rpcArgs, [], 'for g, a filter');
  t.equal(g.value.query.logic.length, 1);
});
