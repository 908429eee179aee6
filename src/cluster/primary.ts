// The primary of `dbrest serve` with server-workers > 1. It loads no schema cache and opens no pool:
// it forks the workers (node:cluster, round-robin over one shared listening socket), hands them the
// embedded database's URI over IPC, replaces a worker that dies (restart-policy.ts), forwards
// SIGUSR1/SIGUSR2 to every worker, drains them all on SIGTERM/SIGINT, and runs the admin server:
// /live is the primary's, /ready asks every serving worker, /metrics shows every worker's series
// (each with its worker_pid label) plus the primary's own two, /config and /schema_cache are a
// worker's. The embedded database, when there is one, was started by serve.ts in this process and
// is stopped by `closeDatabase` once the workers are gone.
import cluster, { type Worker } from 'node:cluster';
import { rm } from 'node:fs/promises';
import type http from 'node:http';
import type { AppConfig } from '../config/types.js';
import { createAdminServer } from '../http/admin.js';
import type { AdminRoute } from '../http/admin-routes.js';
import { listenAdmin } from '../http/listen.js';
import type { Logger } from '../observe/log.js';
import { isMessage, type Answer, type Message, type Question } from './protocol.js';
import { onWorkerExit, STABLE_MS } from './restart-policy.js';

export interface PrimaryOptions {
  /** The configuration as loaded: listeners, admin server, server-workers. */
  readonly config: AppConfig;
  readonly workers: number;
  /** The embedded database's URI (null with a db-uri: each worker reads it from the configuration). */
  readonly embeddedUri: string | null;
  readonly log: Logger;
  /** The CLI's own lines (start-up, signals). */
  readonly say: (m: string) => void;
  /** Prints the start-up lines once every worker serves. */
  readonly announce: (url: string, adminUrl: string | null) => void;
  /** Stops the embedded database this process runs; nothing otherwise. */
  readonly closeDatabase: () => Promise<void>;
}

interface Slot {
  readonly worker: Worker;
  readonly forkedAt: number;
  url: string | null;
}

/** How long a worker may take to answer an admin question before it counts as not answering. */
const ASK_TIMEOUT_MS = 5000;

export async function runPrimary(o: PrimaryOptions): Promise<number> {
  const { config, log, say } = o;
  const slots = new Map<number, Slot>();
  const timers = new Set<NodeJS.Timeout>();
  let phase = 'starting' as 'starting' | 'serving' | 'stopping';
  let crashesInARow = 0;
  let restarts = 0;
  let url = null as string | null;
  /** The worker that runs the start-up checks (protocol.ts Start): the first to say hello. */
  let checker = null as number | null;

  // The workers may not remove the socket file: the first to listen makes the primary bind it.
  if (config.serverUnixSocket !== null) await rm(config.serverUnixSocket, { force: true });
  cluster.schedulingPolicy = cluster.SCHED_RR; // also on Windows, where node's default is the OS's
  const fork = (): void => {
    const worker = cluster.fork();
    slots.set(worker.id, { worker, forkedAt: performance.now(), url: null });
  };
  const serving = (): Slot[] => [...slots.values()].filter((s) => s.url !== null && s.worker.isConnected());

  // Questions to workers, answered by id; a worker that exits answers null to what it was asked.
  let nextId = 0;
  const pending = new Map<number, { readonly workerId: number; done(a: Answer | null): void }>();
  const ask = (slot: Slot, q: Question, timeoutMs = ASK_TIMEOUT_MS): Promise<Answer | null> =>
    new Promise((resolve) => {
      const id = ++nextId;
      const done = (a: Answer | null): void => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(a);
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      pending.set(id, { workerId: slot.worker.id, done });
      try {
        slot.worker.send({ dbrest: 'ask', id, ...q } satisfies Message);
      } catch {
        done(null);
      }
    });

  let startedAll: () => void = () => undefined;
  let startFailed: (why: string) => void = () => undefined;
  const startup = new Promise<void>((resolve, reject) => {
    startedAll = resolve;
    startFailed = (why) => reject(new Error(why));
  });
  let stoppedAll: () => void = () => undefined;
  const allStopped = new Promise<void>((r) => (stoppedAll = r));

  cluster.on('message', (worker, m: unknown) => {
    if (!isMessage(m)) return;
    const slot = slots.get(worker.id);
    if (m.dbrest === 'hello') {
      const startupChecks = checker === null;
      checker ??= worker.id;
      worker.send({ dbrest: 'start', embeddedUri: o.embeddedUri, startupChecks } satisfies Message);
    } else if (m.dbrest === 'started' && slot !== undefined) {
      slot.url = m.url;
      url ??= m.url;
      if (phase === 'starting' && serving().length === o.workers) startedAll();
      else if (phase === 'serving') log.info(`worker ${worker.process.pid} serving (${serving().length} of ${o.workers})`);
    } else if (m.dbrest === 'answer') {
      pending.get(m.id)?.done(m);
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker.id);
    slots.delete(worker.id);
    for (const p of [...pending.values()]) if (p.workerId === worker.id) p.done(null);
    if (phase === 'stopping') {
      if (slots.size === 0) stoppedAll();
      return;
    }
    const how = signal !== null ? `signal ${signal}` : `code ${code}`;
    if (phase === 'starting') return startFailed(`worker ${worker.process.pid} exited with ${how} while starting`);
    const decision = onWorkerExit(crashesInARow, slot === undefined ? 0 : performance.now() - slot.forkedAt);
    crashesInARow = decision.crashesInARow;
    if (decision.giveUp) {
      log.error(`workers keep exiting: ${decision.crashesInARow} in a row, each within ${STABLE_MS / 1000} s of its start; stopping`);
      void stop(1);
      return;
    }
    log.error(`worker ${worker.process.pid} exited with ${how}; starting another in ${decision.delayMs} ms`);
    const timer = setTimeout(() => {
      timers.delete(timer);
      restarts++;
      if (phase === 'serving') fork();
    }, decision.delayMs);
    timers.add(timer);
  });

  // /ready: 200 while at least one worker serves and every serving worker is ready.
  const isReady = async (): Promise<boolean> => {
    const workers = serving();
    if (workers.length === 0) return false;
    const answers = await Promise.all(workers.map((s) => ask(s, { what: 'ready' })));
    return answers.every((a) => a !== null && 'ready' in a && a.ready);
  };
  const route: AdminRoute = async (path, res) => {
    if (path === '/metrics') return metrics(res);
    const first = serving()[0];
    const a = first === undefined ? null : await ask(first, { what: 'admin', path });
    if (a === null || !('admin' in a)) {
      res.writeHead(503, { 'Content-Length': 0 }).end();
      return true;
    }
    if (a.admin === null) return false;
    res.writeHead(a.admin.status, a.admin.headers).end(a.admin.body);
    return true;
  };
  // Every serving worker's metrics side by side (prom-client merges series of one name; each worker's
  // carry its worker_pid, so none are summed), with the primary's worker count and restarts.
  const metrics = async (res: http.ServerResponse): Promise<boolean> => {
    const answers = await Promise.all(serving().map((s) => ask(s, { what: 'metrics' })));
    const sets = answers.flatMap((a) => (a !== null && 'metrics' in a && a.metrics !== null ? [a.metrics] : []));
    const own = [
      { name: 'dbrest_workers', help: 'Worker processes serving (server-workers).', type: 'gauge', aggregator: 'sum', values: [{ value: serving().length, labels: {} }] },
      { name: 'dbrest_worker_restarts_total', help: 'Workers started to replace one that exited.', type: 'counter', aggregator: 'sum', values: [{ value: restarts, labels: {} }] },
    ];
    const { AggregatorRegistry } = (await import('prom-client')).default;
    const registry = AggregatorRegistry.aggregate([...sets, own] as Parameters<typeof AggregatorRegistry.aggregate>[0]);
    const text = await registry.metrics();
    res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(text) }).end(text);
    return true;
  };

  let admin: http.Server | null = null;
  let finished: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => (finished = r));
  let stopping: Promise<void> | null = null;
  const stop = (code: number, signal?: string): Promise<void> =>
    (stopping ??= (async () => {
      const wasServing = phase === 'serving';
      phase = 'stopping';
      for (const t of timers) clearTimeout(t);
      if (signal !== undefined) say(`${signal}: finishing in-flight requests in ${slots.size} workers…`);
      // SIGTERM runs each worker's own graceful shutdown (serve.ts): stop accepting, finish, close the pool.
      for (const s of slots.values()) s.worker.process.kill('SIGTERM');
      if (slots.size > 0) await allStopped;
      if (admin !== null) await new Promise<void>((r) => admin!.close(() => r()));
      await o.closeDatabase().catch(() => undefined);
      if (wasServing || signal !== undefined) say('stopped');
      finished(code);
    })());

  const onStop = (signal: string) => () => void stop(0, signal);
  const forward = (signal: NodeJS.Signals, what: string) => () => {
    const workers = serving();
    say(`${signal}: ${what} in ${workers.length} workers`);
    for (const s of workers) s.worker.process.kill(signal);
  };
  const handlers: Array<[NodeJS.Signals, () => void]> = [
    ['SIGTERM', onStop('SIGTERM')], ['SIGINT', onStop('SIGINT')],
    ['SIGUSR1', forward('SIGUSR1', 'reloading the schema cache')], ['SIGUSR2', forward('SIGUSR2', 'reloading the configuration')],
  ];
  for (const [signal, handler] of handlers) process.on(signal, handler);

  for (let i = 0; i < o.workers; i++) fork();
  try {
    await Promise.race([startup, done.then(() => Promise.reject(new Error('stopped while starting')))]);
    phase = 'serving';
    if (config.adminServerPort !== null || config.adminServerUnixSocket !== null) {
      admin = createAdminServer(isReady, route);
      o.announce(url as string, await listenAdmin(admin, config));
    } else {
      o.announce(url as string, null);
    }
  } catch (e) {
    if (phase !== 'stopping') {
      log.error(`could not start: ${(e as Error).message}`);
      await stop(1);
    }
  }
  const code = await done;
  for (const [signal, handler] of handlers) process.off(signal, handler);
  return code;
}
