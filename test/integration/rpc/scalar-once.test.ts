// A scalar function is called once per request. The call statement's scalar subquery used to be
// pulled up by the planner, which copied the call into each aggregate over it (page count, body):
// a STABLE function ran twice per request (the content API's listings paid every query twice).
// The function here counts its calls in a transaction-local setting and returns the count.
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { nologinRolesSql } from '../../helpers/db.js';

const SQL = `
${nologinRolesSql('once_anon')}
CREATE SCHEMA once;
CREATE FUNCTION once.counted(x integer DEFAULT 0) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN set_config('once.calls', (coalesce(nullif(current_setting('once.calls', true), ''), '0')::integer + 1)::text, true)::integer;
END $$;
CREATE FUNCTION once.counted_json(x integer DEFAULT 0) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN json_build_object('calls', once.counted(x));
END $$;
GRANT USAGE ON SCHEMA once TO once_anon;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA once TO once_anon;
`;

t.test('a STABLE scalar function runs once per request', async (t) => {
  const s = await startTestServer(t, { fixtures: [SQL], config: { 'db-schemas': 'once', 'db-anon-role': 'once_anon' } });
  const cases: Array<[string, Parameters<typeof s.request>[1], string]> = [
    ['/rpc/counted', {}, '1'],
    ['/rpc/counted?x=5', {}, '1'],
    ['/rpc/counted', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x": 1}' }, '1'],
    ['/rpc/counted', { headers: { prefer: 'count=exact' } }, '1'],
    ['/rpc/counted_json', {}, '{"calls" : 1}'],
    ['/rpc/counted_json', { headers: { accept: 'application/vnd.pgrst.object+json' } }, '{"calls" : 1}'],
  ];
  for (const [p, opts, body] of cases) {
    const res = await s.request(p, opts);
    t.equal(res.status, 200, `${p} ${JSON.stringify(opts)}: status`);
    t.equal(res.text, body, `${p} ${JSON.stringify(opts)}: one call`);
  }
});
