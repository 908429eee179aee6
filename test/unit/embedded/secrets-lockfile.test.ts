// The embedded database's helpers that need no server: SCRAM verifiers (checked against PostgreSQL
// itself by test/cli/serve-embedded-secrets.test.ts, which logs in with passwords set this way),
// secret files created 0600, and reading postmaster.pid without trusting the PID it names.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { inspectLockFile } from '../../../src/embedded/lockfile.js';
import { readOrCreateSecret, scramVerifier, secretPath, verifierMatches, writeSecretFile } from '../../../src/embedded/secrets.js';

t.test('SCRAM verifiers: the format PostgreSQL stores, matched only by their password', async (t) => {
  const v = scramVerifier('s3cret');
  t.match(v, /^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}:[A-Za-z0-9+/=]{44}$/);
  t.ok(verifierMatches(v, 's3cret'));
  t.notOk(verifierMatches(v, 's3cre'));
  t.not(scramVerifier('s3cret'), v, 'a fresh salt each time');
  t.notOk(verifierMatches(null, 's3cret'), 'no password set');
  t.notOk(verifierMatches('md5abc', 's3cret'), 'an md5 hash is not taken for a match');
});

t.test('secret files: 0600 from creation, one per role, an old readable one narrowed', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-secret-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'pgdata');
  t.equal(secretPath(dataDir, 'postgres'), path.join(dir, 'pgdata.password'));
  t.equal(secretPath(dataDir, 'authenticator'), path.join(dir, 'pgdata.authenticator.password'));
  const file = secretPath(dataDir, 'authenticator');
  const made = await readOrCreateSecret(file, () => undefined);
  t.equal(made.created, true);
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.ok(made.password.length >= 32);
  const again = await readOrCreateSecret(file, () => undefined);
  t.same(again, { password: made.password, created: false }, 'read, not replaced');
  await t.rejects(writeSecretFile(file, 'x'), { code: 'EEXIST' }, 'never written over');
  chmodSync(file, 0o644);
  const said: string[] = [];
  await readOrCreateSecret(file, (m) => said.push(m));
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.match(said.join('\n'), /readable by other users \(mode 644\): now 0600/);
});

t.test('postmaster.pid: only a confirmed postmaster of this data directory is one', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-lock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'pgdata');
  mkdirSync(dataDir);
  const plant = (pid: number | string) => writeFileSync(path.join(dataDir, 'postmaster.pid'), `${pid}\n${dataDir}\n0\n5432\n\n127.0.0.1\n`);
  t.same(inspectLockFile(dataDir), { kind: 'none' });
  plant(process.pid);
  t.match(inspectLockFile(dataDir), { kind: 'stranger', pid: process.pid, what: /node/ }, 'a live process that is not postgres');
  const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.teardown(() => void sleeper.kill('SIGKILL'));
  plant(sleeper.pid!);
  t.match(inspectLockFile(dataDir), { kind: 'stranger', what: 'sleep 30' });
  sleeper.kill('SIGKILL');
  await new Promise((r) => sleeper.on('exit', r));
  t.same(inspectLockFile(dataDir), { kind: 'dead', pid: sleeper.pid });
  plant('garbage');
  t.match(inspectLockFile(dataDir), { kind: 'unknown' }, 'a file that names no process is left to PostgreSQL');
  t.match(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8'), /^garbage/, 'inspecting changes nothing');
});
