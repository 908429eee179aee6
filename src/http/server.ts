// The Node http server: reads each request into an HttpInput, runs the recipe, writes the
// ResponseSpec, and logs one access line. Unexpected exceptions become a 500 in the error model
// (logged with the request id); nothing else of them reaches the client.
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import chalk from 'chalk';
import { errors } from '../errors/catalog.js';
import { ClientGone } from '../request/gone.js';
import type { HttpInput } from '../request/http-input.js';
import { memoByText } from '../memo.js';
import type { ResponseSpec } from '../response/types.js';
import type { AppState } from './app.js';
import { corsHeaders, corsPreflight, originAllowed, withoutCorsHeaders } from './cors.js';
import { onClientError } from './client-error.js';
import { errorResponse, handleRequest, type Handled } from './handle.js';
import { requestBodyLimit } from './mount.js';
import type { AccessEvent, RequestObserver } from '../observe/access.js';
import { isStructured } from '../observe/json-log.js';
import { UNMATCHED_ROUTE } from '../observe/metrics.js';
import { traceIdOf } from '../observe/trace.js';
import { emitSpans, tracingOn } from '../observe/spans.js';

const MAX_HEADER_BYTES = 64 * 1024;

export interface HttpServer {
  readonly server: http.Server;
  /** Requests being handled right now. */
  inFlight(): number;
}

/** A body over the limit is not kept: the request is answered 413 (DBRST604) and its connection closed. */
const TOO_LARGE = Symbol('too large');

/** No body announced (a plain GET): nothing to wait for, and no limit to look up. */
const noBody = (req: http.IncomingMessage) =>
  (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) || req.headers['content-length'] === '0';

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | null | typeof TOO_LARGE> {
  // Announced too large: refused before a byte is read.
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        // Chunked past the limit: stop reading; the connection is closed after the 413.
        req.off('data', onData);
        req.pause();
        chunks.length = 0;
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    // One chunk (a small body: all of it came with one read) is the body as it is, not a copy.
    req.on('end', () => resolve(size === 0 ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

/**
 * Header names are case-insensitive (RFC 9110 §5.1): of two spellings of one name, the later wins —
 * a `content-type` set by SQL through response.headers replaces dbrest's `Content-Type` instead of
 * being sent next to it.
 */
type HeaderValue = string | ReadonlyArray<string>;

/**
 * The response's headers as Node's writeHead takes them flat — name, value, name, value — which it
 * reads in order without the own-property checks of an object (and where a name `__proto__`, which
 * SQL may set, is a name like any other).
 */
type OutHeaders = Array<string | number | string[]>;

function mergeHeaders(sources: ReadonlyArray<Readonly<Record<string, HeaderValue>>>): { headers: OutHeaders; nonAscii: boolean } {
  // Built in place (this runs for every response): a later spelling removes the earlier one and
  // is added anew, so the order is that in which the winning values were set.
  const out: OutHeaders = [];
  // The lower-cased name of each pair in `out`, by the pair's index (a handful per response, so a
  // scan is cheaper than a Map).
  const lower: string[] = [];
  let nonAscii = false;
  let digitFirst = false;
  for (const source of sources) {
    for (const name in source) {
      const value = source[name]!;
      const key = lowerName(name);
      const i = lower.indexOf(key);
      if (i >= 0) {
        lower.splice(i, 1);
        out.splice(2 * i, 2);
      }
      lower.push(key);
      const c = name.charCodeAt(0);
      if (c >= 0x30 && c <= 0x39) digitFirst = true;
      // One push per element: V8 inlines push of one value, not of two.
      out.push(name);
      if (Array.isArray(value) ? value.some(hasNonAscii) : hasNonAscii(value as string)) {
        nonAscii = true;
        out.push(Array.isArray(value) ? value.map(utf8OnWire) : utf8OnWire(value as string));
      } else out.push(Array.isArray(value) ? [...value] : (value as string));
    }
  }
  return { headers: digitFirst ? integerNamesFirst(out) : out, nonAscii };
}

/**
 * The order the headers had when they were kept in an object (as they were before): names that
 * are array indices (`0`, `42`; SQL may set any name) first, in ascending order, then the others
 * as set.
 */
function integerNamesFirst(out: OutHeaders): OutHeaders {
  const pairs: Array<[string, string | number | string[]]> = [];
  for (let i = 0; i < out.length; i += 2) pairs.push([out[i] as string, out[i + 1]!]);
  const index = (name: string) => (/^(?:0|[1-9]\d*)$/.test(name) && Number(name) < 2 ** 32 - 1 ? Number(name) : -1);
  const integers = pairs.filter(([n]) => index(n) >= 0).sort((a, b) => index(a[0]) - index(b[0]));
  return [...integers, ...pairs.filter(([n]) => index(n) < 0)].flat(1);
}

/** The index in `headers` of the value of `name` (lower-case), or -1. */
function headerAt(headers: OutHeaders, name: string): number {
  for (let i = 0; i < headers.length; i += 2) if (lowerName(headers[i] as string) === name) return i + 1;
  return -1;
}

/** `name` removed from `headers` (lower-case; at most once: mergeHeaders keeps one spelling). */
function removeHeader(headers: OutHeaders, name: string): void {
  const i = headerAt(headers, name);
  if (i >= 0) headers.splice(i - 1, 2);
}

/** A character past ASCII in `v` (a loop: a RegExp test costs more on the few short values of a response). */
function hasNonAscii(v: string): boolean {
  for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) > 0x7f) return true;
  return false;
}

/**
 * A header value with characters past ASCII (a relation named `موارد` in Content-Location, a
 * schema in Content-Profile, a value SQL set) goes out as its UTF-8 bytes, as PostgREST sends it:
 * Node writes header strings as Latin-1 and refuses characters past U+00FF. (Node sends the head
 * and a string body as one UTF-8 string, so such a body is then handed over as bytes.)
 */
const utf8OnWire = (v: string): string => (hasNonAscii(v) ? Buffer.from(v, 'utf8').toString('latin1') : v);

/**
 * A header name lower-cased, kept by spelling: responses set the same few names (`Content-Range`,
 * `Vary`, …), and a lookup of a literal costs less than lower-casing it again. Bounded, since SQL
 * may set any name.
 */
const lowerName = memoByText((name) => name.toLowerCase());

/**
 * PostgREST's default `Vary` on answers: the representation depends on these request headers. A
 * `Vary` the request's SQL sets (response.headers) replaces it (HttpHeaderSpec.hs).
 */
const DEFAULT_VARY = { Vary: 'Accept, Prefer, Range' } as const;

// The UTF-8 length of the body answered last: its Content-Length and its access event's `bytes`
// both need it, and measuring a string scans all of it (about 2,500 instructions for W2's page of
// 50 rows, by callgrind). Equal strings have equal lengths, whichever request asks. A large body is
// not kept (an idle server would hold it), nor does its second scan weigh much beside its writing.
const KEPT_BODY_LENGTH = 64 * 1024;
let lastBody = '';
let lastBodyBytes = 0;
function bodyBytes(body: string | Buffer): number {
  // A Buffer (a read's body as PostgreSQL sent it: http/read-prep.ts) knows its length.
  if (typeof body !== 'string') return body.length;
  if (body === lastBody) return lastBodyBytes;
  const bytes = Buffer.byteLength(body);
  if (body.length <= KEPT_BODY_LENGTH) {
    lastBody = body;
    lastBodyBytes = bytes;
  }
  return bytes;
}

function writeResponse(res: http.ServerResponse, spec: ResponseSpec, method: string, extra: Record<string, string>): Promise<void> | void {
  const vary = spec.status < 400 && method !== 'OPTIONS' ? DEFAULT_VARY : {};
  const { headers, nonAscii } = mergeHeaders([vary, spec.headers, extra]);
  if (spec.stream) {
    // Streamed (http/stream.ts): chunked, whatever length SQL may have claimed.
    removeHeader(headers, 'content-length');
    if (spec.statusText) res.statusMessage = spec.statusText;
    res.writeHead(spec.status, headers);
    return spec.stream.pipe(res);
  }
  if (spec.status === 204) {
    // RFC 9110 §8.6: a 204 carries no Content-Length (PostgREST sends none).
    removeHeader(headers, 'content-length');
  } else if (spec.body !== null) {
    // The body's real length, whatever SQL may have claimed.
    removeHeader(headers, 'content-length');
    headers.push('Content-Length');
    headers.push(bodyBytes(spec.body));
  } else if (method !== 'HEAD' && headerAt(headers, 'content-length') === -1) {
    headers.push('Content-Length');
    headers.push(0);
  }
  // HEAD: no body and no made-up `Content-Length: 0` (PostgREST sends none).
  if (spec.statusText) res.statusMessage = spec.statusText;
  res.writeHead(spec.status, headers);
  res.end(nonAscii && typeof spec.body === 'string' ? Buffer.from(spec.body) : spec.body ?? undefined);
}

function accessEvent(id: string, method: string, handled: Handled, status: number, durationMs: number, req: http.IncomingMessage, countBytes: boolean): AccessEvent {
  const r = handled.response;
  const db = r.timings?.transaction;
  return {
    id,
    method,
    route: handled.route ?? UNMATCHED_ROUTE,
    status,
    code: handled.errorCode,
    role: handled.role ?? null,
    durationMs,
    dbMs: db === undefined ? null : db,
    bytes: !countBytes || r.stream ? null : r.body === null || method === 'HEAD' ? 0 : bodyBytes(r.body),
    traceId: traceIdOf(req.headers.traceparent),
  };
}

/** `Server-Timing: jwt;dur=0.1, parse;dur=0.2, …` (PostgREST's stage names). */
function serverTiming(timings: Readonly<Record<string, number>>): string {
  return Object.entries(timings).map(([k, v]) => `${k};dur=${v.toFixed(1)}`).join(', ');
}

const statusColor = (s: number) => (s >= 500 ? chalk.red(String(s)) : s >= 400 ? chalk.yellow(String(s)) : chalk.green(String(s)));

export function createHttpServer(app: AppState, observe: RequestObserver | null = null): HttpServer {
  let inFlight = 0;
  let seq = 0;
  const prefix = randomBytes(3).toString('hex');
  // PostgREST clients put long `in.(…)` lists in the URL; Node's 16 KiB header limit would answer
  // them 431. 64 KiB keeps a bound on memory per connection.
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, async (req, res) => {
    inFlight++;
    const started = performance.now();
    const requestId = `${prefix}-${(++seq).toString(36)}`;
    let handled: Handled;
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS'
      ? corsPreflight(
          {
            method: req.method,
            origin,
            requestMethod: req.headers['access-control-request-method'] as string | undefined,
            requestHeaders: req.headers['access-control-request-headers'] as string | undefined,
          },
          app.config.serverCorsAllowedOrigins,
        )
      : null;
    // Aborted when the client goes away before the answer is sent: its query is cancelled
    // (db/cancel-watch.ts, http/stream.ts).
    const gone = new ClientGone();
    const onClose = () => {
      if (!res.writableFinished) gone.abort();
    };
    // `on`, not `once`: a response closes once, and `off` below finds the listener itself (once wraps it).
    res.on('close', onClose);
    try {
      // The limit is the mount's when one claims the path (its group's, by media type), decided
      // from the head: a body is never read past it.
      const limit = noBody(req) ? null : requestBodyLimit(app, req.method ?? 'GET', req.url ?? '/', req.headers['content-type']);
      const body = limit === null ? null : await readBody(req, limit.bytes);
      if (body === TOO_LARGE) {
        // The rest of the body is never read: the connection cannot carry another request.
        res.shouldKeepAlive = false;
        res.on('finish', () => req.socket.destroySoon());
      }
      if (preflight) handled = { response: preflight, errorCode: null };
      else {
        const input: HttpInput = body === TOO_LARGE
          ? { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: null, bodyTooLarge: limit!, signal: gone }
          : { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, signal: gone };
        handled = await handleRequest(input, app);
      }
    } catch (e) {
      app.log.error(`${requestId} ${req.method} ${req.url}: unexpected ${(e as Error).stack ?? e}`);
      handled = errorResponse(errors.DBRSTX00('Internal server error', { hint: `request id ${requestId}` }), app, req.method ?? 'GET');
    } finally {
      inFlight--;
    }
    const method = req.method ?? 'GET';
    if (origin && !originAllowed(origin, app.config.serverCorsAllowedOrigins)) {
      // server-cors-allowed-origins restricts for real: the `Access-Control-Allow-Origin: *` an
      // OPTIONS answer carries (PostgREST's) must not let a refused origin through.
      handled = { ...handled, response: { ...handled.response, headers: withoutCorsHeaders(handled.response.headers) } };
    }
    // server-trace-header (PostgREST): the client's value of that header is echoed back under the
    // same name. Without it, dbrest sends its own X-Request-Id (the id its log lines carry).
    const traceHeader = app.config.serverTraceHeader;
    const traceValue = traceHeader === null ? undefined : req.headers[traceHeader.toLowerCase()];
    const traced: Record<string, string> =
      traceHeader === null ? { 'X-Request-Id': requestId }
      : traceValue === undefined ? {}
      : { [traceHeader]: Array.isArray(traceValue) ? traceValue.join(', ') : traceValue };
    // Most requests carry no Origin: then the trace header alone, without copies.
    let extra = preflight || !origin ? traced : { ...corsHeaders(origin, app.config.serverCorsAllowedOrigins), ...traced };
    // A copy, so the fallback answer below (which gets `traced`) carries no Server-Timing.
    if (app.config.serverTimingEnabled && handled.response.timings) extra = { ...extra, 'Server-Timing': serverTiming(handled.response.timings) };
    if (res.destroyed) handled.response.stream?.abort();
    else {
      try {
        await writeResponse(res, handled.response, method, extra);
      } catch (e) {
        // Last resort: never leave the request hanging nor the rejection unhandled.
        app.log.error(`${requestId} ${method} ${req.url}: could not write the response: ${(e as Error).stack ?? e}`);
        if (!res.headersSent) {
          const fallback = errorResponse(errors.DBRSTX00('Internal server error', { hint: `request id ${requestId}` }), app, method);
          writeResponse(res, fallback.response, method, traced);
        } else {
          res.destroy();
        }
      }
    }
    res.off('close', onClose);
    const status = handled.response.status;
    // A client that went away before its answer got nothing, and the failure its going caused (its
    // statement cancelled: 57014, a 500) is not the server's: it goes to the access log only, as
    // nginx's 499 "client closed request". Other server-side failures are logged at error level
    // (with the code and the request id) even when the access log is off; everything else only in
    // the access log (log-level info).
    const clientClosed = gone.aborted && !res.headersSent;
    const serverFailure = status >= 500 && !clientClosed;
    const logged = serverFailure || app.log.enabled('info');
    const structured = isStructured(app.log);
    const jsonLine = structured && logged;
    const spans = tracingOn();
    // The event is built only for someone: metrics (an admin server), a JSON access line, spans.
    if (observe !== null || jsonLine || spans) {
      // The body's length is counted for the log only: metrics do not need it.
      const event = accessEvent(requestId, method, handled, clientClosed ? 499 : status, performance.now() - started, req, jsonLine);
      observe?.(event);
      if (jsonLine) app.log.access(event);
      if (spans) emitSpans(event, performance.timeOrigin + started, req.headers.traceparent, handled.response.timings, handled.acquireMs);
    }
    if (!structured && logged) {
      const ms = performance.now() - started;
      const code = handled.errorCode ? ' ' + chalk.dim(handled.errorCode) : '';
      const shown = clientClosed ? `${chalk.yellow('499')} client closed the request (answer ${status} not sent)` : statusColor(status);
      const line = `${req.method} ${req.url} ${shown} ${ms.toFixed(1)}ms${code} ${chalk.dim(requestId)}`;
      if (serverFailure) app.log.error(line);
      else app.log.info(line);
    }
  });
  // A head over MAX_HEADER_BYTES or a malformed request: 414/431/400 in the error model.
  server.on('clientError', onClientError(() => app.config.clientErrorVerbosity, MAX_HEADER_BYTES, (m) => app.log.info(m)));
  server.keepAliveTimeout = 5000;
  return { server, inFlight: () => inFlight };
}
