// The `dbrest` binary end to end: --version, --help, check-config's output and exit codes.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';

const root = process.cwd(); // tests run from the repository root
const bin = path.join(root, 'bin', 'dbrest.js');
const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;

interface Run { code: number | null; stdout: string; stderr: string }

/** Run `node bin/dbrest.js …` in `cwd` with NO_COLOR and without any DBREST_/PGRST_ variables of ours. */
function dbrest(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('DBREST_') && !k.startsWith('PGRST_') && k !== 'FORCE_COLOR') env[k] = v;
  }
  Object.assign(env, { NO_COLOR: '1' }, opts.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: opts.cwd ?? root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function tempDir(t: { teardown(fn: () => void): void }, files: Record<string, string> = {}): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'dbrest-cli-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(d, name), text);
  return d;
}

const ANSI = /\u001b\[/;
const STACK = /^\s+at /m;

t.test('--version', async (t) => {
  for (const flag of ['--version', '-v']) {
    const r = await dbrest([flag]);
    t.equal(r.code, 0);
    t.equal(r.stdout.trim(), version);
  }
});

t.test('--help lists the commands', async (t) => {
  const r = await dbrest(['--help']);
  t.equal(r.code, 0);
  for (const cmd of ['serve', 'introspect', 'check-config', 'openapi']) t.match(r.stdout, new RegExp(`^\\s+${cmd}\\b`, 'm'), cmd);
});

t.test('a command\'s --help lists every config key as a flag', async (t) => {
  const r = await dbrest(['check-config', '--help']);
  t.equal(r.code, 0);
  t.match(r.stdout, /--db-uri <uri>/);
  t.match(r.stdout, /--db-plan-enabled \[bool\]/);
  t.match(r.stdout, /--db-tx-end <value>/);
  t.match(r.stdout, /One of: commit, commit-allow-override, rollback,\s+rollback-allow-override/);
  t.match(r.stdout, /--app-setting <name=value>/);
  t.match(r.stdout, /Database options:/);
  t.match(r.stdout, /\(default: 10\) \[env DBREST_DB_POOL\]/);
  const intro = await dbrest(['introspect', '--help']);
  t.match(intro.stdout, /--schema <schema>/);
  t.match(intro.stdout, /--json/);
});

t.test('check-config: a misspelt key and a wrong type are both reported, exit 1', async (t) => {
  const cwd = tempDir(t, { 'bad.conf': '# typo and a wrong type\ndb-shemas = "api"\ndb-pool = "ten"\n' });
  const r = await dbrest(['check-config', 'bad.conf'], { cwd });
  t.equal(r.code, 1);
  t.equal(r.stdout, '');
  t.notMatch(r.stderr, ANSI);
  t.notMatch(r.stderr, STACK);
  const lines = r.stderr.trimEnd().split('\n');
  t.same(lines, [
    '✖ db-shemas: unknown key (in bad.conf) (did you mean db-schemas?)',
    '✖ db-pool: expected an integer, got "ten" (from bad.conf)',
  ]);
});

t.test('check-config: a bad enum value lists the allowed values', async (t) => {
  const cwd = tempDir(t, { 'dbrest.config.json': '{ "log-level": "loud" }' });
  const r = await dbrest(['check-config'], { cwd });
  t.equal(r.code, 1);
  t.match(r.stderr, /^✖ log-level: "loud" is not allowed; use one of "crit", "error", "warn", "info", "debug" \(from dbrest.config.json\)\n$/);
});

t.test('check-config: a good file prints the resolved config with sources, secrets masked, exit 0', async (t) => {
  const cwd = tempDir(t, {
    'good.conf': [
      'db-uri = "postgres://authenticator:hunter2@db.internal:5432/app"',
      'db-schemas = "api, public"',
      'jwt-secret = "reallyreallyreallyreallyverysafe"',
      'db-pool = 5',
      '',
    ].join('\n'),
  });
  const r = await dbrest(['check-config', 'good.conf', '--server-port', '8080'], { cwd, env: { DBREST_DB_MAX_ROWS: '100', PGRST_DB_ANON_ROLE: 'web_anon' } });
  t.equal(r.code, 0, r.stderr);
  // db-config is on by default, so check-config asks the database for its settings; db.internal is not there.
  t.match(r.stderr, /^! db-config: the database's settings not read, it is not reachable \([^\n]*\)\n$/);
  t.notMatch(r.stderr, /hunter2/);
  t.notMatch(r.stdout, ANSI);
  t.notMatch(r.stdout, /hunter2|reallyreally/);
  t.match(r.stdout, `# config file: ${path.join(cwd, 'good.conf')}`);
  t.match(r.stdout, /^jwt-secret = \*{8} +\(file\)$/m);
  t.match(r.stdout, /^db-uri = "postgres:\/\/authenticator:\*{8}@db.internal:5432\/app" +\(file\)$/m);
  t.match(r.stdout, /^db-schemas = "api,public" +\(file\)$/m);
  t.match(r.stdout, /^db-pool = 5 +\(file\)$/m);
  t.match(r.stdout, /^db-max-rows = 100 +\(env DBREST_DB_MAX_ROWS\)$/m);
  t.match(r.stdout, /^db-anon-role = "web_anon" +\(env PGRST_DB_ANON_ROLE\)$/m);
  t.match(r.stdout, /^server-port = 8080 +\(flag --server-port\)$/m);
  t.match(r.stdout, /^db-tx-end = "commit" +\(default\)$/m);
});

t.test('check-config: a PostgREST .conf with keys that mean nothing here loads, each ignored key warned about once, exit 0', async (t) => {
  const cwd = tempDir(t, {
    'postgrest.conf': 'db-uri = "postgres://a@h/db"\ndb-use-legacy-gucs = false\nraw-media-types = "image/png"\nserver-proxy-uri = "https://api.example.com"\n',
  });
  const r = await dbrest(['check-config', 'postgrest.conf'], { cwd });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stderr, /^⚠ db-use-legacy-gucs: ignored: .*\(in postgrest\.conf\)$/m);
  t.match(r.stderr, /^⚠ raw-media-types: ignored: .*\(in postgrest\.conf\)$/m);
  t.equal(r.stderr.trimEnd().split('\n').filter((l) => l.startsWith('⚠')).length, 2, 'each once');
  t.match(r.stdout, /^openapi-server-proxy-uri = "https:\/\/api\.example\.com" +\(file\)$/m);
});

t.test('check-config: an unreadable file is one line, exit 1', async (t) => {
  const cwd = tempDir(t);
  const r = await dbrest(['check-config', 'missing.conf'], { cwd });
  t.equal(r.code, 1);
  t.equal(r.stdout, '');
  t.equal(r.stderr, `✖ config-file: cannot read ${path.join(cwd, 'missing.conf')}: no such file\n`);
});

t.test('serve with config problems reports them and exits 1 before starting', async (t) => {
  const cwd = tempDir(t, { 'bad.json': '{ "db-uri": "mysql://nope" }' });
  const r = await dbrest(['serve', 'bad.json'], { cwd });
  t.equal(r.code, 1);
  t.match(r.stderr, /^✖ db-uri: malformed connection string: the scheme must be postgres:\/\/ or postgresql:\/\//);
  t.notMatch(r.stderr, STACK);
});

t.test('usage errors are one line, exit 1', async (t) => {
  const unknown = await dbrest(['check-config', '--db-shemas', 'x']);
  t.equal(unknown.code, 1);
  t.equal(unknown.stderr.trimEnd().split('\n').length, 1);
  t.match(unknown.stderr, /unknown option '--db-shemas'.*--db-schemas/);
  const command = await dbrest(['chek-config']);
  t.equal(command.code, 1);
  t.equal(command.stderr.trimEnd().split('\n').length, 1);
  t.match(command.stderr, /unknown command 'chek-config'.*check-config/);
});
