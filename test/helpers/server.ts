// Starts a real dbrest server (in this process) on a free port against a fresh test database, and
// gives tests an HTTP client (undici). Everything is torn down when the test ends.
import { request as undiciRequest } from 'undici';
import { loadConfig } from '../../src/config/load.js';
import type { AppConfig } from '../../src/config/types.js';
import { startServer, type RunningServer } from '../../src/http/start.js';
import { createLogger } from '../../src/observe/log.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export interface TestResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  /** The body's bytes as sent (text is them decoded as UTF-8, a leading BOM dropped). */
  readonly bytes: Buffer;
  json(): any;
}

export interface RequestOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer | object;
}

export interface TestServer {
  readonly url: string;
  readonly db: TestDatabase;
  readonly server: RunningServer;
  readonly config: AppConfig;
  request(path: string, opts?: RequestOptions): Promise<TestResponse>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** Config as env-style keys (`db-max-rows` → '100'), as a user would write them. */
export async function testConfig(dbUri: string, settings: Record<string, string> = {}): Promise<AppConfig> {
  const env: Record<string, string> = { DBREST_DB_URI: dbUri, DBREST_SERVER_PORT: '0', DBREST_SERVER_HOST: '127.0.0.1', DBREST_LOG_LEVEL: 'crit' };
  for (const [k, v] of Object.entries(settings)) env['DBREST_' + k.replace(/[-.]/g, '_').toUpperCase()] = v;
  const loaded = await loadConfig({ cwd: process.cwd(), env, flags: {}, search: false });
  if (loaded.problems.length > 0) throw new Error('bad test config: ' + JSON.stringify(loaded.problems));
  return loaded.config;
}

export async function httpRequest(url: string, opts: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let body: string | Buffer | undefined;
  if (opts.body !== undefined) {
    if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) body = opts.body;
    else {
      body = JSON.stringify(opts.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
    }
  }
  const res = await undiciRequest(url, { method: (opts.method ?? 'GET') as any, headers, body });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  return { status: res.statusCode, headers: flat, text, bytes, json: () => JSON.parse(text) };
}

export async function startTestServer(
  t: Teardown,
  opts: { fixtures?: ReadonlyArray<string>; config?: Record<string, string>; db?: TestDatabase; logLines?: string[] } = {},
): Promise<TestServer> {
  const db = opts.db ?? (await createTestDatabase(opts.fixtures ?? []));
  const config = await testConfig(db.uri, opts.config);
  // logLines: the server's log lines are kept there (at the config's log-level) instead of printed.
  const lines = opts.logLines;
  const server = await startServer(config, db.uri, createLogger(config.logLevel, lines ? (l) => void lines.push(l) : undefined));
  t.teardown(async () => {
    await server.close();
    if (!opts.db) await db.drop();
  });
  return {
    url: server.url,
    db,
    server,
    config,
    request: (path, ro) => httpRequest(server.url + path, ro),
  };
}
