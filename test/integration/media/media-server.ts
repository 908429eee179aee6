// The test server for the media-type handler suites: a real dbrest over HTTP on media.sql.
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export function startMediaServer(t: Teardown, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, { fixtures: [fixture('sql', 'media.sql')], config: { 'db-anon-role': 'media_anon', ...config } });
}

/** GET with one Accept header. */
export const accept = (value: string, method = 'GET') => ({ method, headers: { Accept: value } });
