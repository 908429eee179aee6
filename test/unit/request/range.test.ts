import t from 'tap';

import { parseLimit, parseOffset, parseRangeHeader } from '../../../src/request/grammar/range.js';

t.test('limit and offset are integers; a negative one parses (the planner decides)', async (t) => {
  t.strictSame(parseLimit('-1'), { ok: true, value: -1 });
  t.strictSame(parseOffset(' -4'), { ok: true, value: -4 });
  t.strictSame(parseLimit('0'), { ok: true, value: 0 });
  t.strictSame(parseLimit('25'), { ok: true, value: 25 });
  t.strictSame(parseLimit(' 7 '), { ok: true, value: 7 });
  t.strictSame(parseLimit('007'), { ok: true, value: 7 });
  t.strictSame(parseOffset('100'), { ok: true, value: 100 });
  t.strictSame(parseOffset(String(Number.MAX_SAFE_INTEGER)), { ok: true, value: Number.MAX_SAFE_INTEGER });
  for (const bad of ['abc', '', '-', '--1', '+1', '1.5', '1e3', '0x10', '1 2', '99999999999999999999', '١٢']) {
    const l = parseLimit(bad);
    t.strictSame(l.ok ? null : [l.error.code, l.error.status, l.error.message, l.error.details], ['DBRST100', 400, `failed to parse limit parameter (${bad})`, 'limit must be an integer'], `limit ${bad}`);
    const o = parseOffset(bad);
    t.strictSame(o.ok ? null : [o.error.code, o.error.message, o.error.details], ['DBRST100', `failed to parse offset parameter (${bad})`, 'offset must be an integer'], `offset ${bad}`);
  }
});

t.test('Range header: first-last, first-, anything else ignored', async (t) => {
  t.strictSame(parseRangeHeader('0-9'), { first: 0, last: 9 });
  t.strictSame(parseRangeHeader('10-'), { first: 10, last: null });
  t.strictSame(parseRangeHeader(' 5-5 '), { first: 5, last: 5 });
  t.strictSame(parseRangeHeader('10-5'), { first: 10, last: 5 }, 'inverted ranges reach the planner, which answers 416');
  for (const bad of ['', '-', '-5', 'a-b', '0-a', 'items=0-9', '0-9-10', '0 - 9', '1.5-2', '0-9,20-30', '99999999999999999999-']) {
    t.equal(parseRangeHeader(bad), null, bad);
  }
});
