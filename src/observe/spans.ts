// OpenTelemetry spans of a request through @opentelemetry/api: nothing at all unless the process
// registers an SDK (tracingOn). Spans are made when the request ends, from its stage timings, as
// children of the client's `traceparent` span when it sent a valid one: `parse` (authentication and
// the URL grammar), `plan`, `acquire` (waiting for a pooled connection or a batch slot on a shared
// one), `execute` (the transaction from there) and `respond` (the body built), the names issue 29
// gives; Server-Timing keeps PostgREST's (its `transaction` is acquire and execute).
import { ProxyTracerProvider, ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import type { AccessEvent } from './access.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

// What the API's global provider hands out while no SDK is registered (a singleton).
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** Whether spans would be recorded: an SDK's provider is registered. Two property reads. */
export function tracingOn(): boolean {
  const p = trace.getTracerProvider();
  return !(p instanceof ProxyTracerProvider && p.getDelegate() === NOOP_PROVIDER);
}

// The acquire wait of a request's transaction (http/tx.ts, only while tracing), by its ApiRequest.
const acquired = new WeakMap<object, number>();
export function noteAcquire(req: object, ms: number): void {
  acquired.set(req, ms);
}
export const acquiredMs = (req: object): number | undefined => acquired.get(req);

/** Server-Timing's stage names → the spans' (jwt and parse make one `parse`). */
const SPAN_OF: Readonly<Record<string, string>> = { jwt: 'parse', parse: 'parse', plan: 'plan', transaction: 'execute', response: 'respond' };

export function emitSpans(e: AccessEvent, startedEpochMs: number, traceparent: string | string[] | undefined, timings: Readonly<Record<string, number>> | undefined, acquireMs?: number): void {
  let parent = ROOT_CONTEXT;
  if (e.traceId !== null && typeof traceparent === 'string') {
    const m = TRACEPARENT.exec(traceparent.trim());
    if (m !== null) {
      parent = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: m[1]!, spanId: m[2]!, isRemote: true,
        traceFlags: parseInt(m[3]!, 16) & TraceFlags.SAMPLED,
      });
    }
  }
  const tracer = trace.getTracer('dbrest');
  const root = tracer.startSpan(`${e.method} ${e.route}`, {
    kind: SpanKind.SERVER,
    startTime: startedEpochMs,
    attributes: { 'http.request.method': e.method, 'http.route': e.route, 'http.response.status_code': e.status, 'dbrest.request_id': e.id, ...(e.code ? { 'error.type': e.code } : {}) },
  }, parent);
  if (!root.isRecording()) return;
  if (timings) {
    // Merged in order: consecutive stages with one span name are one span.
    const stages: Array<[string, number]> = [];
    for (const name in timings) {
      const span = SPAN_OF[name] ?? name;
      const last = stages[stages.length - 1];
      if (last !== undefined && last[0] === span) last[1] += timings[name]!;
      else stages.push([span, timings[name]!]);
    }
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    let at = startedEpochMs;
    for (const [name, ms] of stages) {
      if (name === 'execute' && acquireMs !== undefined) {
        // The wait is part of Server-Timing's `transaction`: it comes first, execute is the rest.
        const wait = Math.max(0, Math.min(acquireMs, ms));
        tracer.startSpan('acquire', { startTime: at }, ctx).end(at + wait);
        tracer.startSpan(name, { startTime: at + wait }, ctx).end(at + ms);
      } else tracer.startSpan(name, { startTime: at }, ctx).end(at + ms);
      at += ms;
    }
  }
  root.end(startedEpochMs + e.durationMs);
}
