// The JSON access line (observe/json-log.ts) is written by hand, not by pino: its text must still
// be JSON whatever a route, role or error code holds, and its time the clock's, to the millisecond,
// on both sides of a second's end (the lines of one second share its formatted start).
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AccessEvent } from '../../../src/observe/access.js';
import { createJsonLogger } from '../../../src/observe/json-log.js';

const event = (over: Partial<AccessEvent>): AccessEvent => ({
  id: 'abc123-1', method: 'GET', route: '/items', status: 200, code: null, role: 'anon',
  durationMs: 1.23456, dbMs: 0.5, bytes: 12, traceId: null, ...over,
});

t.test('names with quotes, backslashes, control and non-ASCII characters are escaped', async (t) => {
  const lines: string[] = [];
  const log = createJsonLogger('info', (l) => void lines.push(l));
  const odd = [
    { route: '/"quoted"', role: 'back\\slash', code: 'my "code"\n' },
    { route: '/café', role: 'rôle\u0001', code: 'DBRST301' },
    { route: '/"quoted"', role: 'back\\slash', code: null }, // quoted once, then from the memo
  ];
  for (const o of odd) log.access(event({ ...o, status: 500, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' }));
  t.equal(lines.length, 3);
  lines.forEach((l, i) => {
    const e = JSON.parse(l) as Record<string, unknown>;
    t.match(e, { level: 'error', name: 'dbrest', event: 'request', id: 'abc123-1', method: 'GET', status: 500, ...odd[i], trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' });
    t.equal(e.duration_ms, 1.235);
  });
});

t.test('durations are written as String(Math.round(ms * 1000) / 1000) writes them', async (t) => {
  const lines: string[] = [];
  const log = createJsonLogger('info', (l) => void lines.push(l));
  const fixed = [0, 0.0004, 0.0005, 0.001, 0.01, 0.1, 1, 1.2, 1.23, 1.235, 1.2345, 10.05, 10.5, 100.25, 999.9995, 123456.789, 1e7 + 0.001, 1073741.823, 1073741.824, 5e9];
  // and random ones of every magnitude a request can take
  const random = Array.from({ length: 2000 }, (_, i) => Math.random() * 10 ** (i % 8 - 2));
  const all = [...fixed, ...random];
  for (const ms of all) log.access(event({ durationMs: ms, dbMs: ms / 3 }));
  let wrong = 0;
  lines.forEach((l, i) => {
    const want = (x: number) => String(Math.round(x * 1000) / 1000);
    if (!l.includes(`"duration_ms":${want(all[i]!)},"db_ms":${want(all[i]! / 3)},`)) {
      if (wrong++ < 5) t.fail(`${all[i]}: ${l}`);
    }
  });
  t.equal(wrong, 0, `all ${all.length} durations written as before`);
});

t.test('each line carries the time it was written, to the millisecond, across a second\'s end', async (t) => {
  const lines: string[] = [];
  const log = createJsonLogger('info', (l) => void lines.push(l));
  const seconds = new Set<number>();
  const deadline = Date.now() + 2500;
  // Lines in bursts (several in one millisecond share its time) until three seconds were seen.
  while (seconds.size < 3 && Date.now() < deadline) {
    for (let i = 0; i < 3; i++) {
      const before = Date.now();
      log.access(event({}));
      const after = Date.now();
      const time = (JSON.parse(lines.at(-1)!) as { time: string }).time;
      t.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const at = Date.parse(time);
      if (at < before || at > after) t.fail(`${time} is not between ${new Date(before).toISOString()} and ${new Date(after).toISOString()}`);
      seconds.add(Math.floor(at / 1000));
    }
    await sleep(7);
  }
  t.equal(seconds.size, 3, 'lines in three different seconds');
});
