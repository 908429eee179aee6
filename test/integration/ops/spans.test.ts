// OpenTelemetry spans (issue 29): with an SDK registered, each request ends as a server span with
// a child per stage, under the parent span its `traceparent` names.
import t from 'tap';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTestServer } from '../../helpers/server.js';
import { OPS_SQL } from './fixture.js';
import { tracingOn } from '../../../src/observe/spans.js';

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
  t.same(children.sort(), ['execute', 'parse', 'plan', 'respond'], "the stages issue 29 names (Server-Timing's jwt and parse are one parse span)");
  t.equal(root!.attributes['http.route'], '/items');
});

t.test('spans have their stages without server-timing-enabled, and no Server-Timing header is sent', async (t) => {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  t.teardown(() => trace.disable());
  const s = await startTestServer(t, { fixtures: [OPS_SQL], config: { 'db-anon-role': 'ops_anon' } });
  const res = await s.request('/rpc/add_them?a=1&b=2');
  t.equal(res.status, 200);
  t.equal(res.headers['server-timing'], undefined);
  const spans = exporter.getFinishedSpans();
  const root = spans.find((sp) => sp.name === 'GET /rpc/add_them');
  t.ok(root);
  const children = spans.filter((sp) => sp.parentSpanContext?.spanId === root!.spanContext().spanId);
  t.same(children.map((sp) => sp.name), ['parse', 'plan', 'execute', 'respond'], 'in order');
});

t.test('tracingOn tells whether an SDK is registered (the access event is skipped when nothing consumes it)', async (t) => {
  t.equal(tracingOn(), false, 'no SDK: the API is a no-op');
  trace.setGlobalTracerProvider(new BasicTracerProvider());
  t.equal(tracingOn(), true, 'an SDK registered');
  trace.disable();
  t.equal(tracingOn(), false, 'and off again once it is removed');
});
