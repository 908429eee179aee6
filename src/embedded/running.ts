// The embedded database a running `dbrest serve` started, found from its data directory: for
// commands that read the database (`dbrest types`) while serve runs with no db-uri. Only reads:
// starting a second postmaster on that directory would stop the running one (postgres.ts).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EMBEDDED_DATABASE } from './bootstrap.js';

/**
 * A superuser URI of the embedded database whose postmaster runs on `dataDir`, or null when none
 * does. The port is the fourth line of postmaster.pid; the password is kept beside the directory.
 */
export function runningEmbeddedUri(dataDir: string): string | null {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const passwordFile = path.join(path.dirname(dataDir), `${path.basename(dataDir)}.password`);
  if (!existsSync(pidFile) || !existsSync(passwordFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0 || !isAlive(pid)) return null;
  const u = new URL(`postgres://127.0.0.1:${port}/${EMBEDDED_DATABASE}`);
  u.username = 'postgres';
  u.password = encodeURIComponent(readFileSync(passwordFile, 'utf8').trim());
  return u.toString();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: alive, but another user's (the postmaster runs as `postgres` when dbrest runs as root)
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
