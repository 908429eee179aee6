// The read path over HTTP: pagination and count rules of the seed (one test per numbered rule and
// per count mode), Content-Range forms, singular and CSV representations, HEAD, profiles, and the
// error model for bad requests. Exact status, headers and body in every case.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const extra = `CREATE TABLE public.notes (id int PRIMARY KEY, body text); INSERT INTO public.notes VALUES (1, 'in public');
  CREATE FUNCTION test.task_count(test.projects) RETURNS bigint LANGUAGE sql STABLE
    AS $$ SELECT count(*) FROM test.tasks WHERE project_id = $1.id $$;`;

async function server(t: { teardown(fn: () => unknown): void }, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'read.sql'), extra],
    config: { 'db-schemas': 'test,public', 'db-anon-role': 'postgres', ...config },
  });
}

t.test('pagination rules', async (t) => {
  const s = await server(t);

  await t.test('rule 1: limit/offset and the Range header select rows; range headers always present', async (t) => {
    const a = await s.request('/projects?select=id&order=id&limit=2&offset=1');
    t.equal(a.status, 200);
    t.equal(a.headers['content-range'], '1-2/*');
    t.same(a.json(), [{ id: 2 }, { id: 3 }]);
    const b = await s.request('/projects?select=id&order=id', { headers: { 'Range-Unit': 'items', Range: '1-2' } });
    t.equal(b.status, 200);
    t.equal(b.headers['content-range'], '1-2/*');
    t.same(b.json(), [{ id: 2 }, { id: 3 }]);
    const open = await s.request('/projects?select=id&order=id', { headers: { Range: '3-' } });
    t.same(open.json(), [{ id: 4 }, { id: 5 }]);
    t.equal(open.headers['content-range'], '3-4/*');
  });

  await t.test('rule 2: limit and offset apply to embedded resources', async (t) => {
    const r = await s.request('/clients?select=id,projects(id)&projects.order=id&projects.limit=1&projects.offset=1&order=id&limit=2');
    t.equal(r.status, 200);
    t.same(r.json(), [{ id: 1, projects: [{ id: 2 }] }, { id: 2, projects: [{ id: 4 }] }]);
  });

  await t.test('rule 3: fewer rows than requested returns what exists, Content-Range shows it', async (t) => {
    const r = await s.request('/projects?select=id&order=id&offset=3&limit=10');
    t.equal(r.status, 200);
    t.equal(r.headers['content-range'], '3-4/*');
    t.same(r.json(), [{ id: 4 }, { id: 5 }]);
    const empty = await s.request('/projects?id=eq.999');
    t.equal(empty.headers['content-range'], '*/*');
    t.same(empty.json(), []);
  });

  await t.test('rule 4: an invalid range is 416 DBRST103', async (t) => {
    const r = await s.request('/projects?offset=9', { headers: { Prefer: 'count=exact' } });
    t.equal(r.status, 416);
    t.equal(r.headers['content-range'], '*/5');
    t.equal(r.headers['proxy-status'], 'dbrest; error=DBRST103');
    t.same(r.json(), {
      code: 'DBRST103',
      details: 'An offset of 9 was requested, but there are only 5 rows.',
      hint: null,
      message: 'Requested range not satisfiable',
    });
  });
});

t.test('count modes', async (t) => {
  const s = await server(t, { 'db-max-rows': '3' });

  await t.test('exact: 206 with the total when the page is a part', async (t) => {
    const r = await s.request('/tasks?select=id&order=id&limit=2', { headers: { Prefer: 'count=exact' } });
    t.equal(r.status, 206);
    t.equal(r.headers['content-range'], '0-1/8');
    t.same(r.json(), [{ id: 1 }, { id: 2 }]);
    const all = await s.request('/clients?select=id&order=id', { headers: { Prefer: 'count=exact' } });
    t.equal(all.status, 200, 'the whole set in one page is 200');
    t.equal(all.headers['content-range'], '0-2/3');
  });

  await t.test('db-max-rows caps the page', async (t) => {
    const r = await s.request('/tasks?select=id&order=id');
    t.equal(r.status, 200);
    t.equal(r.headers['content-range'], '0-2/*');
    t.equal(r.json().length, 3);
  });

  await t.test('planned: the total comes from the planner statistics', async (t) => {
    await s.db.query('ANALYZE test.tasks');
    const r = await s.request('/tasks?select=id&order=id&limit=2', { headers: { Prefer: 'count=planned' } });
    t.equal(r.status, 206);
    t.match(r.headers['content-range'], /^0-1\/\d+$/);
    t.equal(Number(r.headers['content-range']!.split('/')[1]), 8, 'analyzed: the estimate is exact here');
  });

  await t.test('estimated: exact below db-max-rows', async (t) => {
    const r = await s.request('/clients?select=id&order=id&limit=2', { headers: { Prefer: 'count=estimated' } });
    t.equal(r.status, 206);
    t.equal(r.headers['content-range'], '0-1/3');
  });

  await t.test('estimated: planned above db-max-rows', async (t) => {
    await s.db.query('ANALYZE test.tasks');
    const r = await s.request('/tasks?select=id&order=id&limit=2', { headers: { Prefer: 'count=estimated' } });
    t.equal(r.status, 206);
    t.equal(r.headers['content-range'], '0-1/8');
  });
});

t.test('rows whose every selected column is NULL count in the page and in the total', async (t) => {
  const s = await server(t);
  // No limit: the total is the page's own count.
  const one = await s.request('/projects?select=client_id&client_id=is.null', { headers: { Prefer: 'count=exact' } });
  t.equal(one.status, 200);
  t.equal(one.headers['content-range'], '0-0/1');
  t.same(one.json(), [{ client_id: null }]);
  const page = await s.request('/projects?select=client_id&order=id.desc&limit=2', { headers: { Prefer: 'count=exact' } });
  t.equal(page.status, 206);
  t.equal(page.headers['content-range'], '0-1/5');
  t.same(page.json(), [{ client_id: null }, { client_id: 2 }]);
});

t.test('representations', async (t) => {
  const s = await server(t);

  await t.test('application/json with charset', async (t) => {
    const r = await s.request('/clients?id=eq.1');
    t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(r.text, '[{"id":1,"name":"Microsoft"}]');
  });

  await t.test('singular object: one row, else 406 DBRST116', async (t) => {
    const one = await s.request('/clients?id=eq.1', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    t.equal(one.status, 200);
    t.equal(one.headers['content-type'], 'application/vnd.pgrst.object+json; charset=utf-8');
    t.same(one.json(), { id: 1, name: 'Microsoft' });
    const many = await s.request('/clients', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    t.equal(many.status, 406);
    t.same(many.json(), { code: 'DBRST116', details: 'The result contains 3 rows', hint: null, message: 'Cannot coerce the result to a single JSON object' });
    const none = await s.request('/clients?id=eq.99', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    t.equal(none.status, 406);
    t.equal(none.json().details, 'The result contains 0 rows');
  });

  await t.test('text/csv', async (t) => {
    const r = await s.request('/items?select=id,name,tags&id=in.(1,5)&order=id', { headers: { Accept: 'text/csv' } });
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'text/csv; charset=utf-8');
    // PostgREST's CSV: each row's text output (an array as PostgreSQL prints it), record-quoted.
    t.equal(r.text, 'id,name,tags\n1,apple,"{fruit,red}"\n5,"Ápple ""quoted"", comma","{""with,comma"",""with \\\\""quote\\\\""""}"');
  });

  await t.test('nulls=stripped', async (t) => {
    const r = await s.request('/items?select=id,name,rating&id=eq.3', { headers: { Accept: 'application/vnd.pgrst.array+json;nulls=stripped' } });
    t.equal(r.status, 200);
    // PostgREST's exact string (MediaType.toMime; NullsStripSpec's matchCTArrayStrip).
    t.equal(r.headers['content-type'], 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8');
    t.same(r.json(), [{ id: 3, name: 'carrot' }]);
  });

  await t.test('unacceptable Accept: 406 DBRST107', async (t) => {
    const r = await s.request('/clients', { headers: { Accept: 'text/html' } });
    t.equal(r.status, 406);
    t.equal(r.json().code, 'DBRST107');
    t.equal(r.headers['proxy-status'], 'dbrest; error=DBRST107');
  });

  await t.test('HEAD: headers of GET, no body', async (t) => {
    const r = await s.request('/clients?select=id', { method: 'HEAD', headers: { Prefer: 'count=exact' } });
    t.equal(r.status, 200);
    t.equal(r.headers['content-range'], '0-2/3');
    t.equal(r.text, '');
    const bad = await s.request('/nope', { method: 'HEAD' });
    t.equal(bad.status, 404);
    t.equal(bad.headers['proxy-status'], 'dbrest; error=DBRST205');
    t.equal(bad.text, '');
  });
});

t.test('profiles', async (t) => {
  const s = await server(t);
  const own = await s.request('/notes', { headers: { 'Accept-Profile': 'public' } });
  t.equal(own.status, 200);
  t.equal(own.headers['content-profile'], 'public');
  t.same(own.json(), [{ id: 1, body: 'in public' }]);
  const dflt = await s.request('/notes');
  t.equal(dflt.status, 404, 'the first schema (test) is the default');
  const bad = await s.request('/notes', { headers: { 'Accept-Profile': 'secret' } });
  t.equal(bad.status, 406);
  t.same(bad.json(), { code: 'DBRST106', details: null, hint: 'Only the following schemas are exposed: test, public', message: 'Invalid schema: secret' });
});

t.test('errors for bad reads', async (t) => {
  const s = await server(t);
  const parse = await s.request('/clients?id=eqq.1');
  t.equal(parse.status, 400);
  t.equal(parse.json().code, 'DBRST100');
  t.match(parse.json().message, /failed to parse filter \(eqq\.1\)/);
  const col = await s.request('/clients?select=nope');
  t.equal(col.status, 400);
  t.equal(col.json().code, '42703');
  const ambiguous = await s.request('/messages?select=id,users(name)');
  t.equal(ambiguous.status, 300);
  const body = ambiguous.json();
  t.equal(body.code, 'DBRST201');
  t.ok(Array.isArray(body.details), 'details is a JSON array of candidates');
  t.equal(body.details.length, 2);
  const missing = await s.request('/clients?select=id,nothing(*)');
  t.equal(missing.status, 400);
  t.equal(missing.json().code, 'DBRST200');
  const deep = await s.request('/a/b/c');
  t.equal(deep.status, 404);
  t.equal(deep.json().code, 'DBRST125');
});

t.test('embedding over HTTP', async (t) => {
  const s = await server(t);
  const r = await s.request('/projects?select=name,clients(name),tasks(name,users(name))&id=eq.1&tasks.order=id');
  t.equal(r.status, 200);
  t.same(r.json(), [
    {
      name: 'Windows 7',
      clients: { name: 'Microsoft' },
      tasks: [
        { name: 'Design w7', users: [{ name: 'Angela Martin' }, { name: 'Dwight Schrute' }] },
        { name: 'Code w7', users: [{ name: 'Angela Martin' }] },
      ],
    },
  ]);
});

t.test('computed fields: functions over a row type select, filter and order like columns', async (t) => {
  const s = await server(t);
  const r = await s.request('/projects?select=name,task_count&task_count=gte.2&order=task_count.desc,id&limit=3');
  t.equal(r.status, 200);
  t.same(r.json(), [
    { name: 'Windows 7', task_count: 2 },
    { name: 'Windows 10', task_count: 2 },
    { name: 'IOS', task_count: 2 },
  ]);
  const star = await s.request('/projects?id=eq.5');
  t.same(star.json(), [{ id: 5, name: 'Orphan', client_id: null }], '* does not include computed fields');
  const embedded = await s.request('/clients?select=name,projects(name,task_count)&id=eq.2');
  t.same(embedded.json(), [{ name: 'Apple', projects: [{ name: 'IOS', task_count: 2 }, { name: 'OSX', task_count: 2 }] }]);
});

t.test('execution plans (db-plan-enabled)', async (t) => {
  const off = await server(t);
  const refused = await off.request('/clients?id=eq.1', { headers: { Accept: 'application/vnd.pgrst.plan+json' } });
  t.equal(refused.status, 406, 'not offered unless db-plan-enabled');
  t.equal(refused.json().code, 'DBRST107');

  const s = await server(t, { 'db-plan-enabled': 'true' });
  const json = await s.request('/clients?id=eq.1', { headers: { Accept: 'application/vnd.pgrst.plan+json' } });
  t.equal(json.status, 200);
  t.equal(json.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8', 'for= names the planned media, JSON by default (PostgREST PlanSpec)');
  const doc = json.json();
  t.ok(Array.isArray(doc) && typeof doc[0].Plan['Node Type'] === 'string', 'EXPLAIN (FORMAT JSON) output');
  t.notOk('Actual Rows' in doc[0].Plan, 'not analyzed unless asked');
  const analyzed = await s.request('/clients?id=eq.1', { headers: { Accept: 'application/vnd.pgrst.plan+json; options=analyze|buffers' } });
  t.ok('Actual Rows' in analyzed.json()[0].Plan, 'options=analyze runs the query');
  const text = await s.request('/clients?id=eq.1', { headers: { Accept: 'application/vnd.pgrst.plan' } });
  t.equal(text.status, 200);
  t.equal(text.headers['content-type'], 'application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8');
  t.match(text.text, /Scan/);
});

t.test('Prefer: timezone applies to timestamptz output; an unknown zone is 400 22023 whatever the handling (PostgREST v16)', async (t) => {
  const s = await server(t);
  await s.db.query(`CREATE TABLE public.events (id int PRIMARY KEY, at timestamptz); INSERT INTO public.events VALUES (1, '2026-01-01 12:00:00+00'); NOTIFY dbrest, 'reload schema'`);
  const ask = (prefer?: string) => s.request('/events?select=at', { headers: { 'Accept-Profile': 'public', ...(prefer ? { Prefer: prefer } : {}) } });
  let utc = await ask();
  for (let i = 0; i < 50 && utc.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
    utc = await ask();
  }
  t.equal(utc.status, 200);
  const tokyo = await ask('timezone=Asia/Tokyo');
  t.equal(tokyo.status, 200);
  t.same(tokyo.json(), [{ at: '2026-01-01T21:00:00+09:00' }]);
  t.equal(tokyo.headers['preference-applied'], 'timezone=Asia/Tokyo');
  const refused = { code: '22023', details: null, hint: null, message: 'invalid value for parameter "TimeZone": "Mars/Olympus"' };
  const bogus = await ask('timezone=Mars/Olympus');
  t.equal(bogus.status, 400);
  t.same(bogus.json(), refused);
  const strict = await ask('handling=strict, timezone=Mars/Olympus');
  t.equal(strict.status, 400);
  t.same(strict.json(), refused);
});

t.test('a long in.() list in the URL is served (URLs up to 64 KiB)', async (t) => {
  const s = await server(t);
  const ids = Array.from({ length: 5000 }, (_, i) => i + 1).join(',');
  const r = await s.request(`/clients?select=id&order=id&id=in.(${ids})`);
  t.equal(r.status, 200);
  t.same(r.json(), [{ id: 1 }, { id: 2 }, { id: 3 }]);
});
