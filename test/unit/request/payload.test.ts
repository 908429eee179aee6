// request/payload.ts: a body that is not UTF-8 is refused (DBRST102, with the offset of the first
// bad byte) while one that is, U+FFFD in it included, is read. The check looks at the decoded text
// first (a U+FFFD in it), then at the bytes: the answers must be those of checking every body's
// bytes. Seeded, so a failure reproduces.
import { Buffer, isUtf8 } from 'node:buffer';
import t from 'tap';
import { parsePayload } from '../../../src/request/payload.js';
import { prng } from '../../helpers/prng.js';

const rand = prng(0x5ca7);
const int = (n: number) => Math.floor(rand() * n);

const CSV = { type: 'text', subtype: 'csv', params: {} } as never;
const PLAIN = { type: 'text', subtype: 'plain', params: {} } as never;
const table = { columns: null, forCall: false };

t.test('invalid bytes are refused with their offset; a U+FFFD that was sent is kept', async (t) => {
  const bad = parsePayload(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), null, table);
  t.same(bad.ok ? null : [bad.error.code, bad.error.message, bad.error.details], ['DBRST102', 'Empty or invalid json', 'The request body is not valid UTF-8: invalid byte sequence at byte 6']);
  const csv = parsePayload(Buffer.from([0x61, 0x0a, 0xff]), CSV, table);
  t.same(csv.ok ? null : [csv.error.message, csv.error.details], ['The request body is not valid UTF-8', 'The request body is not valid UTF-8: invalid byte sequence at byte 2']);
  const replacement = parsePayload(Buffer.from('{"a":"\ufffd"}'), null, table);
  t.same(replacement.ok && replacement.value.kind === 'json' ? [replacement.value.text, replacement.value.keys] : null, ['{"a":"\ufffd"}', ['a']]);
  const both = parsePayload(Buffer.concat([Buffer.from('{"a":"\ufffd'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), null, table);
  t.same(both.ok ? null : both.error.details, 'The request body is not valid UTF-8: invalid byte sequence at byte 9', 'a U+FFFD sent before a surrogate encoded in UTF-8');
  const text = parsePayload(Buffer.from([0xff]), PLAIN, { columns: null, forCall: true });
  t.same(text.ok ? null : text.error.message, 'The request body is not valid UTF-8');
  const empty = parsePayload(null, null, { columns: null, forCall: true });
  t.same(empty.ok && empty.value.kind === 'json' ? empty.value.text : null, '{}');
});

t.test('random bytes: refused exactly when they are not UTF-8', async (t) => {
  // Bytes around the edges of UTF-8: ASCII, continuation bytes, lead bytes, overlongs, surrogates, U+FFFD.
  const PIECES = [[0x61], [0x80], [0xbf], [0xc0, 0x80], [0xc2, 0xa9], [0xe0, 0x80, 0x80], [0xe0, 0xa0, 0x80], [0xed, 0xa0, 0x80], [0xef, 0xbf, 0xbd],
    [0xf0, 0x9f, 0x98, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5], [0xff], [0xe2, 0x82], [0xf0, 0x9f]];
  let refused = 0;
  for (let i = 0; i < 5_000; i++) {
    const bytes = Buffer.from(Array.from({ length: int(6) }, () => PIECES[int(PIECES.length)]!).flat());
    // As CSV, so that valid text is read whatever it says (a header line of one field).
    const p = parsePayload(Buffer.concat([Buffer.from('"'), bytes, Buffer.from('"\n')]), CSV, table);
    const valid = isUtf8(bytes);
    if (!valid) refused++;
    if (p.ok !== valid || (!p.ok && p.error.message !== 'The request body is not valid UTF-8')) {
      t.fail(`${bytes.toString('hex')}: ${JSON.stringify(p)} where isUtf8 says ${valid}`);
      return;
    }
  }
  t.ok(refused > 1_000 && refused < 4_500, `${refused} of 5,000 refused`);
});
