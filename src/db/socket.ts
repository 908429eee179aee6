// The socket of a pooled PostgreSQL connection. Node 20 hands each read to JavaScript in a buffer of
// the read's size that it allocates zero-filled and copies the bytes into (in W2's callgrind dump:
// calloc ← ArrayBufferAllocator ← NewBackingStore ← uv__read, once a request for the answer): for
// W2's answer of some 7,300 bytes, calloc's memset alone was 7,320 of the ~245,000 main-thread
// instructions of a request. Here the socket
// reads into one buffer of its own (net.Socket's `onread`), and each read is copied out into a buffer
// that is not zero-filled first (Buffer.allocUnsafe: a slice of Node's pool under 4 KiB), then
// handed to pg as the 'data' event it listens for. pg's parser keeps a chunk past the read (a
// message cut by the read's end), so the reused buffer itself is never handed on.
//
// Plain TCP and Unix sockets only: a TLS connection is set up on the socket (pg reads the server's
// answer to its SSLRequest, then tls.connect wraps it), so with `ssl` pg gets Node's own socket.
import { Buffer } from 'node:buffer';
import net from 'node:net';
import type { Duplex } from 'node:stream';

/** Node's own read size (libuv is asked for 64 KiB at a time). */
const READ_BYTES = 64 * 1024;

export function readIntoOwnBuffer(): net.Socket {
  const into = Buffer.allocUnsafeSlow(READ_BYTES);
  // Node's Socket constructor takes `onread` as net.connect does; @types/node lists it for connect only.
  const options: net.SocketConstructorOpts & { readonly onread: net.OnReadOpts } = {
    onread: {
      buffer: into,
      callback: (n: number): boolean => {
        const chunk = Buffer.allocUnsafe(n);
        into.copy(chunk, 0, 0, n);
        socket.emit('data', chunk);
        return true; // false would pause the socket
      },
    },
  };
  const socket: net.Socket = new net.Socket(options);
  return socket;
}

/** pg's `stream` option: called with the connection's settings, `ssl` among them. */
export function pgStream(settings?: { readonly ssl?: unknown }): Duplex {
  return settings?.ssl ? new net.Socket() : readIntoOwnBuffer();
}
