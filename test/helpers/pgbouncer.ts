// A real PgBouncer (Debian's package) in front of the test cluster: its own temp dir and free port,
// transaction pooling by default, password auth from an auth_file holding the cluster user's
// password. Tests that need it skip with findPgBouncer()'s reason when it is not installed.
import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import { accessSync, constants, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/embedded/postgres.js';

export interface PgBouncerOptions {
  readonly poolMode?: 'session' | 'transaction' | 'statement';
  readonly defaultPoolSize?: number;
  readonly maxClientConn?: number;
}

export interface PgBouncer {
  readonly port: number;
  readonly pid: number;
  /** `uri` (a database of the cluster PgBouncer fronts) as reached through PgBouncer. */
  through(uri: string): string;
  /** Its log so far (for a test's failure message). */
  log(): string;
  stop(): Promise<void>;
}

/** How long stop() lets PgBouncer's safe shutdown wait for open transactions before killing it. */
const STOP_WAIT_MS = 5000;

const CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/** The pgbouncer binary, or why there is none (the test's skip reason). */
export function findPgBouncer(): { bin: string } | { skip: string } {
  const fromEnv = process.env.DBREST_TEST_PGBOUNCER;
  for (const bin of fromEnv ? [fromEnv] : CANDIDATES) {
    try {
      accessSync(bin, constants.X_OK);
      return { bin };
    } catch {
      // next
    }
  }
  let onPath = '';
  try {
    onPath = execFileSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).trim();
  } catch {
    // not on PATH either
  }
  if (onPath !== '') return { bin: onPath };
  return { skip: `pgbouncer not found (looked in ${fromEnv ?? CANDIDATES.join(', ')} and PATH; .ci/run installs Debian's package)` };
}

/** PgBouncer refuses to run as root: then it runs as the cluster's `postgres` system user. */
function runAs(): { uid: number; gid: number } | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function waitForPort(port: number, child: ChildProcess, logFile: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`pgbouncer exited (${child.exitCode}): ${readLog(logFile)}`));
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve()));
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`pgbouncer did not listen within ${timeoutMs} ms: ${readLog(logFile)}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

const readLog = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** Starts PgBouncer in front of the cluster `clusterUri` names (its user and password are the ones in the auth_file). */
export async function startPgBouncer(bin: string, clusterUri: string, opts: PgBouncerOptions = {}): Promise<PgBouncer> {
  const target = new URL(clusterUri);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-pgbouncer-'));
  const port = await freePort();
  const logFile = path.join(dir, 'pgbouncer.log');
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  writeFileSync(path.join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o600 });
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      // Any database name: the same name on the cluster.
      `* = host=${target.hostname} port=${target.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      `pool_mode = ${opts.poolMode ?? 'transaction'}`,
      `default_pool_size = ${opts.defaultPoolSize ?? 2}`,
      `max_client_conn = ${opts.maxClientConn ?? 200}`,
      `logfile = ${logFile}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      // pg sends none of these today; drivers that do would be refused without it.
      'ignore_startup_parameters = extra_float_digits,options',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const who = runAs();
  if (who) for (const f of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(path.join(dir, f), who.uid, who.gid);
  const child = spawn(bin, [path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore', ...(who ?? {}) });
  try {
    await waitForPort(port, child, logFile);
  } catch (e) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  let stopped: Promise<void> | null = null;
  return {
    port,
    pid: child.pid!,
    through(uri: string) {
      const u = new URL(uri);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    log: () => readLog(logFile),
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        // SIGINT is a safe shutdown (PAUSE, then SHUTDOWN): it waits for open transactions, which a
        // hung client under test may never end; then it is killed, so the test fails, not hangs.
        child.kill('SIGINT');
        setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS).unref();
      }).finally(() => rmSync(dir, { recursive: true, force: true }));
      return stopped;
    },
  };
}
