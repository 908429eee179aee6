// The embedded database keeps its secrets (issue #26, findings 6 and 7): each login role has a password
// of its own, kept 0600 beside the data directory and nowhere else (never /tmp, not even while initdb
// runs); nothing under .dbrest is readable by other users; a cluster whose authenticator shares the
// superuser's password (as older versions made it) gets one of its own at the next start; and a stale
// postmaster.pid naming a live unrelated process leaves that process alone.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, mkdtempSync, statSync, watch, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { freePort } from '../../src/embedded/postgres.js';
import { httpRequest } from '../helpers/server.js';
import { spawnServe } from '../helpers/spawn-serve.js';

/** Every file and directory under `dir`, with its mode. */
function walk(dir: string): Array<{ file: string; mode: number; isDir: boolean }> {
  const out: Array<{ file: string; mode: number; isDir: boolean }> = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    const st = statSync(file);
    out.push({ file, mode: st.mode & 0o777, isDir: st.isDirectory() });
    if (st.isDirectory()) out.push(...walk(file));
  }
  return out;
}

const port = (cwd: string) => Number(readFileSync(path.join(cwd, '.dbrest', 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[3]);
const secret = (cwd: string, name: string) => readFileSync(path.join(cwd, '.dbrest', name), 'utf8').trim();

/** Whether `user` logs in with `password` (the SQLSTATE of the refusal otherwise). */
async function login(cwd: string, user: string, password: string): Promise<string> {
  const client = new pg.Client({ host: '127.0.0.1', port: port(cwd), user, password, database: 'dbrest' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query('SELECT current_user AS u')).rows[0].u === user ? 'ok' : 'someone else';
  } catch (e) {
    return (e as { code?: string }).code ?? (e as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

t.test('the embedded default keeps a password per role, readable by its owner only', async (t) => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-secrets-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const httpPort = await freePort();

  // Anything created in the temporary directory while serve initialises whose name speaks of a password
  // (the old initdb password file was /tmp/dbrest-pw-*, there for the seconds initdb ran).
  const tmpSeen: string[] = [];
  const watcher = watch(os.tmpdir(), (_event, name) => {
    if (name && /pw|passw/i.test(String(name)) && !String(name).startsWith(path.basename(cwd))) tmpSeen.push(String(name));
  });
  const tmpBefore = new Set(readdirSync(os.tmpdir()));
  const s = await spawnServe(cwd, httpPort);
  t.teardown(() => void (s.child.exitCode === null && s.child.kill('SIGKILL')));
  watcher.close();
  t.match(s.output(), `listening on http://localhost:${httpPort}`);
  t.same(tmpSeen, [], 'no password file appeared in the temporary directory while initdb ran');
  t.same(readdirSync(os.tmpdir()).filter((n) => !tmpBefore.has(n) && /pw|passw/i.test(n)), [], 'and none is left there');

  const files = walk(path.join(cwd, '.dbrest'));
  const secrets = files.filter((f) => /password/.test(path.basename(f.file)));
  t.same(secrets.map((f) => path.basename(f.file)).sort(), ['pgdata.authenticator.password', 'pgdata.password'], 'one password file per login role, beside the data directory');
  for (const f of secrets) t.equal(f.mode, 0o600, `${path.basename(f.file)} is 0600`);
  t.same(files.filter((f) => !f.isDir && (f.mode & 0o044) !== 0).map((f) => f.file), [], 'no file under .dbrest is readable by group or others');
  t.same(files.filter((f) => f.isDir && (f.mode & 0o044) !== 0).map((f) => f.file), [], 'no directory under .dbrest can be listed by group or others');
  t.equal(statSync(path.join(cwd, '.dbrest')).mode & 0o066, 0, '.dbrest itself: no read or write for group or others');

  const superuser = secret(cwd, 'pgdata.password');
  const authenticator = secret(cwd, 'pgdata.authenticator.password');
  t.not(superuser, authenticator, 'two different passwords');
  t.equal(await login(cwd, 'postgres', superuser), 'ok');
  t.equal(await login(cwd, 'authenticator', authenticator), 'ok');
  t.equal(await login(cwd, 'postgres', authenticator), '28P01', "the authenticator's password does not log the superuser in");
  t.equal(await login(cwd, 'authenticator', superuser), '28P01', "the superuser's password does not log the authenticator in");

  // As an older dbrest left it: the authenticator shares the superuser's password, and the superuser's
  // file is readable by others. The next start gives the authenticator its own and narrows the file.
  const admin = new pg.Client({ host: '127.0.0.1', port: port(cwd), user: 'postgres', password: superuser, database: 'postgres' });
  await admin.connect();
  await admin.query(`ALTER ROLE authenticator PASSWORD ${pg.escapeLiteral(superuser)}`);
  await admin.end();
  s.child.kill('SIGTERM');
  t.equal(await s.exited, 0);
  rmSync(path.join(cwd, '.dbrest', 'pgdata.authenticator.password'));
  chmodSync(path.join(cwd, '.dbrest', 'pgdata.password'), 0o644);

  const again = await spawnServe(cwd, httpPort);
  t.teardown(() => void (again.child.exitCode === null && again.child.kill('SIGKILL')));
  t.match(again.output(), `listening on http://localhost:${httpPort}`);
  t.match(again.output(), 'the authenticator role has a password of its own now', 'the rotation is reported');
  t.match(again.output(), /pgdata\.password was readable by other users \(mode 644\): now 0600/);
  t.equal(statSync(path.join(cwd, '.dbrest', 'pgdata.password')).mode & 0o777, 0o600);
  t.equal(statSync(path.join(cwd, '.dbrest', 'pgdata.authenticator.password')).mode & 0o777, 0o600);
  const rotated = secret(cwd, 'pgdata.authenticator.password');
  t.not(rotated, superuser);
  t.equal(await login(cwd, 'authenticator', superuser), '28P01', "after the upgrade, the superuser's password no longer logs the authenticator in");
  t.equal(await login(cwd, 'authenticator', rotated), 'ok');
  t.equal((await httpRequest(`http://localhost:${httpPort}/films?select=title&limit=1`)).status, 200, 'and serve connects with the new one');
  again.child.kill('SIGTERM');
  t.equal(await again.exited, 0);

  // Finding 7: a stale postmaster.pid whose PID now belongs to an unrelated live process.
  const pidFile = path.join(cwd, '.dbrest', 'pgdata', 'postmaster.pid');
  t.notOk(existsSync(pidFile), 'a clean stop leaves no lock file');
  const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
  t.teardown(() => void stranger.kill('SIGKILL'));
  const dataDir = path.join(cwd, '.dbrest', 'pgdata');
  writeFileSync(pidFile, `${stranger.pid}\n${dataDir}\n${Math.floor(Date.now() / 1000)}\n5432\n\n127.0.0.1\n  1234567         1\nready   \n`);
  const third = await spawnServe(cwd, httpPort);
  t.teardown(() => void (third.child.exitCode === null && third.child.kill('SIGKILL')));
  t.match(third.output(), `listening on http://localhost:${httpPort}`, 'serve starts despite the stale lock file');
  t.match(third.output(), new RegExp(`names PID ${stranger.pid}, which is not this data directory's PostgreSQL \\(sleep 60\\): left alone`));
  t.equal((await httpRequest(`http://localhost:${httpPort}/films?select=title&limit=1`)).status, 200);
  t.equal(stranger.exitCode, null, 'the unrelated process is still running while serve runs');
  t.equal(stranger.signalCode, null);
  third.child.kill('SIGTERM');
  t.equal(await third.exited, 0);
  t.equal(stranger.exitCode, null, 'and after serve stopped');
  t.equal(stranger.signalCode, null, 'it received no signal');
  process.kill(stranger.pid!, 0); // throws if it is gone
});
