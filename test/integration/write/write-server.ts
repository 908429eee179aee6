// The test server for the write, RPC and OPTIONS suites: a real dbrest over HTTP on write.sql.
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

export const WRITE_CONFIG = { 'db-anon-role': 'write_anon', 'db-tx-end': 'commit-allow-override' } as const;

interface Teardown {
  teardown(fn: () => unknown): void;
}

export type WriteServer = TestServer;

export function startWriteServer(t: Teardown, config: Record<string, string> = {}): Promise<WriteServer> {
  return startTestServer(t, { fixtures: [fixture('sql', 'write.sql')], config: { ...WRITE_CONFIG, ...config } });
}

/** The whole table straight from the database (as the superuser), ordered, to check what a write left. */
export function tableRows(s: TestServer, table: string, orderBy = 'id'): Promise<Array<Record<string, unknown>>> {
  // Test-only SQL over fixture names written in the tests themselves.
  return s.db.query(`SELECT * FROM public.${table} ORDER BY ${orderBy}`);
}
