// What the server-workers tests share (issue 30 item 1): `dbrest serve` with 2 workers against a
// test database, and which worker answered: read from the primary's admin /metrics, where each
// worker's request counters carry its worker_pid (two pids with counts: two processes served).
// Requests go on fresh connections (no keep-alive), so round-robin spreads them over the workers.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { freePort } from '../../src/embedded/postgres.js';
import { clusterUri, queryOnce, type TestDatabase } from '../helpers/db.js';
import { spawnServe, type ServeChild } from '../helpers/spawn-serve.js';

export const ITEMS = `
  CREATE TABLE public.items (id int PRIMARY KEY);
  INSERT INTO public.items SELECT generate_series(1, 8);
  CREATE FUNCTION public.slow(ms int) RETURNS int STABLE LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(ms / 1000.0); RETURN ms; END $$;`;

export const superuser = () => decodeURIComponent(new URL(clusterUri()).username);

export interface Got {
  readonly status: number;
  readonly body: string;
}

/** One request on a connection of its own. Rejects when the connection fails (a killed worker's). */
export function get(url: string, timeoutMs = 10_000): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { Connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('no answer')));
    req.on('error', reject);
  });
}

export async function until(what: () => Promise<boolean> | boolean, tries = 300): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await Promise.resolve().then(what).catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

export const parentOf = (pid: number): number => {
  try {
    return Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return -1; // gone meanwhile
  }
};
export const childrenOf = (pid: number): number[] => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => parentOf(p) === pid);

export function tempDir(t: Test): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'dbrest-workers-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

export interface Cluster {
  readonly child: ServeChild;
  readonly url: string;
  readonly admin: string;
  readonly dir: string;
}

/** A process's open files (sockets, pipes), for a report of what kept it alive. */
function openFiles(pid: number): string {
  try {
    return readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '?';
      }
    }).join(' ');
  } catch {
    return 'gone';
  }
}

/** How long a SIGTERM'd serve may take to drain before the teardown calls it a failure. */
const STOP_LIMIT_MS = 30_000;

/** `dbrest serve` with server-workers=2 (or `env`'s) against a test database, with an admin port. */
export async function serveWorkers(t: Test, db: TestDatabase, env: Record<string, string> = {}, file?: object): Promise<Cluster> {
  const [port, adminPort] = [await freePort(), await freePort()];
  const dir = tempDir(t);
  if (file) writeFileSync(path.join(dir, 'dbrest.config.json'), JSON.stringify(file));
  const child = await spawnServe(dir, port, {
    DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: superuser(), DBREST_SERVER_HOST: '127.0.0.1',
    DBREST_SERVER_WORKERS: '2', DBREST_ADMIN_SERVER_PORT: String(adminPort), ...env,
  });
  t.teardown(async () => {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill('SIGTERM');
      // A drain that does not end is a failure with what the processes said, not a hang of the file.
      const stopped = await Promise.race([child.exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), STOP_LIMIT_MS))]);
      if (!stopped) {
        const tree = [child.child.pid ?? -1, ...childrenOf(child.child.pid ?? -1)];
        // After the teardown an assertion's text is not shown: stderr carries it, with each process's open files.
        const said = `dbrest serve did not stop within ${STOP_LIMIT_MS / 1000} s of SIGTERM; still running: ${tree.map((p) => `${p} (${openFiles(p)})`).join('; ')}; its output ends:\n${child.output().slice(-3000)}`;
        process.stderr.write(`${said}\n`);
        t.fail(said);
        for (const pid of tree) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
        await child.exited;
      }
    }
  });
  return { child, url: `http://127.0.0.1:${port}`, admin: `http://127.0.0.1:${adminPort}`, dir };
}

/** Per worker pid: `metric{…labels…}` values summed over the series whose labels include `match`. */
export async function perWorker(c: Cluster, metric: string, match = ''): Promise<Map<string, number>> {
  const text = (await get(`${c.admin}/metrics`)).body;
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`) || !line.includes(match)) continue;
    const pid = /worker_pid="(\d+)"/.exec(line)?.[1];
    if (pid === undefined) continue;
    out.set(pid, (out.get(pid) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

/** ALTER DATABASE … ALLOW_CONNECTIONS, from the cluster's own database (PostgreSQL refuses it from inside). */
export const allowConnections = (db: TestDatabase, allow: boolean) => queryOnce(clusterUri(), `ALTER DATABASE ${db.name} ALLOW_CONNECTIONS ${allow}`);

export const requestsTo = (c: Cluster, route: string) => perWorker(c, 'dbrest_http_requests_total', `route="${route}"`);

