// Issue 28, item 7: plan responses as PostgREST's PlanSpec has them. The Content-Type always names
// the planned media (`for="application/json"` by default; object, CSV and a function's XML by their
// names) with the options in PostgREST's order, and the plan is of the statement that media runs.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('plans name their media and explain its statement', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity5.sql')],
    config: { 'db-schemas': 'parity5', 'db-anon-role': 'postgres', 'db-plan-enabled': 'true' },
  });
  const plan = (path: string, accept: string, init: { method?: string; headers?: Record<string, string>; body?: object } = {}) =>
    s.request(path, { ...init, headers: { ...init.headers, Accept: accept } });

  const read = await plan('/projects?id=in.(1,2,3)', 'application/vnd.pgrst.plan+json');
  t.equal(read.status, 200);
  t.equal(read.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8', 'read');
  t.ok(read.json()[0].Plan['Total Cost'] > 0);

  const text = await plan('/projects?id=in.(1,2,3)', 'application/vnd.pgrst.plan');
  t.equal(text.headers['content-type'], 'application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8', 'text by default');

  const insert = await plan('/projects', 'application/vnd.pgrst.plan+json', { method: 'POST', body: { id: 9, name: 'Nine' } });
  t.equal(insert.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8', 'insert');
  const call = await plan('/rpc/get_tiobe_pls', 'application/vnd.pgrst.plan+json');
  t.equal(call.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8', 'call');

  const ordered = await plan('/projects', 'application/vnd.pgrst.plan+json; options=wal|analyze');
  t.equal(ordered.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; options=analyze|wal; charset=utf-8', 'options in PostgREST\'s order');

  const object = await plan('/projects?id=eq.1', 'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object"; options=verbose',
    { method: 'DELETE', headers: { Prefer: 'return=representation' } });
  t.equal(object.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; options=verbose; charset=utf-8');
  t.match(JSON.stringify(object.json()[0].Plan.Output), /<> 1/, 'the singular statement: its one-row check is planned');
  t.same((await s.request('/projects?id=eq.1')).json(), [{ id: 1, name: 'Windows 7' }], 'without analyze the delete did not run');

  const csv = await plan('/tiobe_pls', 'application/vnd.pgrst.plan+json; for="text/csv"; options=verbose');
  t.equal(csv.headers['content-type'], 'application/vnd.pgrst.plan+json; for="text/csv"; options=verbose; charset=utf-8');
  const csvOutput = JSON.stringify(csv.json()[0].Plan.Output);
  t.match(csvOutput, /string_agg/, 'the CSV statement is planned');
  t.notMatch(csvOutput, /json_agg/, 'not the JSON one');

  const xml = await plan('/rpc/return_scalar_xml', 'application/vnd.pgrst.plan+json; for="text/xml"; options=verbose');
  t.equal(xml.headers['content-type'], 'application/vnd.pgrst.plan+json; for="text/xml"; options=verbose; charset=utf-8');
  t.match(JSON.stringify(xml.json()[0].Plan.Output), /xmlagg/, 'the raw XML output of the scalar function is planned');

  const stripped = await plan('/projects', 'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.array+json"');
  t.equal(stripped.headers['content-type'], 'application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8', 'array+json is JSON');

  // count=exact without a limit counts in the one aggregate of the read (PlanSpec "count preference plan costs").
  const counted = await plan('/tiobe_pls', 'application/vnd.pgrst.plan+text; for="application/json"; options=analyze;', { headers: { Prefer: 'count=exact' } });
  t.equal(counted.headers['content-type'], 'application/vnd.pgrst.plan+text; for="application/json"; options=analyze; charset=utf-8');
  t.equal(counted.text.split('Aggregate').length - 1, 1, 'one Aggregate');
});
