// request/memo.ts: a header value parsed once is answered from the table; the table is bounded and
// long values are not kept.
import t from 'tap';
import { memoByText } from '../../src/memo.js';

t.test('a repeated text is parsed once; the table is bounded', async (t) => {
  const parsed: string[] = [];
  const parse = memoByText((s: string) => (parsed.push(s), { of: s }), 2, 8);
  const a = parse('a');
  t.equal(parse('a'), a, 'the same value, not a new parse');
  t.same(parsed, ['a']);
  parse('b');
  parse('c'); // the table was full: dropped whole, then 'c' kept
  parse('a');
  t.same(parsed, ['a', 'b', 'c', 'a'], "'a' was parsed again after the table was dropped");
  t.same(parse('long value'), { of: 'long value' });
  parse('long value');
  t.same(parsed.slice(-2), ['long value', 'long value'], 'a value longer than the limit is not kept');
});
