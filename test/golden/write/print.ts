// Writes test/golden/write/statements.test.ts's expectations from the current builders:
// `node /tmp/runpg.mjs dist/test/golden/write/print.js > /tmp/golden.ts`, then review the diff.
import { POSTCONDITION_MARK } from '../../../src/sql/mutate.js';
import { writeCache, request, mutateStatement, callStatement } from './cases.js';
const { cache, drop } = await writeCache();
const BREAK = / (?=(FROM|WHERE|SELECT|LATERAL|RETURNING|ON CONFLICT|DO UPDATE|LEFT JOIN|ORDER BY|LIMIT)\b)/g;
const out: string[] = [];
/** The most readable TypeScript literal for a line of SQL. */
const quote = (x: string): string => {
  if (!x.includes("'") && !x.includes('\\')) return `'${x}'`;
  if (!x.includes('`') && !x.includes('${') && !x.includes('\\')) return '`' + x + '`';
  return JSON.stringify(x);
};
/** The values' literal; the per-process postcondition marker (sql/mutate.ts) as its constant. */
const values = (vs: ReadonlyArray<unknown>): string =>
  JSON.stringify(vs).replace(new RegExp(`"${POSTCONDITION_MARK} (DBRST1\\d\\d) "`, 'g'), '`${POSTCONDITION_MARK} $1 `');
const show = (name: string, code: string, st: { text: string; values: ReadonlyArray<unknown> }) => {
  const parts = st.text.split(BREAK).filter((_, i) => i % 2 === 0);
  if (parts.join(' ') !== st.text) throw new Error('split lost text');
  out.push(`t.test(${JSON.stringify(name)}, async (t) => {
  const s = ${code};
  t.equal(s.text, lines(
${parts.map((p) => '    ' + quote(p) + ',').join('\n')}
  ));
  t.same(s.values, ${values(st.values)});
});
`);
  void cache;
};
const cases: Array<[string, string]> = [
  ['POST one object: json_to_record, RETURNING 1', `mutateStatement(cache, request(cache, 'POST', '/items', {}, { id: 1, name: 'a' }))`],
  ['POST an array: json_to_recordset', `mutateStatement(cache, request(cache, 'POST', '/items', {}, [{ id: 1, name: 'a' }, { id: 2, name: 'b' }]))`],
  ['POST return=representation with select= and an embed over the written rows', `mutateStatement(cache, request(cache, 'POST', '/projects?select=id,name,clients(name)', { Prefer: 'return=representation' }, { name: 'a', client_id: 1 }))`],
  ['POST merge-duplicates on_conflict, headers-only: counted inserts, Location', `mutateStatement(cache, request(cache, 'POST', '/employees?on_conflict=name', { Prefer: 'resolution=merge-duplicates, return=headers-only' }, [{ id: 1, name: 'a' }]))`],
  ['POST ignore-duplicates', `mutateStatement(cache, request(cache, 'POST', '/employees', { Prefer: 'resolution=ignore-duplicates' }, [{ id: 1, name: 'a' }]))`],
  ["POST missing=default: each element laid over its columns' defaults", `mutateStatement(cache, request(cache, 'POST', '/defaults?columns=label,n', { Prefer: 'missing=default' }, [{ label: 'x' }]))`],
  ['PATCH with filters and strict max-affected: the postcondition', `mutateStatement(cache, request(cache, 'PATCH', '/items?id=gt.1&name=like.a*', { Prefer: 'handling=strict, max-affected=5' }, { qty: 3 }))`],
  ['PATCH limited by order and limit: rows chosen first, matched by ctid', `mutateStatement(cache, request(cache, 'PATCH', '/items?qty=gt.1&order=id.desc&limit=2', {}, { qty: 3 }))`],
  ['PATCH with an empty body changes nothing', `mutateStatement(cache, request(cache, 'PATCH', '/items?id=eq.1', { Prefer: 'return=representation' }, {}))`],
  ['DELETE with representation, singular', `mutateStatement(cache, request(cache, 'DELETE', '/items?id=eq.1', { Prefer: 'return=representation' }), true)`],
  ['PUT: the URL key filters the payload row, exactly one row or DBRST115', `mutateStatement(cache, request(cache, 'PUT', '/employees?id=eq.4', {}, { id: 4, name: 'x', salary: 1 }))`],
  ['GET /rpc: typed arguments, a scalar', `callStatement(cache, request(cache, 'GET', '/rpc/add?a=1&b=2'))`],
  ['POST /rpc: the JSON body as one parameter unpacked by json_to_record', `callStatement(cache, request(cache, 'POST', '/rpc/add', {}, { a: 1, b: 2 }))`],
  ['VARIADIC: repeated arguments as one array parameter', `callStatement(cache, request(cache, 'GET', '/rpc/vsum?xs=1&xs=2'))`],
  ['a single unnamed json parameter takes the body', `callStatement(cache, request(cache, 'POST', '/rpc/echo_json', {}, { x: 1 }))`],
  ['SETOF a table: select, filters, order, limit and an exact count over the call', `callStatement(cache, request(cache, 'GET', '/rpc/all_items?select=id,name&qty=gt.1&order=id&limit=2'), 'json', true)`],
  ['RETURNS TABLE', `callStatement(cache, request(cache, 'GET', '/rpc/item_names?min_qty=1'))`],
  ['void', `callStatement(cache, request(cache, 'POST', '/rpc/write_audit', {}, { note: 'x' }))`],
];
for (const [name, code] of cases) {
  // eslint-disable-next-line no-new-func
  const st = new Function('mutateStatement', 'callStatement', 'request', 'cache', `return ${code}`)(mutateStatement, callStatement, request, cache);
  show(name, code, st);
}
console.log(out.join('\n'));
await drop();
