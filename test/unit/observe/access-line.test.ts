// The access line's two forms (observe/access-line.ts) write the same bytes: the encoder that
// writes into the log ring, and the string other writers take. Events with every kind of field
// (odd names, error codes with escapes, durations and sizes of every magnitude, trace ids, nulls,
// more statuses on one route than the encoder keeps) are written both ways; lines whose id or trace
// id is not ASCII take the string path.
import t from 'tap';
import type { AccessEvent } from '../../../src/observe/access.js';
import { accessLineBound, accessLineText, encodeAccessLine } from '../../../src/observe/access-line.js';

const event = (over: Partial<AccessEvent>): AccessEvent => ({
  id: 'abc123-1', method: 'GET', route: '/items', status: 200, code: null, role: 'anon',
  durationMs: 1.23456, dbMs: 0.5, bytes: 12, traceId: null, ...over,
});

/** Both forms of `e`'s line; the time is the same in both unless the clock's millisecond turned between. */
function both(e: AccessEvent): { text: string; encoded: string | null; bound: number; overran: boolean } {
  const bound = accessLineBound(e);
  const buf = Buffer.alloc(bound + 16, 0xff);
  const end = encodeAccessLine(buf, 8, e);
  const text = accessLineText(e);
  // Bytes past the end it returned are as they were (an early -1 may have written some: the caller ignores them).
  const overran = end >= 0 && !buf.subarray(end).every((b) => b === 0xff);
  return { text, encoded: end < 0 ? null : buf.subarray(8, end).toString('utf8'), bound, overran };
}

const withoutTime = (line: string) => line.replace(/"time":"[^"]*"/, '"time":""');

t.test('the encoded line is the text line, byte for byte, and within its bound', async (t) => {
  const events: AccessEvent[] = [
    event({}),
    event({ route: '/"quoted"', role: 'back\\slash', code: 'my "code"\n', status: 500 }),
    event({ route: '/café', role: 'rôle\u0001', code: 'DBRST301', status: 404 }),
    event({ route: '/ünïcödé/𝄞', role: null, code: '\u2028\u0000é', status: 400 }),
    event({ dbMs: null, bytes: null, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' }),
    event({ status: 499, durationMs: 0, dbMs: 0, bytes: 0 }),
    event({ durationMs: 5e9, dbMs: 1073741.824, bytes: 2 ** 40 }),
    event({ durationMs: Number.NaN, dbMs: 1e21, bytes: 1.5 }),
    event({ method: 'PROPFIND', id: 'ffffff-zzzzzz', status: 201 }),
    ...Array.from({ length: 3000 }, (_, i) => event({
      durationMs: Math.random() * 10 ** (i % 9 - 3),
      dbMs: i % 5 === 0 ? null : Math.random() * 10 ** (i % 7 - 2),
      bytes: i % 7 === 0 ? null : Math.floor(Math.random() * 10 ** (i % 10)),
      status: 100 + (i % 500),
    })),
  ];
  let wrong = 0;
  for (const e of events) {
    const { text, encoded, bound, overran } = both(e);
    if (encoded === null || withoutTime(encoded) !== withoutTime(text) || Buffer.byteLength(text) > bound || overran) {
      if (wrong++ < 5) t.fail(`${JSON.stringify(e)}\n text:    ${text}\n encoded: ${encoded} (bound ${bound}, overran: ${overran})`);
    }
  }
  t.equal(wrong, 0, `all ${events.length} lines the same both ways`);
  // The lines are JSON (NaN aside, which the string form writes as String does).
  t.match(JSON.parse(both(events[3]!).encoded!), { route: '/ünïcödé/𝄞', role: null, code: '\u2028\u0000é', status: 400 });
});

t.test('an id or trace id that is not ASCII takes the string path; any method is encoded', async (t) => {
  t.equal(both(event({ id: 'idé' })).encoded, null);
  t.equal(both(event({ traceId: 'é' })).encoded, null);
  const { text, encoded } = both(event({ method: 'GÉT' }));
  t.equal(withoutTime(encoded!), withoutTime(text));
});

t.test('the time is the clock\'s, in the form the string path writes', async (t) => {
  const before = Date.now();
  const { encoded } = both(event({}));
  const after = Date.now();
  const time = (JSON.parse(encoded!) as { time: string }).time;
  t.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const at = Date.parse(time);
  t.ok(at >= before && at <= after, `${time} within the call`);
});
