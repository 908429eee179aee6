// OpenTelemetry spans of a request through @opentelemetry/api: a no-op (one non-recording span, no
// children) unless the process registers an SDK. Spans are made when the request ends, from the
// stage timings Server-Timing reports (jwt, parse, plan, transaction, response), as children of
// the client's `traceparent` span when it sent a valid one.
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import type { AccessEvent } from './access.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function emitSpans(e: AccessEvent, startedEpochMs: number, traceparent: string | string[] | undefined, timings: Readonly<Record<string, number>> | undefined): void {
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
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    let at = startedEpochMs;
    for (const name in timings) {
      const ms = timings[name]!;
      tracer.startSpan(name, { startTime: at }, ctx).end(at + ms);
      at += ms;
    }
  }
  root.end(startedEpochMs + e.durationMs);
}
