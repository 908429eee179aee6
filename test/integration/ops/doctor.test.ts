// `dbrest doctor` (issue 29): each problem planted in a test database is found, with the SQL that
// fixes it, and applying that SQL makes the finding go away; the bundled examples, served by the
// embedded default as `dbrest serve` runs them, come out clean.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { run } from '../../../src/cli/main.js';
import type { Finding } from '../../../src/doctor/findings.js';
import { clusterUri, createTestDatabase, queryOnce } from '../../helpers/db.js';
import { runCommand } from '../../helpers/spawn-serve.js';

const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-doctor-'));
t.teardown(() => rmSync(cwd, { recursive: true, force: true }));

interface Report {
  readonly role: string;
  readonly schemas: string[];
  readonly summary: Record<string, number>;
  readonly findings: Finding[];
}

async function doctor(args: string[]): Promise<{ code: number; report: Report; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, cwd, env: { NO_COLOR: '1' } };
  const code = await run(['node', 'dbrest', 'doctor', '--json', ...args], io);
  return { code, report: JSON.parse(stdout) as Report, stderr };
}

const suffix = randomBytes(4).toString('hex');
const AUTH = `doc_auth_${suffix}`;
const ANON = `doc_anon_${suffix}`;
const PASSWORD = `pw-${suffix}`;

// One of each problem, each beside a look-alike that is fine (which doctor must not report).
const PLANTED = `
CREATE ROLE ${ANON} NOLOGIN;
CREATE ROLE ${AUTH} LOGIN NOINHERIT PASSWORD '${PASSWORD}';
GRANT ${ANON} TO ${AUTH};
CREATE SCHEMA api;
GRANT USAGE ON SCHEMA api TO ${ANON};

CREATE TABLE api.open_read (id int PRIMARY KEY);
GRANT SELECT ON api.open_read TO ${ANON};
CREATE TABLE api.guarded_read (id int PRIMARY KEY);
ALTER TABLE api.guarded_read ENABLE ROW LEVEL SECURITY;
CREATE POLICY r ON api.guarded_read FOR SELECT TO ${ANON} USING (true);
GRANT SELECT ON api.guarded_read TO ${ANON};

CREATE TABLE api.open_write (id int PRIMARY KEY, note text);
GRANT INSERT (note), DELETE ON api.open_write TO ${ANON};
CREATE TABLE api.guarded_write (id int PRIMARY KEY);
ALTER TABLE api.guarded_write ENABLE ROW LEVEL SECURITY;
GRANT INSERT ON api.guarded_write TO ${ANON};

CREATE TABLE api.parent (id int PRIMARY KEY);
CREATE TABLE api.child (id int PRIMARY KEY, parent_id int REFERENCES api.parent);
CREATE TABLE api.indexed_child (id int PRIMARY KEY, parent_id int REFERENCES api.parent);
CREATE INDEX ON api.indexed_child (parent_id);
CREATE TABLE api.pair_child (a int, b int, x int, PRIMARY KEY (b, a, x), FOREIGN KEY (a, b) REFERENCES api.pair (a, b));

CREATE FUNCTION api.definer() RETURNS int LANGUAGE sql SECURITY DEFINER AS 'SELECT 1';
CREATE FUNCTION api.pinned_definer() RETURNS int LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog AS 'SELECT 1';
CREATE FUNCTION api.invoker() RETURNS int LANGUAGE sql AS 'SELECT 1';

CREATE TABLE api.mine (id int PRIMARY KEY);
ALTER TABLE api.mine OWNER TO ${AUTH};

-- Not exposed: nothing here is reported.
CREATE SCHEMA private;
CREATE TABLE private.p (id int PRIMARY KEY);
CREATE TABLE private.c (id int PRIMARY KEY, p int REFERENCES private.p);
GRANT USAGE ON SCHEMA private TO ${ANON};
GRANT SELECT, INSERT ON private.c TO ${ANON};
CREATE FUNCTION private.definer() RETURNS int LANGUAGE sql SECURITY DEFINER AS 'SELECT 1';
`;

t.test('planted problems are found, with the SQL that fixes them', async (t) => {
  // api.pair must exist before pair_child references it.
  const db = await createTestDatabase(['CREATE SCHEMA IF NOT EXISTS api; CREATE TABLE api.pair (a int, b int, PRIMARY KEY (a, b));', PLANTED.replace('CREATE SCHEMA api;', '')]);
  t.teardown(async () => {
    await db.drop();
    await queryOnce(clusterUri(), `DROP ROLE IF EXISTS ${AUTH}; DROP ROLE IF EXISTS ${ANON}`);
  });
  const u = new URL(db.uri);
  u.username = AUTH;
  u.password = PASSWORD;
  const args = ['--db-uri', u.toString(), '--db-schemas', 'api', '--db-anon-role', ANON, '--jwt-secret', 'reallyreallyreallyreallyverysafe'];
  const { code, report } = await doctor(args);
  t.equal(code, 1, 'exit 1: there are errors and warnings');
  t.equal(report.role, AUTH, 'it connected as the configured role');
  t.same(report.schemas, ['api']);
  const found = (check: string) => report.findings.filter((f) => f.check === check).map((f) => f.subject).sort();
  const fixOf = (check: string, subject: string) => report.findings.find((f) => f.check === check && f.subject === subject)?.fix ?? '';

  t.same(found('anon-reads-without-rls'), ['"api"."open_read"'], 'the table anon reads without RLS, not the one with RLS');
  t.same(found('anon-can-write'), ['"api"."open_write"'], 'a column INSERT grant counts; the RLS table does not');
  t.match(fixOf('anon-can-write', '"api"."open_write"'), /^REVOKE INSERT, DELETE ON "api"\."open_write" FROM "doc_anon_/);
  t.same(found('foreign-key-index'), ['"api"."child"("parent_id")'], 'the unindexed key only; a primary key in another order covers a pair');
  t.equal(fixOf('foreign-key-index', '"api"."child"("parent_id")'), 'CREATE INDEX ON "api"."child" ("parent_id");');
  t.same(found('definer-search-path'), ['"api"."definer"()']);
  t.same(found('authenticator-owns'), ['"api"."mine"']);
  t.same(found('jwt-secret-public'), ['jwt-secret']);
  t.same(found('no-pre-request'), ['db-pre-request']);
  t.equal(report.findings.find((f) => f.check === 'no-pre-request')?.level, 'info');
  t.same(found('authenticator-superuser'), [], 'the authenticator is an ordinary role');
  const fsync = (await db.query<{ fsync: string }>(`SELECT current_setting('fsync') AS fsync`))[0]!.fsync;
  t.same(found('fsync-off'), fsync === 'off' ? ['fsync'] : [], `fsync is ${fsync} on the test cluster, a db-uri database`);
  t.notOk(JSON.stringify(report).includes('private'), 'nothing of an unexposed schema');

  // Each fix, run as the superuser, clears its finding.
  for (const f of report.findings.filter((f) => ['anon-reads-without-rls', 'anon-can-write', 'foreign-key-index', 'definer-search-path'].includes(f.check))) {
    await db.query(f.fix.split('  -- ')[0]!);
  }
  await db.query(`ALTER TABLE api.mine OWNER TO CURRENT_USER`);
  const again = await doctor([...args.slice(0, -2), '--db-pre-request', 'api.invoker', '--jwt-secret', randomBytes(36).toString('base64')]);
  t.same(again.report.findings.filter((f) => f.check !== 'fsync-off'), [], 'nothing left but the cluster setting');
  t.equal(again.code, fsync === 'off' ? 1 : 0);
});

t.test('a superuser authenticator, a missing anonymous role and a made-up secret are errors', async (t) => {
  const db = await createTestDatabase(['CREATE TABLE t (id int)']);
  t.teardown(() => db.drop());
  const { code, report } = await doctor(['--db-uri', db.uri, '--db-anon-role', `nobody_${suffix}`, '--jwt-secret', 'abcabcabcabcabcabcabcabcabcabcabcabc']);
  t.equal(code, 1);
  const levels = Object.fromEntries(report.findings.map((f) => [f.check, f.level]));
  t.equal(levels['authenticator-superuser'], 'error');
  t.equal(levels['anon-role-missing'], 'error');
  t.equal(levels['jwt-secret-weak'], 'error');
  t.notOk('authenticator-owns' in levels, 'a superuser is not also reported as every owner');
});

t.test('the bundled examples, as the embedded default serves them, come out clean', async (t) => {
  const r = await runCommand(cwd, ['doctor', '--json']);
  const report = JSON.parse(r.stdout) as Report;
  t.same(report.findings.filter((f) => f.level !== 'info'), [], 'no error or warning');
  t.equal(r.code, 0, r.stderr);
  t.same([...report.schemas].sort(), ['cms', 'content', 'public'], 'the quickstart schema and the schemas the mounts call into');
  t.equal(report.role, 'authenticator');

  const text = await runCommand(cwd, ['doctor']);
  t.equal(text.code, 0);
  t.match(text.stdout, /^✔ no problems found, 1 note$/m);
});
