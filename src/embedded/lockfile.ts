// Who holds a data directory: PostgreSQL's lock file (`postmaster.pid`) names a process, but after a
// crash or a reboot that PID may belong to anything. We treat a PID as the data directory's postmaster
// only when the process says so itself (Linux: /proc/<pid>/cmdline is postgres or postmaster, and its
// working directory, which the postmaster sets to its data directory, or else its -D argument, is this
// data directory). Anything we cannot confirm is never signalled.
import { existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

export type LockHolder =
  /** No lock file: nobody holds the data directory. */
  | { readonly kind: 'none' }
  /** The lock file names a process that is gone: PostgreSQL takes such a file over by itself. */
  | { readonly kind: 'dead'; readonly pid: number }
  /** A live process confirmed to be this data directory's postmaster. */
  | { readonly kind: 'postmaster'; readonly pid: number; readonly port: number; readonly parent: number | null }
  /** A live process confirmed not to be this data directory's postmaster: the lock file is stale. */
  | { readonly kind: 'stranger'; readonly pid: number; readonly what: string }
  /** A live process we cannot identify: leave it and the lock file alone. */
  | { readonly kind: 'unknown'; readonly pid: number; readonly why: string };

/** The lock file's text, or null when there is none. */
export function readLockFile(dataDir: string): string | null {
  const file = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

export function inspectLockFile(dataDir: string): LockHolder {
  const text = readLockFile(dataDir);
  if (text === null) return { kind: 'none' };
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0) return { kind: 'unknown', pid: 0, why: `its first line is not a process id (${JSON.stringify(lines[0])})` };
  if (!isAlive(pid)) return { kind: 'dead', pid };
  if (process.platform !== 'linux') return { kind: 'unknown', pid, why: `on ${process.platform} dbrest cannot tell which program PID ${pid} runs` };
  const argv = procArgv(pid);
  if (argv === null) return { kind: 'unknown', pid, why: `/proc/${pid}/cmdline cannot be read` };
  const program = path.basename(argv[0] ?? '');
  if (program !== 'postgres' && program !== 'postmaster') return { kind: 'stranger', pid, what: argv.join(' ').slice(0, 120) || '(no command line)' };
  const own = canonical(dataDir);
  const dir = procDataDir(pid, argv);
  if (dir === null) return { kind: 'unknown', pid, why: `PID ${pid} is a PostgreSQL server whose data directory cannot be read` };
  if (dir !== own) return { kind: 'stranger', pid, what: `the PostgreSQL server of ${dir}` };
  return { kind: 'postmaster', pid, port: Number(lines[3]), parent: procParent(pid) };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: alive, and someone else's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function procArgv(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '').split('\0');
  } catch {
    return null;
  }
}

/** The postmaster's working directory (it chdirs to its data directory), else its -D argument. */
function procDataDir(pid: number, argv: ReadonlyArray<string>): string | null {
  try {
    return canonical(readlinkSync(`/proc/${pid}/cwd`));
  } catch {
    // Another user's process: its cwd is not ours to read. Its arguments are.
  }
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const dir = a === '-D' ? argv[i + 1] : a.startsWith('--pgdata=') ? a.slice('--pgdata='.length) : a.startsWith('-D') ? a.slice(2) : undefined;
    if (dir !== undefined && path.isAbsolute(dir)) return canonical(dir);
  }
  return null;
}

/** The parent process id (field 4 of /proc/<pid>/stat, after the parenthesised command name). */
function procParent(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
