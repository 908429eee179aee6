// The Node http server: reads each request into an HttpInput, runs the recipe, writes the
// ResponseSpec, and logs one access line. Unexpected exceptions become a 500 in the error model
// (logged with the request id); nothing else of them reaches the client.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import chalk from 'chalk';
import { errors } from '../errors/catalog.js';
import type { HttpInput } from '../request/http-input.js';
import type { ResponseSpec } from '../response/types.js';
import type { AppState } from './app.js';
import { corsHeaders, corsPreflight } from './cors.js';
import { errorResponse, handleRequest, type Handled } from './handle.js';

/** Largest request body we accept (PostgREST leaves this to the proxy; we refuse before buffering more). */
const MAX_BODY_BYTES = 256 * 1024 * 1024;

export interface HttpServer {
  readonly server: http.Server;
  /** Requests being handled right now. */
  inFlight(): number;
}

function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(size === 0 ? null : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

function writeResponse(res: http.ServerResponse, spec: ResponseSpec, requestId: string, extra: Record<string, string>): void {
  const headers: Record<string, string | number> = { ...spec.headers, ...extra };
  if (spec.body !== null) headers['Content-Length'] = Buffer.byteLength(spec.body);
  else if (!('Content-Length' in headers)) headers['Content-Length'] = 0;
  headers['X-Request-Id'] = requestId;
  if (spec.statusText) res.statusMessage = spec.statusText;
  res.writeHead(spec.status, headers);
  res.end(spec.body ?? undefined);
}

/** `Server-Timing: jwt;dur=0.1, parse;dur=0.2, …` (PostgREST's stage names). */
function serverTiming(timings: Readonly<Record<string, number>>): string {
  return Object.entries(timings).map(([k, v]) => `${k};dur=${v.toFixed(1)}`).join(', ');
}

const statusColor = (s: number) => (s >= 500 ? chalk.red(String(s)) : s >= 400 ? chalk.yellow(String(s)) : chalk.green(String(s)));

export function createHttpServer(app: AppState): HttpServer {
  let inFlight = 0;
  let seq = 0;
  const prefix = randomBytes(3).toString('hex');
  const server = http.createServer(async (req, res) => {
    inFlight++;
    const started = process.hrtime.bigint();
    const requestId = `${prefix}-${(++seq).toString(36)}`;
    let handled: Handled;
    const origin = req.headers.origin;
    const cors = {
      method: req.method ?? 'GET',
      origin,
      requestMethod: req.headers['access-control-request-method'] as string | undefined,
      requestHeaders: req.headers['access-control-request-headers'] as string | undefined,
    };
    const preflight = corsPreflight(cors, app.config.serverCorsAllowedOrigins);
    try {
      const body = await readBody(req);
      if (preflight) handled = { response: preflight, errorCode: null };
      else {
        const input: HttpInput = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
        handled = await handleRequest(input, app);
      }
    } catch (e) {
      app.log.error(`${requestId} ${req.method} ${req.url}: unexpected ${(e as Error).stack ?? e}`);
      handled = errorResponse(errors.DBRSTX00('Internal server error', { hint: `request id ${requestId}` }), app, req.method ?? 'GET');
    } finally {
      inFlight--;
    }
    const extra = preflight ? {} : corsHeaders(origin, app.config.serverCorsAllowedOrigins);
    if (app.config.serverTimingEnabled && handled.response.timings) extra['Server-Timing'] = serverTiming(handled.response.timings);
    if (!res.destroyed) writeResponse(res, handled.response, requestId, extra);
    if (app.log.enabled('info')) {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const code = handled.errorCode ? ' ' + chalk.dim(handled.errorCode) : '';
      app.log.info(`${req.method} ${req.url} ${statusColor(handled.response.status)} ${ms.toFixed(1)}ms${code} ${chalk.dim(requestId)}`);
    }
  });
  server.keepAliveTimeout = 5000;
  return { server, inFlight: () => inFlight };
}
