// A request line or header block over the server's limit (64 KiB for the head, http/server.ts) is
// answered 414 / 431 in the error model with a JSON body, and a request the HTTP parser cannot read
// 400, instead of Node's bare status line. Raw sockets: the exact bytes sent matter, and clients
// like undici would refuse some of them.
import net from 'node:net';
import t, { type Test } from 'tap';
import { startTestServer } from '../../helpers/server.js';

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The server closed the connection after answering. */
  readonly closed: boolean;
}

/** Sends `pieces` (one write each, `gapMs` apart) and reads until the server closes. */
function rawRequest(url: string, pieces: ReadonlyArray<string>, gapMs = 0): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may close while we are still writing: EPIPE/ECONNRESET on our side is expected.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split === -1) return reject(new Error(`no response: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4), closed: true });
    });
    socket.on('connect', async () => {
      for (const p of pieces) {
        if (socket.destroyed) break;
        socket.write(p);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}

const KB = 1024;
const longList = (bytes: number) => `/items?id=in.(${Array.from({ length: Math.ceil(bytes / 7) }, (_, i) => 100000 + i).join(',')})`;

t.test('head limits', async (t) => {
  const s = await startTestServer(t, {
    fixtures: ['CREATE TABLE items (id int PRIMARY KEY); INSERT INTO items VALUES (100001), (100002);'],
    config: { 'db-anon-role': 'postgres' },
  });

  const expect414 = (t: Test, res: RawResponse) => {
    t.equal(res.status, 414);
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST605');
    t.equal(res.headers.connection, 'close');
    t.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body));
    t.same(JSON.parse(res.body), {
      code: 'DBRST605',
      details: 'The request line is longer than the server accepts (65536 bytes for the request line and headers together)',
      hint: null,
      message: 'URI Too Long',
    });
  };
  const expect431 = (t: Test, res: RawResponse) => {
    t.equal(res.status, 431);
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST606');
    t.same(JSON.parse(res.body), {
      code: 'DBRST606',
      details: 'The request headers are larger than the server accepts (65536 bytes for the request line and headers together)',
      hint: null,
      message: 'Request Header Fields Too Large',
    });
  };

  t.test('a long URL within the limit is served', async (t) => {
    const res = await rawRequest(s.url, [`GET ${longList(40 * KB)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
    t.equal(res.status, 200);
    t.same(JSON.parse(res.body), [{ id: 100001 }, { id: 100002 }]);
  });

  for (const size of [70 * KB, 100 * KB, 1024 * KB]) {
    t.test(`a ${size / KB} KiB URL in one write: 414 DBRST605`, async (t) => {
      expect414(t, await rawRequest(s.url, [`GET ${longList(size)} HTTP/1.1\r\nHost: x\r\n\r\n`]));
    });
  }

  t.test('a 100 KiB URL sent in 4 KiB pieces: 414', async (t) => {
    const line = `GET ${longList(100 * KB)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const pieces = [];
    for (let i = 0; i < line.length; i += 4 * KB) pieces.push(line.slice(i, i + 4 * KB));
    expect414(t, await rawRequest(s.url, pieces, 2));
  });

  t.test('one 100 KiB header: 431 DBRST606', async (t) => {
    expect431(t, await rawRequest(s.url, [`GET /items HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(100 * KB)}\r\n\r\n`]));
  });

  t.test('a 100 KiB cookie header: 431', async (t) => {
    const cookie = Array.from({ length: 10000 }, (_, i) => `c${i}=v${i}`).join('; ');
    expect431(t, await rawRequest(s.url, [`GET /items HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\n\r\n`]));
  });

  t.test('many headers, 120 KiB together: 431', async (t) => {
    const headers = Array.from({ length: 3000 }, (_, i) => `X-H${i}: ${'v'.repeat(30)}\r\n`).join('');
    expect431(t, await rawRequest(s.url, [`GET /items HTTP/1.1\r\nHost: x\r\n${headers}\r\n`]));
  });

  t.test('many headers sent in pieces: 431', async (t) => {
    const headers = Array.from({ length: 3000 }, (_, i) => `X-H${i}: ${'v'.repeat(30)}\r\n`);
    const pieces = [`GET /items HTTP/1.1\r\nHost: x\r\n`];
    for (let i = 0; i < headers.length; i += 100) pieces.push(headers.slice(i, i + 100).join(''));
    expect431(t, await rawRequest(s.url, [...pieces, '\r\n'], 2));
  });

  t.test('a long URL after a served request on the same connection: 200 then 414', async (t) => {
    const res = await new Promise<string>((resolve) => {
      const { hostname, port } = new URL(s.url);
      const socket = net.connect(Number(port), hostname);
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
      socket.write(`GET /items?id=eq.100001 HTTP/1.1\r\nHost: x\r\n\r\nGET ${longList(100 * KB)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    const statuses = [...res.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    t.same(statuses, [200, 414]);
    t.match(res, /"code":"DBRST605"/);
  });

  t.test('a malformed request line: 400 DBRST607', async (t) => {
    const res = await rawRequest(s.url, ['GET /items HTTP/1.1 extra\r\nHost: x\r\n\r\n']);
    t.equal(res.status, 400);
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST607');
    t.same(JSON.parse(res.body), { code: 'DBRST607', details: 'The request is not a well-formed HTTP/1.1 request', hint: null, message: 'Bad Request' });
  });

  t.test('the server still serves after all that', async (t) => {
    const res = await s.request('/items?order=id');
    t.equal(res.status, 200);
    t.same(res.json(), [{ id: 100001 }, { id: 100002 }]);
  });
});

t.test('client-error-verbosity=minimal applies to these answers too', async (t) => {
  const s = await startTestServer(t, { config: { 'client-error-verbosity': 'minimal' } });
  const res = await rawRequest(s.url, [`GET /${'a'.repeat(100 * KB)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
  t.equal(res.status, 414);
  t.same(JSON.parse(res.body), { code: 'DBRST605', message: 'URI Too Long' });
});
