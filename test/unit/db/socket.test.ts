// db/socket.ts: a pooled connection's socket reads into one buffer of its own and hands pg a copy of
// each read. The bytes must arrive whole and in order, each chunk must keep its bytes after later
// reads (pg's parser holds on to a message cut by a read's end), and the end of the stream and a
// TLS connection must behave as with Node's own socket.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { pgStream, readIntoOwnBuffer } from '../../../src/db/socket.js';

/** A server that writes `payload` in pieces of the given sizes (cycled), then ends. */
function serveInPieces(payload: Buffer, sizes: readonly number[]): Promise<net.Server> {
  const server = net.createServer((s) => {
    let at = 0;
    let i = 0;
    const next = () => {
      while (at < payload.length) {
        const n = sizes[i++ % sizes.length]!;
        const piece = payload.subarray(at, at + n);
        at += piece.length;
        // Some pieces wait for the next turn of the event loop, so reads come in many sizes.
        if (i % 3 === 0) return void setImmediate(() => (s.write(piece), next()));
        s.write(piece);
      }
      s.end();
    };
    next();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

t.test('every byte arrives in order, and a chunk keeps its bytes after later reads', async (t) => {
  // Over 64 KiB in total, with pieces larger than the socket's own buffer, so reads fill it.
  const payload = randomBytes(3 * 1024 * 1024 + 17);
  const server = await serveInPieces(payload, [1, 7_300, 65_536, 100_000, 3, 4_096, 200_001]);
  t.teardown(() => server.close());
  const socket = readIntoOwnBuffer();
  const chunks: Buffer[] = [];
  const copies: Buffer[] = [];
  socket.on('data', (c: Buffer) => {
    chunks.push(c);
    copies.push(Buffer.from(c));
  });
  const ended = new Promise<void>((resolve) => socket.once('end', resolve));
  socket.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await ended;
  t.ok(chunks.length > 1, `${chunks.length} reads`);
  t.ok(Buffer.concat(chunks).equals(payload), 'the chunks, as they are at the end, are the bytes sent');
  t.ok(chunks.every((c, i) => c.equals(copies[i]!)), 'no chunk was overwritten by a later read');
  t.ok(chunks.every((c) => c.length > 0), 'no empty chunk');
  socket.destroy();
});

t.test('a Unix-domain socket (a db-uri with a socket directory as host) reads the same way', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-socket-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const at = path.join(dir, '.s.PGSQL.5432');
  const payload = randomBytes(300_000);
  const server = net.createServer((s) => s.end(payload));
  await new Promise<void>((resolve) => server.listen(at, resolve));
  t.teardown(() => server.close());
  const socket = readIntoOwnBuffer();
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve) => socket.once('end', resolve));
  socket.connect(at);
  await ended;
  t.ok(Buffer.concat(chunks).equals(payload), `${chunks.length} reads, every byte in order`);
  socket.destroy();
});

t.test('the end of the stream closes the socket as Node’s own would', async (t) => {
  const server = await serveInPieces(Buffer.from('bye'), [3]);
  t.teardown(() => server.close());
  const socket = readIntoOwnBuffer();
  const events: string[] = [];
  socket.on('data', (c: Buffer) => events.push(`data ${c.toString()}`));
  socket.on('end', () => events.push('end'));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await closed;
  t.same(events, ['data bye', 'end']);
});

t.test('a TLS connection keeps Node’s own socket (pg reads the SSLRequest answer, then tls wraps it)', async (t) => {
  const plain = pgStream({ ssl: false }) as net.Socket;
  const tls = pgStream({ ssl: { rejectUnauthorized: false } }) as net.Socket;
  const none = pgStream() as net.Socket;
  // Node keeps `onread`'s buffer on the socket under a symbol; Node's own socket has none.
  const ownBuffer = (s: net.Socket) => Object.getOwnPropertySymbols(s).some((k) => (s as unknown as Record<symbol, unknown>)[k] instanceof Uint8Array);
  t.equal(ownBuffer(plain), true, 'ssl off: reads into its own buffer');
  t.equal(ownBuffer(none), true, 'no settings: reads into its own buffer');
  t.equal(ownBuffer(tls), false, 'ssl on: Node’s own socket');
  for (const s of [plain, tls, none]) s.destroy();
});
