// Issue 12, item 7: reads as PostgREST v16 answers them (test/spec/Feature/Query/RangeSpec.hs,
// Preferences/TimezoneSpec.hs, AggregateFunctionsSpec.hs, QuerySpec.hs, and the config reference for
// url-use-legacy-target-names). Fixture: test/fixtures/sql/parity_reads.sql.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity_reads.sql')],
    config: { 'db-schemas': 'parity_reads', 'db-anon-role': 'postgres', 'db-aggregates-enabled': 'true', 'db-plan-enabled': 'true', ...config },
  });
}

t.test('full-text search on a domain over tsvector uses the column as is (no to_tsvector)', async (t) => {
  const s = await server(t);
  // to_tsvector() over the domain's text would also match row 3 ('cats' stored with the simple config).
  const fts = await s.request('/docs?select=id&doc=fts(english).cat&order=id');
  t.equal(fts.status, 200);
  t.same(fts.json(), [{ id: 1 }]);
  const not = await s.request('/docs?select=id&doc=not.fts(english).cat&order=id');
  t.same(not.json(), [{ id: 2 }, { id: 3 }]);
  const wfts = await s.request('/docs?select=id&doc=wfts(english).fat%20-rat&order=id');
  t.same(wfts.json(), []);
  // A text column is still converted (PostgREST's automatic tsvector conversion).
  const text = await s.request('/docs?select=id&body=fts(english).cat&order=id');
  t.same(text.json(), [{ id: 1 }, { id: 3 }]);
  const logic = await s.request('/docs?select=id&or=(doc.fts(english).cat,id.eq.2)&order=id');
  t.same(logic.json(), [{ id: 1 }, { id: 2 }]);
});

t.test('Prefer: timezone as v16: names, numeric offsets, strict echo, unknown zone 400 22023 whatever the handling', async (t) => {
  const s = await server(t);
  const la = await s.request('/timestamps?order=t', { headers: { Prefer: 'handling=strict, timezone=America/Los_Angeles' } });
  t.equal(la.status, 200);
  t.same(la.json(), [{ t: '2023-10-18T05:37:59.611-07:00' }, { t: '2023-10-18T07:37:59.611-07:00' }, { t: '2023-10-18T09:37:59.611-07:00' }]);
  t.equal(la.headers['preference-applied'], 'handling=strict, timezone=America/Los_Angeles');
  const plain = await s.request('/timestamps?order=t&limit=1', { headers: { Prefer: 'timezone=America/Los_Angeles' } });
  t.equal(plain.headers['preference-applied'], 'timezone=America/Los_Angeles');

  // POSIX offsets: PostgreSQL reads `+05:30` as west of Greenwich (PostgREST's spec shows -05:30).
  const plus = await s.request('/timestamps?order=t&limit=1', { headers: { Prefer: 'timezone=+05:30' } });
  t.equal(plus.status, 200);
  t.same(plus.json(), [{ t: '2023-10-18T07:07:59.611-05:30' }]);
  t.equal(plus.headers['preference-applied'], 'timezone=+05:30');
  const minus = await s.request('/timestamps?order=t&limit=1', { headers: { Prefer: 'timezone=-4' } });
  t.same(minus.json(), [{ t: '2023-10-18T08:37:59.611-04:00' }]);
  t.equal(minus.headers['preference-applied'], 'timezone=-4');

  const invalid = { code: '22023', details: null, hint: null, message: 'invalid value for parameter "TimeZone": "Invalid/Timezone"' };
  for (const prefer of ['timezone=Invalid/Timezone', 'handling=strict, timezone=Invalid/Timezone', 'handling=lenient, timezone=Invalid/Timezone']) {
    const r = await s.request('/timestamps', { headers: { Prefer: prefer } });
    t.equal(r.status, 400, prefer);
    t.same(r.json(), invalid, prefer);
  }
  const leap = await s.request('/timestamps', { headers: { Prefer: 'timezone=05:30:15' } });
  t.equal(leap.status, 400);
  t.same(leap.json(), { code: '22023', details: 'PostgreSQL does not support leap seconds.', hint: null, message: 'time zone "05:30:15" appears to use leap seconds' });
  // Writes set it too.
  const post = await s.request('/timestamps', {
    method: 'POST',
    headers: { Prefer: 'return=representation, timezone=Asia/Tokyo' },
    body: { t: '2023-10-19T00:00:00Z' },
  });
  t.equal(post.status, 201);
  t.same(post.json(), [{ t: '2023-10-19T09:00:00+09:00' }]);
});

t.test('count=estimated as PostgREST computes it: counted up to db-max-rows, else the larger of count and plan', async (t) => {
  // The fixture's planner statistics say 20 rows; 15 exist.
  const none = await server(t);
  const exact = await none.request('/items?select=id', { headers: { Prefer: 'count=exact' } });
  t.equal(exact.headers['content-range'], '0-14/15');
  const planned = await none.request('/items?select=id', { headers: { Prefer: 'count=planned' } });
  t.equal(planned.status, 206);
  t.equal(planned.headers['content-range'], '0-14/20');
  // No db-max-rows: PostgREST compares the count with an absent maximum as "above it" and takes the larger.
  const est = await none.request('/items?select=id', { headers: { Prefer: 'count=estimated' } });
  t.equal(est.status, 206);
  t.equal(est.headers['content-range'], '0-14/20');
  t.equal(est.headers['preference-applied'], 'count=estimated');

  const capped = await server(t, { 'db-max-rows': '10' });
  const above = await capped.request('/items?select=id&order=id', { headers: { Prefer: 'count=estimated' } });
  t.equal(above.status, 206);
  t.equal(above.headers['content-range'], '0-9/20', 'more than db-max-rows: the planner estimate');
  t.equal(above.json().length, 10);

  const roomy = await server(t, { 'db-max-rows': '100' });
  const below = await roomy.request('/items?select=id', { headers: { Prefer: 'count=estimated' } });
  t.equal(below.status, 200);
  t.equal(below.headers['content-range'], '0-14/15', 'within db-max-rows: the exact count');
  const limited = await roomy.request('/items?select=id&limit=2', { headers: { Prefer: 'count=estimated' } });
  t.equal(limited.status, 206);
  t.equal(limited.headers['content-range'], '0-1/15');
});

/** The plan nodes of an EXPLAIN (FORMAT JSON) document, depth first. */
function nodeTypes(plan: any): string[] {
  const out: string[] = [];
  const walk = (n: any) => {
    out.push(n['Node Type']);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(plan[0].Plan);
  return out;
}

t.test('count=exact without limit, offset or db-max-rows: the page count is the total, one count aggregate in the plan', async (t) => {
  const s = await server(t);
  const headers = { Prefer: 'count=exact', Accept: 'application/vnd.pgrst.plan+json' };
  const whole = await s.request('/items?select=id', { headers });
  t.equal(whole.status, 200);
  t.same(nodeTypes(whole.json()).filter((n) => n === 'Aggregate'), ['Aggregate'], 'one aggregate');
  const limited = await s.request('/items?select=id&limit=5', { headers });
  t.same(nodeTypes(limited.json()).filter((n) => n === 'Aggregate'), ['Aggregate', 'Aggregate'], 'with a limit the total is counted apart');
  const filtered = await s.request('/items?select=id&id=gt.10', { headers: { Prefer: 'count=exact' } });
  t.equal(filtered.headers['content-range'], '0-4/5');
  const empty = await s.request('/items?select=id&id=gt.100', { headers: { Prefer: 'count=exact' } });
  t.equal(empty.headers['content-range'], '*/0');
  t.same(empty.json(), []);
});

t.test('negative offset is a no-op; negative limit is 416 (RangeSpec.hs)', async (t) => {
  const s = await server(t);
  const off = await s.request('/items?select=id&offset=-4&order=id&limit=3');
  t.equal(off.status, 200);
  t.same(off.json(), [{ id: 1 }, { id: 2 }, { id: 3 }]);
  t.equal(off.headers['content-range'], '0-2/*');
  const lim = await s.request('/items?select=id&limit=-1');
  t.equal(lim.status, 416);
  t.same(lim.json(), { code: 'DBRST103', details: 'Limit should be greater than or equal to zero.', hint: null, message: 'Requested range not satisfiable' });
  const embedOff = await s.request('/clients?select=id,projects(id)&projects.offset=-1&projects.order=id&id=eq.1');
  t.same(embedOff.json(), [{ id: 1, projects: [{ id: 1 }, { id: 2 }] }]);
  const embedLim = await s.request('/clients?select=id,projects(id)&projects.limit=-2');
  t.equal(embedLim.status, 416);
  const junk = await s.request('/items?select=id&offset=-x');
  t.equal(junk.status, 400);
  t.same(junk.json(), { code: 'DBRST100', details: 'offset must be an integer', hint: null, message: 'failed to parse offset parameter (-x)' });
});

t.test('select=count and rel(count): the count() aggregate, unless a column is named count (AggregateFunctionsSpec.hs)', async (t) => {
  const s = await server(t);
  const all = await s.request('/projects?select=count');
  t.equal(all.status, 200);
  t.same(all.json(), [{ count: 5 }]);
  const embedded = await s.request('/clients?select=name,projects(count)&order=id');
  t.same(embedded.json(), [
    { name: 'Microsoft', projects: [{ count: 2 }] },
    { name: 'Apple', projects: [{ count: 2 }] },
    { name: 'Google', projects: [{ count: 0 }] },
  ]);
  const aliased = await s.request('/projects?select=n:count,client_id&order=client_id.desc');
  t.same(aliased.json(), [{ n: 1, client_id: null }, { n: 2, client_id: 2 }, { n: 2, client_id: 1 }]);
  const column = await s.request('/tallies?select=count&order=id');
  t.same(column.json(), [{ count: 7 }, { count: 9 }], 'a real column wins');

  const off = await server(t, { 'db-aggregates-enabled': 'false' });
  const refused = await off.request('/projects?select=count');
  t.equal(refused.status, 400);
  t.equal(refused.json().code, 'DBRST123');
});

t.test('url-use-legacy-target-names: an aliased embed named by relation works with a Warning, or is DBRST108 when off', async (t) => {
  const s = await server(t);
  const path = '/clients?select=id,p:projects(id)&projects.order=id.desc&projects.limit=1&id=lt.3&order=id';
  const legacy = await s.request(path);
  t.equal(legacy.status, 200);
  t.same(legacy.json(), [{ id: 1, p: [{ id: 2 }] }, { id: 2, p: [{ id: 4 }] }]);
  t.equal(
    legacy.headers['warning'],
    '299 dbrest "Embedded resource was referenced by relation name even though it has an alias. This is deprecated and will stop working in a future release. Update `projects` to `p` in query string filters, orders or limits."',
  );
  const byAlias = await s.request('/clients?select=id,p:projects(id)&p.order=id.desc&p.limit=1&id=lt.3&order=id');
  t.same(byAlias.json(), legacy.json());
  t.equal(byAlias.headers['warning'], undefined, 'no warning when the alias is used');

  const strict = await server(t, { 'url-use-legacy-target-names': 'false' });
  const refused = await strict.request(path);
  t.equal(refused.status, 400);
  t.same(refused.json(), {
    code: 'DBRST108',
    details: 'Target names are not allowed in filters if they have an alias',
    hint: "Change 'projects' to 'p' in filters, orders or limits.",
    message: "'projects' is not an embedded resource in this request",
  });
  const filter = await strict.request('/clients?select=id,p:projects(id)&projects.id=eq.1');
  t.equal(filter.status, 400);
  t.equal(filter.json().hint, "Change 'projects' to 'p' in filters, orders or limits.");
  const fine = await strict.request('/clients?select=id,p:projects(id)&p.id=eq.1&id=eq.1');
  t.same(fine.json(), [{ id: 1, p: [{ id: 1 }] }]);
  const unaliased = await strict.request('/clients?select=id,projects(id)&projects.id=eq.3&id=eq.2');
  t.same(unaliased.json(), [{ id: 2, projects: [{ id: 3 }] }]);
});

t.test('ordering by a select alias', async (t) => {
  const s = await server(t);
  const r = await s.request('/projects?select=ident:id,name&order=ident.desc&limit=2');
  t.equal(r.status, 200);
  t.same(r.json(), [{ ident: 5, name: 'Orphan' }, { ident: 4, name: 'OSX' }]);
  const n = await s.request('/projects?select=id,n:name&order=n.asc&limit=2');
  t.same(n.json(), [{ id: 3, n: 'IOS' }, { id: 4, n: 'OSX' }]);
  const embedded = await s.request('/clients?select=id,projects(pid:id)&projects.order=pid.desc&id=eq.1');
  t.same(embedded.json(), [{ id: 1, projects: [{ pid: 2 }, { pid: 1 }] }]);
  const unknown = await s.request('/projects?select=id&order=nope');
  t.equal(unknown.status, 400);
  t.equal(unknown.json().code, '42703');
});

t.test('trailing characters after a complete select or logic value are ignored; after an order term they are not', async (t) => {
  const s = await server(t);
  // PostgREST's select parser is a comma-separated list with no end-of-input check.
  const sel = await s.request('/projects?select=id,name)junk&id=eq.1');
  t.equal(sel.status, 200);
  t.same(sel.json(), [{ id: 1, name: 'Windows 7' }]);
  const emb = await s.request('/clients?select=id,projects(id)x&id=eq.2&projects.order=id');
  t.same(emb.json(), [{ id: 2, projects: [{ id: 3 }, { id: 4 }] }]);
  // ... and its logic-tree parser stops at the group's closing parenthesis.
  const logic = await s.request('/projects?select=id&or=(id.eq.1,id.eq.2))junk&order=id');
  t.equal(logic.status, 200);
  t.same(logic.json(), [{ id: 1 }, { id: 2 }]);
  // Order terms must end at `,` or the end (PostgREST's pEnd).
  const order = await s.request('/projects?select=id&order=id.desc)');
  t.equal(order.status, 400);
  t.equal(order.json().code, 'DBRST100');
  t.equal(order.json().message, 'failed to parse order (id.desc))');
  // Inside an embed the list must still close.
  const open = await s.request('/clients?select=id,projects(id x');
  t.equal(open.status, 400);
  t.equal(open.json().code, 'DBRST100');
});
