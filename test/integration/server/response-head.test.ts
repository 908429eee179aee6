// The response head as it goes on the wire: the names and order of its headers, whatever SQL sets
// through response.headers (a name in another case replaces ours, names that are integers, a
// value past ASCII sent as its UTF-8 bytes, a Content-Length SQL claims),
// and the Content-Length of an empty answer, a 204 and a HEAD.
import net from 'node:net';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const quickstart = 'examples/quickstart/schema.sql';

const fixture = `
  CREATE TABLE notes (id serial PRIMARY KEY, body text);
  GRANT SELECT, INSERT, UPDATE ON notes TO web_anon;
  GRANT USAGE ON SEQUENCE notes_id_seq TO web_anon;
  CREATE VIEW odd_headers AS SELECT set_config('response.headers',
    '[{"X-B": "1"}, {"7": "seven"}, {"__proto__": "p"}, {"content-type": "text/plain"}, {"x-b": "2"}, {"3": "three"}, {"X-Name": "café"}, {"Content-Length": "999"}]', true) AS x;
  GRANT SELECT ON odd_headers TO web_anon;
  CREATE FUNCTION void_len() RETURNS void LANGUAGE sql AS $$ SELECT set_config('response.headers', '[{"Content-Length": "5"}, {"X-A": "1"}]', true) $$;
  GRANT EXECUTE ON FUNCTION void_len() TO web_anon;
`;

/** The head of the answer to `request` (raw HTTP/1.1), its Date and request id blanked. */
function head(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let got = Buffer.alloc(0);
    socket.on('data', (b: Buffer) => {
      got = Buffer.concat([got, b]);
      const end = got.indexOf('\r\n\r\n');
      if (end !== -1) {
        socket.destroy();
        resolve(got.subarray(0, end).toString('latin1').replace(/^Date: .*$/m, 'Date: -').replace(/^X-Request-Id: .*$/m, 'X-Request-Id: -'));
      }
    });
    socket.on('error', reject);
  });
}

t.test('response heads, byte for byte', async (t) => {
  const s = await startTestServer(t, { fixtures: [quickstart, fixture], config: { 'db-anon-role': 'web_anon' } });
  const get = await head(s.url, 'GET /odd_headers HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  t.equal(get, [
    'HTTP/1.1 200 OK',
    '3: three',
    '7: seven',
    'Vary: Accept, Prefer, Range',
    'Content-Range: 0-0/*',
    'Content-Location: /odd_headers',
    'X-B: 1',
    'X-B: 2',
    '__proto__: p',
    'content-type: text/plain',
    `X-Name: ${Buffer.from('café').toString('latin1')}`,
    'X-Request-Id: -',
    'Content-Length: 202',
    'Date: -',
    'Connection: close',
  ].join('\r\n'), 'integer names first (as an object kept them), then in the order set; SQL\'s spelling wins; a header named `__proto__` too, as PostgREST sends it');

  const minimal = await head(s.url, 'POST /notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nPrefer: return=minimal\r\nContent-Length: 13\r\nConnection: close\r\n\r\n{"body":"hi"}');
  t.equal(minimal, ['HTTP/1.1 201 Created', 'Vary: Accept, Prefer, Range', 'Content-Range: */*', 'Preference-Applied: return=minimal', 'X-Request-Id: -', 'Content-Length: 0', 'Date: -', 'Connection: close'].join('\r\n'));

  const none = await head(s.url, 'POST /rpc/void_len HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
  t.equal(none, ['HTTP/1.1 204 No Content', 'Vary: Accept, Prefer, Range', 'Content-Range: 0-0/*', 'X-A: 1', 'X-Request-Id: -', 'Date: -', 'Connection: close'].join('\r\n'), 'a 204 has no Content-Length, whatever SQL claims');

  const headReq = await head(s.url, 'HEAD /notes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  t.equal(headReq, ['HTTP/1.1 200 OK', 'Vary: Accept, Prefer, Range', 'Content-Range: 0-0/*', 'Content-Type: application/json; charset=utf-8', 'Content-Location: /notes', 'X-Request-Id: -', 'Date: -', 'Connection: close'].join('\r\n'));
});
