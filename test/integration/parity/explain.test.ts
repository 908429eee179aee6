// Issue 12, item 9 (explain): plans as PostgREST v16 sends them (test/spec/Feature/Query/PlanSpec.hs):
// the Content-Type names `for` (normalised; JSON when not given) and `options` only when given, options reach EXPLAIN,
// VERBOSE shows the query identifier, and an empty `options=;` (postgrest-js) is accepted.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('plan media types, options and the query identifier', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity_reads.sql')],
    config: { 'db-schemas': 'parity_reads', 'db-anon-role': 'postgres', 'db-plan-enabled': 'true' },
  });
  const get = (accept: string, path = '/projects?id=in.(1,2,3)') => s.request(path, { headers: { Accept: accept } });

  const plain = await get('application/vnd.pgrst.plan+json');
  t.equal(plain.status, 200);
  t.equal(plain.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8');
  t.equal(plain.json()[0].Plan['Node Type'], 'Aggregate');

  const text = await get('application/vnd.pgrst.plan');
  t.equal(text.headers['content-type'], 'application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8');
  t.equal(text.text.slice(0, 9), 'Aggregate');

  const buffers = await get('application/vnd.pgrst.plan+json; options=buffers');
  t.equal(buffers.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; options=buffers; charset=utf-8');
  t.same(Object.keys(buffers.json()[0].Planning).slice(0, 2), ['Shared Hit Blocks', 'Shared Read Blocks']);

  const settings = await get('application/vnd.pgrst.plan+json; options=settings');
  t.equal(settings.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; options=settings; charset=utf-8');
  t.same(settings.json()[0].Settings, { search_path: '"parity_reads", "public"' }, 'db-extra-search-path is public by default');

  const wal = await get('application/vnd.pgrst.plan+json; options=analyze|wal');
  t.equal(wal.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; options=analyze|wal; charset=utf-8');
  // The wal option adds the WAL counters; a read usually writes none, but pruning a page it
  // visits can write a record, so only their presence is stable.
  t.type(wal.json()[0].Plan['WAL Records'], 'number', 'the wal option adds the WAL counters');
  t.type(wal.json()[0]['Execution Time'], 'number');

  const verbose = await get('application/vnd.pgrst.plan+json; options=verbose', '/projects');
  t.equal(verbose.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; options=verbose; charset=utf-8');
  t.same(verbose.json()[0].Plan.Plans[0].Output, ['projects.id', 'projects.name', 'projects.client_id']);
  t.type(verbose.json()[0]['Query Identifier'], 'number');

  const forObject = await get('application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object"; options=verbose', '/projects?id=eq.1');
  t.equal(forObject.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; options=verbose; charset=utf-8');
  t.match(forObject.json()[0].Plan.Output[2], /json_agg/);

  // postgrest-js's explain() without options sends an empty `options=` and a trailing `;`.
  const client = await get('application/vnd.pgrst.plan+text; for="application/json"; options=;');
  t.equal(client.status, 200);
  t.equal(client.headers['content-type'], 'application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8');
  const textVerbose = await get('application/vnd.pgrst.plan+text; for="application/json"; options=verbose;');
  t.match(textVerbose.text, /Query Identifier: -?\d+/);

  const write = await s.request('/projects', { method: 'POST', headers: { Accept: 'application/vnd.pgrst.plan+json' }, body: { id: 100, name: 'Project 100' } });
  t.equal(write.status, 200);
  t.equal(write.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8');
  const after = await s.request('/projects?id=eq.100');
  t.same(after.json(), [], 'without analyze the write does not run');
});
