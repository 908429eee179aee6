// OpenTelemetry spans (issue 29): with an SDK registered, each request ends as a server span with
// a child per stage, under the parent span its `traceparent` names.
import t from 'tap';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTestServer } from '../../helpers/server.js';
import { OPS_SQL } from './fixture.js';

t.test('spans arrive in the in-memory exporter with the traceparent as parent', async (t) => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  t.teardown(() => trace.disable());
  const s = await startTestServer(t, { fixtures: [OPS_SQL], config: { 'db-anon-role': 'ops_anon', 'server-timing-enabled': 'true' } });
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const parentId = 'b7ad6b7169203331';
  t.equal((await s.request('/items?id=eq.1', { headers: { traceparent: `00-${traceId}-${parentId}-01` } })).status, 200);
  const spans = exporter.getFinishedSpans();
  const root = spans.find((sp) => sp.name === 'GET /items');
  t.ok(root, 'a server span named after the route template');
  t.equal(root!.spanContext().traceId, traceId, 'in the client\'s trace');
  t.equal(root!.parentSpanContext?.spanId, parentId, 'under the client\'s span');
  const children = spans.filter((sp) => sp.parentSpanContext?.spanId === root!.spanContext().spanId).map((sp) => sp.name);
  t.same(children.sort(), ['jwt', 'parse', 'plan', 'response', 'transaction']);
  t.equal(root!.attributes['http.route'], '/items');
});
