// Requests Node's HTTP parser rejects before any handler runs (a head over `maxHeaderSize`, a
// malformed request line) are answered here, in the error model, instead of Node's bare
// `431`/`400` with no body. Nothing of such a request is kept beyond the parser's own bound: the
// answer is written straight to the socket and the connection closed.
import type { Socket } from 'node:net';
import type http from 'node:http';
import { errors } from '../errors/catalog.js';
import { renderError } from '../errors/render.js';
import type { ApiError } from '../errors/types.js';

interface ParserError extends Error {
  readonly code?: string;
  readonly bytesParsed?: number;
  readonly rawPacket?: Buffer;
}

const SP = 0x20;
const CR = 0x0d;
const LF = 0x0a;

/** RFC 3986 characters (a request target); a header line has `:` and usually spaces early on. */
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
/** `GET /x` as opposed to `Name: value`: a method token then a space. */
const REQUEST_LINE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ /;

/**
 * Which part of the head overflowed. Node's parser counts the request target and the header fields
 * against one `maxHeaderSize` and reports both as HPE_HEADER_OVERFLOW, at the end of the span that
 * crossed the limit, in the chunk it was reading (`rawPacket`, offset `bytesParsed`). A request
 * target ends with ` HTTP/1.x`, a header value with CR LF: the byte after the span says which. When
 * the span runs past the chunk, the line it is on decides (a request line starts with a method and a
 * space); a single line longer than a whole read is a target if it is all URI characters.
 */
export function overflowedPart(err: ParserError): 'uri' | 'headers' {
  const raw = err.rawPacket;
  const at = err.bytesParsed ?? 0;
  if (!raw || at <= 0) return 'headers';
  if (at < raw.length) {
    if (raw[at] === SP) return 'uri';
    if (raw[at] === CR || raw[at] === LF || raw[at] === 0x3a) return 'headers';
  }
  const parsed = raw.subarray(0, Math.min(at, raw.length));
  const lineStart = parsed.lastIndexOf(LF) + 1;
  const line = parsed.subarray(lineStart, Math.min(parsed.length, lineStart + 4096)).toString('latin1');
  if (lineStart > 0) return REQUEST_LINE.test(line) ? 'uri' : 'headers';
  return REQUEST_LINE.test(line) || URI_CHARS.test(line) ? 'uri' : 'headers';
}

export function clientErrorFor(err: ParserError, maxHeaderBytes: number): ApiError | null {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return overflowedPart(err) === 'uri'
        ? errors.DBRST605('URI Too Long', { details: `The request line is longer than the server accepts (${maxHeaderBytes} bytes for the request line and headers together)` })
        : errors.DBRST606('Request Header Fields Too Large', { details: `The request headers are larger than the server accepts (${maxHeaderBytes} bytes for the request line and headers together)` });
    case 'ECONNRESET':
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return null; // nobody to answer, or Node's own 408 below
    default:
      return err.code?.startsWith('HPE_') ? errors.DBRST607('Bad Request', { details: 'The request is not a well-formed HTTP/1.1 request' }) : null;
  }
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

/** The `clientError` listener: answers in the error model when the socket can still carry an answer. */
export function onClientError(verbosity: () => 'verbose' | 'minimal', maxHeaderBytes: number, log: (m: string) => void) {
  return (err: ParserError, socket: Socket): void => afterPending(socket, () => answer(err, socket));

  function answer(err: ParserError, socket: Socket): void {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const e = clientErrorFor(err, maxHeaderBytes);
    if (e === null) {
      socket.destroy();
      return;
    }
    log(`${e.status} ${e.code} before the request was read: ${err.code}`);
    const r = renderError(e, verbosity());
    const body = Buffer.from(r.body);
    const head = [`HTTP/1.1 ${r.status} ${REASONS[r.status] ?? ''}`, 'Connection: close', `Content-Length: ${body.length}`];
    for (const [name, value] of Object.entries(r.headers)) head.push(`${name}: ${value}`);
    // The rest of the request is never read: answer, then close.
    socket.end(Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n', 'latin1'), body]));
  }
}

/**
 * Pipelined requests read before the bad one are still being answered on this socket: ours goes
 * after theirs, in order (Node assigns the next queued response when one finishes).
 */
function afterPending(socket: Socket, then: () => void): void {
  const pending = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (!pending || pending.writableFinished) return then();
  let called = false;
  const next = () => {
    if (called) return;
    called = true;
    setImmediate(() => afterPending(socket, then));
  };
  pending.once('finish', next);
  pending.once('close', next);
}
