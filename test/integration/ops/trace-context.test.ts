// W3C trace context (issue 29): the trace id of a valid `traceparent` reaches SQL as the GUC
// request.trace_id, set with the other request settings; an invalid or absent one sets nothing.
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { OPS_SQL } from './fixture.js';

t.test('request.trace_id carries the traceparent trace id', async (t) => {
  const s = await startTestServer(t, { fixtures: [OPS_SQL], config: { 'db-anon-role': 'ops_anon' } });
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const seen = async (headers: Record<string, string>) => (await s.request('/trace_seen', { headers })).json()[0].trace_id;
  t.equal(await seen({ traceparent: `00-${traceId}-b7ad6b7169203331-01`, tracestate: 'congo=t61rcWkgMzE' }), traceId);
  // Unset: null, or '' on a pooled connection where an earlier transaction set it locally.
  const unset = (v: unknown) => v === null || v === '';
  t.ok(unset(await seen({})), 'no traceparent: not set');
  t.ok(unset(await seen({ traceparent: `00-${'0'.repeat(32)}-b7ad6b7169203331-01` })), 'an all-zero trace id is invalid');
  t.ok(unset(await seen({ traceparent: "00-x'; DROP TABLE items; --" })), 'a malformed one sets nothing');
  t.equal((await s.request('/items')).status, 200);
});
