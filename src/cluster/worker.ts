// The worker side of server-workers > 1: a `dbrest serve` whose parent is a cluster primary. It
// learns the embedded database's URI from the primary, tells it when it serves, and answers the
// primary's admin questions (/ready, /metrics, /config, /schema_cache) from its own state.
import cluster from 'node:cluster';
import type http from 'node:http';
import type { RunningServer } from '../http/start.js';
import { isMessage, type AdminAnswer, type Ask, type Message } from './protocol.js';

const send = (m: Message): void => void process.send?.(m);

/** Waits for the primary's `start` (asked for once this process listens, so it cannot be missed). */
export function joinCluster(): Promise<{ readonly embeddedUri: string | null; readonly startupChecks: boolean }> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown): void => {
      if (!isMessage(m) || m.dbrest !== 'start') return;
      process.off('message', onMessage);
      resolve({ embeddedUri: m.embeddedUri, startupChecks: m.startupChecks });
    };
    process.on('message', onMessage);
    send({ dbrest: 'hello' });
  });
}

/** Collects what an admin route writes (it calls `writeHead(…).end(body)` only). */
function capture(): { res: http.ServerResponse; answer: () => AdminAnswer } {
  let status = 200;
  let headers: Record<string, string | number> = {};
  let body = '';
  const res = {
    writeHead(s: number, h: Record<string, string | number> = {}) {
      status = s;
      headers = h;
      return res;
    },
    end(b?: string) {
      body = b ?? '';
      return res;
    },
  };
  return { res: res as unknown as http.ServerResponse, answer: () => ({ status, headers, body }) };
}

async function answer(server: RunningServer, q: Ask): Promise<Message> {
  const admin = server.admin;
  switch (q.what) {
    case 'ready':
      return { dbrest: 'answer', id: q.id, ready: admin !== null && (await admin.isReady().catch(() => false)) };
    case 'metrics':
      return { dbrest: 'answer', id: q.id, metrics: admin?.metrics ? await admin.metrics.registry.getMetricsAsJSON() : null };
    case 'admin': {
      const { res, answer: got } = capture();
      const served = admin !== null && (await admin.route(q.path, res).catch(() => false));
      return { dbrest: 'answer', id: q.id, admin: served ? got() : null };
    }
  }
}

/** The worker serves: its metrics carry its PID (the primary shows every worker's), it answers the primary's questions. */
export function reportStarted(server: RunningServer): void {
  server.admin?.metrics?.registry.setDefaultLabels({ worker_pid: String(process.pid) });
  process.on('message', (m: unknown) => {
    if (isMessage(m) && m.dbrest === 'ask') void answer(server, m).then(send, () => undefined);
  });
  send({ dbrest: 'started', url: server.url });
}

/** Stopped: close the IPC channel so the process can exit (the primary knows it was on purpose). */
export function leaveCluster(): void {
  if (cluster.worker?.isConnected()) cluster.worker.disconnect();
}
