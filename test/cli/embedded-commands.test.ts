// The embedded default's other commands (issue #32): in a directory with no configuration, `introspect`, `types`
// and `openapi` reach the database serve would use (starting it for their duration and stopping it, or
// using the one a running serve has), also when a serve starts at the same moment; `check-config` shows
// serve's anonymous role and one line per mount; `db-uri` prints a working URI, password masked.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { freePort } from '../../src/embedded/postgres.js';
import { httpRequest } from '../helpers/server.js';
import { runCommand, spawnServe } from '../helpers/spawn-serve.js';

const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-commands-'));
t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
const pidFile = path.join(cwd, '.dbrest', 'pgdata', 'postmaster.pid');
const postmasterPid = () => Number(readFileSync(pidFile, 'utf8').split('\n')[0]);

async function currentUser(uri: string): Promise<string> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    return (await client.query('SELECT current_user AS u')).rows[0].u;
  } finally {
    await client.end();
  }
}

t.test('with no serve running: introspect and openapi start the database for their duration', async (t) => {
  const intro = await runCommand(cwd, ['introspect', '--json']);
  t.equal(intro.code, 0, intro.stderr);
  t.notMatch(intro.stderr, /needs a database/);
  const cache = JSON.parse(intro.stdout) as { schemas: string[]; relations: Array<{ name: string }> };
  t.same(cache.schemas, ['public']);
  t.ok(cache.relations.some((r) => r.name === 'films'), 'the quickstart tables of the embedded database');
  t.notOk(existsSync(pidFile), 'the database it started is stopped again');

  const doc = await runCommand(cwd, ['openapi']);
  t.equal(doc.code, 0, doc.stderr);
  const paths = (JSON.parse(doc.stdout) as { paths: Record<string, unknown> }).paths;
  t.ok(paths['/films'], 'the quickstart tables');
  t.ok(paths['/api/v2/pages'], "and the examples' mounts, as serve documents them");
  t.notOk(existsSync(pidFile));

  const types = await runCommand(cwd, ['types']);
  t.equal(types.code, 0, types.stderr);
  t.match(types.stdout, /^ {6}films: \{$/m, 'types of the quickstart tables');
  t.notOk(existsSync(pidFile));

  const uri = await runCommand(cwd, ['db-uri']);
  t.equal(uri.code, 1, 'db-uri has no URI to print while no serve runs');
  t.match(uri.stderr, /no dbrest serve runs the embedded PostgreSQL of .*: start one/);
});

t.test('check-config shows what serve would use', async (t) => {
  const r = await runCommand(cwd, ['check-config']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /^db-anon-role = "web_anon" +\(embedded default\)$/m);
  t.match(r.stdout, /^routes = 19 mounts, listed below +\(the examples' routes\.json\)$/m);
  t.match(r.stdout, /^ {2}GET +\/api\/v2\/pages +→ call content\.pages_listing +\(examples\/content\/routes\.json\)$/m);
  t.match(r.stdout, /^ {2}POST +\/api\/cms\/v2\/user\/sessions +→ call cms\.session_create +\(examples\/cms\/routes\.json\)$/m);
  t.notMatch(r.stdout, /\\"method\\"/, 'no escaped JSON');
});

t.test('while a serve runs: the commands use its database; db-uri prints it', async (t) => {
  const port = await freePort();
  const s = await spawnServe(cwd, port);
  t.teardown(() => void (s.child.exitCode === null && s.child.kill('SIGKILL')));
  t.match(s.output(), `listening on http://localhost:${port}`);
  const pid = postmasterPid();

  const intro = await runCommand(cwd, ['introspect', '--json']);
  t.equal(intro.code, 0, intro.stderr);
  t.match(intro.stderr, /using the embedded PostgreSQL of dbrest serve \(PID \d+\)/);
  t.ok((JSON.parse(intro.stdout) as { relations: Array<{ name: string }> }).relations.some((r) => r.name === 'films'));
  const doc = await runCommand(cwd, ['openapi']);
  t.equal(doc.code, 0, doc.stderr);
  t.ok((JSON.parse(doc.stdout) as { paths: Record<string, unknown> }).paths['/films']);
  const types = await runCommand(cwd, ['types']);
  t.equal(types.code, 0, types.stderr);
  t.match(types.stderr, /using the embedded PostgreSQL of dbrest serve \(PID \d+\)/);
  t.match(types.stdout, /^ {6}films: \{$/m);
  t.equal(postmasterPid(), pid, "serve's database was neither stopped nor replaced");
  t.equal((await httpRequest(`http://localhost:${port}/films?select=title&limit=1`)).status, 200);

  const masked = await runCommand(cwd, ['db-uri']);
  t.equal(masked.code, 0, masked.stderr);
  t.match(masked.stdout, /^postgres:\/\/authenticator:\*{8}@127\.0\.0\.1:\d+\/dbrest\n$/);
  t.match(masked.stderr, /--show-password prints it; it is also in .*pgdata\.authenticator\.password/);
  const shown = await runCommand(cwd, ['db-uri', '--show-password']);
  t.equal(shown.stdout.replace(/:[^:@/]+@/, ':********@'), masked.stdout, 'the same URI, unmasked');
  t.equal(await currentUser(shown.stdout.trim()), 'authenticator', 'it connects, as the authenticator');
  const su = await runCommand(cwd, ['db-uri', '--superuser', '--show-password']);
  t.match(su.stdout, /^postgres:\/\/postgres:[^*]+@127\.0\.0\.1:\d+\/dbrest\n$/, 'the API\'s database, where schema changes go');
  t.equal(await currentUser(su.stdout.trim()), 'postgres', '--superuser connects as postgres');
  const tables = new pg.Client({ connectionString: su.stdout.trim() });
  await tables.connect();
  try {
    const films = await tables.query("SELECT to_regclass('public.films') IS NOT NULL AS here");
    t.equal(films.rows[0].here, true, 'the superuser lands beside the API\'s tables');
  } finally {
    await tables.end();
  }

  const check = await runCommand(cwd, ['check-config']);
  t.equal(check.code, 0, check.stderr);
  t.match(check.stdout, /^db-uri = "postgres:\/\/authenticator:\*{8}@127\.0\.0\.1:\d+\/dbrest" +\(embedded, run by dbrest serve in /m);
  t.match(check.stdout, /✔ routes: 19 mounts checked against the database/);

  const second = await runCommand(cwd, ['serve']);
  t.equal(second.code, 1, 'a second serve of the same directory is refused');
  t.match(second.stderr, /is run by another dbrest serve \(PID \d+\): stop it first/);
  t.equal(postmasterPid(), pid, 'and leaves the first one alone');

  s.child.kill('SIGTERM');
  t.equal(await s.exited, 0);
});

t.test('introspect and serve started at the same moment both work', async (t) => {
  const port = await freePort();
  const [intro, s] = await Promise.all([runCommand(cwd, ['introspect', '--json']), spawnServe(cwd, port)]);
  t.teardown(() => void (s.child.exitCode === null && s.child.kill('SIGKILL')));
  t.equal(intro.code, 0, intro.stderr);
  t.ok((JSON.parse(intro.stdout) as { relations: Array<{ name: string }> }).relations.some((r) => r.name === 'films'));
  t.match(s.output(), `listening on http://localhost:${port}`, s.output());
  t.equal((await httpRequest(`http://localhost:${port}/films?select=title&limit=1`)).status, 200, 'serve answers after the introspect ended');
  s.child.kill('SIGTERM');
  t.equal(await s.exited, 0);
});
