// The content API example (examples/content) on a fresh test database: its SQL files loaded in name
// order, its routes.json mounted, requests as web_anon — the way the embedded default serves it.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createTestDatabase } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

export const CONTENT_DIR = path.resolve(process.cwd(), 'examples', 'content');
export const CONTENT_SQL = readdirSync(CONTENT_DIR).filter((f) => f.endsWith('.sql')).sort().map((f) => path.join(CONTENT_DIR, f));
export const CONTENT_ROUTES = readFileSync(path.join(CONTENT_DIR, 'routes.json'), 'utf8');
/** The shared demo data the example's seed was converted from (tests may read ../shared). */
export const FIXTURE_PATH = path.resolve(process.cwd(), '..', 'shared', 'fixtures', 'content-demo.json');

interface Teardown {
  teardown(fn: () => unknown): void;
}

export async function startContentServer(t: Teardown, extraSql: ReadonlyArray<string> = []): Promise<TestServer> {
  const db = await createTestDatabase([...CONTENT_SQL, ...extraSql]);
  t.teardown(() => db.drop());
  return startTestServer(t, { db, config: { 'db-schemas': 'content', 'db-anon-role': 'web_anon', routes: CONTENT_ROUTES } });
}

/** GET a path of the API and return status and parsed body (null when empty). */
export async function getJson(s: TestServer, p: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Record<string, string> }> {
  const res = await s.request(p, { headers });
  return { status: res.status, body: res.text === '' ? null : JSON.parse(res.text), headers: res.headers };
}

/** The ids of a listing, in order. */
export async function ids(s: TestServer, p: string, headers: Record<string, string> = {}): Promise<number[]> {
  const r = await getJson(s, p, headers);
  if (r.status !== 200) throw new Error(`${p}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.items.map((i: { id: number }) => i.id);
}
