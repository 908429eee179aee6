// A long streamed answer does not grow V8's young generation (http/young-gen.ts): rows pass
// through in batches, and without the hold V8 doubles the young generation's semi-spaces once
// enough bytes have survived scavenges in total, which a long answer always reaches (about 16 MB
// of RSS per doubling, the largest part of what streaming a million rows cost). Observed in this
// process, which runs the server: the hold is taken while rows stream and given back after. (The
// RSS it saves is measured by `npm run bench` W6: a young generation already at its maximum, as a
// test process's often is, cannot show it.)
import http from 'node:http';
import v8 from 'node:v8';
import t from 'tap';
import { streamsHoldingYoungGeneration } from '../../../src/http/young-gen.js';
import { startTestServer } from '../../helpers/server.js';
import { STREAM_SQL } from './fixture.js';

const CONFIG = { 'db-schemas': 'stream', 'db-anon-role': 'stream_anon', 'server-stream-threshold': '2' };

const newSpace = (): number => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

/** Reads `limit` bytes of a streamed GET, calling `tick` on every chunk; the bytes read. */
function read(url: string, limit: number, tick: () => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Accept: 'application/x-ndjson' }, agent: false }, (res) => {
      let got = 0;
      res.on('data', (b: Buffer) => {
        got += b.length;
        tick();
        if (got >= limit) {
          req.destroy();
          resolve(got);
        }
      });
      res.on('end', () => resolve(got));
    });
    req.on('error', (e) => (e.message === 'socket hang up' ? undefined : reject(e)));
  });
}

t.test('a long streamed answer leaves the young generation as it found it', async (t) => {
  const s = await startTestServer(t, { fixtures: [STREAM_SQL], config: CONFIG });
  // A small answer first: the server is warm and its young generation has whatever size it takes.
  t.equal((await s.request('/huge?limit=100')).status, 200);
  const before = newSpace();
  let largest = before;
  let holding = 0;
  const got = await read(s.url + '/huge', 40 * 1024 * 1024, () => {
    largest = Math.max(largest, newSpace());
    holding = Math.max(holding, streamsHoldingYoungGeneration());
  });
  t.comment(`new space ${(before / 1048576).toFixed(1)} MB before, at most ${(largest / 1048576).toFixed(1)} MB during ${(got / 1048576).toFixed(0)} MB streamed`);
  t.ok(got >= 40 * 1024 * 1024, 'the answer was read');
  t.equal(holding, 1, 'the stream held the young generation while it ran');
  t.ok(largest <= before, 'and the young generation did not grow');
  // Once the stream has ended (the client went away: the cursor closes), V8's own policy is back.
  const start = performance.now();
  while (streamsHoldingYoungGeneration() !== 0 && performance.now() - start < 5000) await new Promise((r) => setTimeout(r, 10));
  t.equal(streamsHoldingYoungGeneration(), 0, 'released when the stream ended');
});

