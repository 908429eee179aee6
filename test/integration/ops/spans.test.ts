// OpenTelemetry spans (issue 29): with an SDK registered, each request ends as a server span with
// a child per stage, under the parent span its `traceparent` names.
import t from 'tap';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTestServer } from '../../helpers/server.js';
import { OPS_SQL } from './fixture.js';
import { tracingOn } from '../../../src/observe/spans.js';
import { leases } from '../../../src/db/leases.js';

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
  t.same(children.sort(), ['acquire', 'execute', 'parse', 'plan', 'respond'], "the stages issue 29 names (Server-Timing's jwt and parse are one parse span)");
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
  t.same(children.map((sp) => sp.name), ['parse', 'plan', 'acquire', 'execute', 'respond'], 'in order');
});

t.test('the acquire span is the wait for a pooled connection, and execute starts where it ends', async (t) => {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  t.teardown(() => trace.disable());
  const s = await startTestServer(t, { fixtures: [OPS_SQL], config: { 'db-anon-role': 'ops_anon', 'db-pool': '1' } });
  const pool = s.server.app.pool;
  // The test holds the pool's only connection, so the request must wait for it.
  const held = await leases(pool).acquireExclusive();
  const answer = s.request('/items?id=eq.1');
  let waiting = false;
  for (let i = 0; i < 500 && !waiting; i++) {
    waiting = pool.waitingCount > 0;
    if (!waiting) await new Promise((r) => setTimeout(r, 10));
  }
  t.ok(waiting, 'the request waits in the pool');
  const seenWaiting = performance.now();
  await new Promise((r) => setTimeout(r, 300));
  const releasing = performance.now();
  held.release();
  t.equal((await answer).status, 200);
  const spans = exporter.getFinishedSpans();
  const root = spans.find((sp) => sp.name === 'GET /items')!;
  const children = spans.filter((sp) => sp.parentSpanContext?.spanId === root.spanContext().spanId);
  t.same(children.map((sp) => sp.name), ['parse', 'plan', 'acquire', 'execute', 'respond']);
  const acquire = children.find((sp) => sp.name === 'acquire')!;
  const execute = children.find((sp) => sp.name === 'execute')!;
  const ms = (hr: [number, number]) => hr[0] * 1000 + hr[1] / 1e6;
  // It could not have had the connection before the test gave it back.
  t.ok(ms(acquire.duration) >= releasing - seenWaiting, `acquire lasts at least the time the connection was held after the request waited (${ms(acquire.duration).toFixed(1)} >= ${(releasing - seenWaiting).toFixed(1)} ms)`);
  t.equal(ms(execute.startTime), ms(acquire.endTime), 'execute begins when acquire ends');

  // Free again: a connection at once, so the wait is a small part of the transaction.
  exporter.reset();
  t.equal((await s.request('/items?id=eq.1')).status, 200);
  const again = exporter.getFinishedSpans().find((sp) => sp.name === 'acquire')!;
  t.ok(ms(again.duration) < releasing - seenWaiting, 'a free connection is not waited for');
});

t.test('tracingOn tells whether an SDK is registered (the access event is skipped when nothing consumes it)', async (t) => {
  t.equal(tracingOn(), false, 'no SDK: the API is a no-op');
  trace.setGlobalTracerProvider(new BasicTracerProvider());
  t.equal(tracingOn(), true, 'an SDK registered');
  trace.disable();
  t.equal(tracingOn(), false, 'and off again once it is removed');
});
