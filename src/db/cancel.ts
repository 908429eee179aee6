// PostgreSQL's cancel request (protocol "CancelRequest"), sent on a connection of its own. The
// promise settles when the server closes that connection, which it does after signalling the
// backend: a caller that waits for it knows the signal can no longer arrive later, e.g. after the
// connection went back to the pool and runs another request's statement.
//
// The request is written without closing our side (as libpq's PQcancel does): PgBouncer drops a
// cancel request whose connection reaches end-of-file before it has forwarded it (1.18 did, every
// time: the statement ran on), while PostgreSQL itself acts on it either way.
import net from 'node:net';
import type pg from 'pg';
import { opsCounters } from '../observe/counters.js';

const CANCEL_CODE = 80877102;
/** A cancel that gets no answer within this is given up (the query then runs to its end). */
const CANCEL_TIMEOUT_MS = 2000;

interface ClientInternals {
  readonly processID: number | null;
  readonly secretKey: number | null;
  readonly connectionParameters: { readonly host: string; readonly port: number };
}

export function sendCancel(client: pg.ClientBase): Promise<void> {
  const c = client as unknown as ClientInternals;
  if (c.processID === null || c.secretKey === null) return Promise.resolve();
  opsCounters.cancelRequests++;
  const { host, port } = c.connectionParameters;
  return new Promise((resolve) => {
    const socket = host.startsWith('/') ? net.connect(`${host}/.s.PGSQL.${port}`) : net.connect(port, host);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, CANCEL_TIMEOUT_MS);
    socket.on('connect', () => {
      const msg = Buffer.alloc(16);
      msg.writeInt32BE(16, 0);
      msg.writeInt32BE(CANCEL_CODE, 4);
      msg.writeInt32BE(c.processID!, 8);
      msg.writeInt32BE(c.secretKey!, 12);
      socket.write(msg);
    });
    socket.on('close', done);
    socket.on('error', done);
  });
}
