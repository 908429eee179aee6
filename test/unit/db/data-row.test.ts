// db/data-row.ts replaces pg-protocol's DataRow parsing with one that decodes on demand: the same
// messages as pg-protocol's own parser for any stream of messages however it is cut into reads,
// fields right even when read after the bytes they came in were overwritten, and a field taken as
// bytes equal to the text's UTF-8.
import { Buffer } from 'node:buffer';
import t from 'tap';
import { DataRow, installDataRowParser, originalParser, pgParser } from '../../../src/db/data-row.js';
import { prng } from '../../helpers/prng.js';

installDataRowParser();

const SAMPLES = ['', 'a', 'plain ascii', 'ÆØÅ æøå', 'موارد', '日本語テキスト', '🎸 riff 🥁', '"quoted", comma\nnewline', 'x'.repeat(300)];

/** A field: null, empty, or text mixing ASCII and multi-byte characters (1 to 4 bytes each). */
function randomField(rand: () => number): string | null {
  const r = rand();
  if (r < 0.15) return null;
  if (r < 0.25) return '';
  let s = '';
  const n = Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) s += SAMPLES[Math.floor(rand() * SAMPLES.length)]!;
  return s;
}

function dataRow(fields: ReadonlyArray<string | null>): Buffer {
  const parts = fields.map((f) => {
    if (f === null) {
      const b = Buffer.alloc(4);
      b.writeInt32BE(-1);
      return b;
    }
    const text = Buffer.from(f, 'utf-8');
    const b = Buffer.alloc(4 + text.length);
    b.writeInt32BE(text.length);
    text.copy(b, 4);
    return b;
  });
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(7);
  head[0] = 0x44; // 'D'
  head.writeUInt32BE(4 + 2 + body.length, 1);
  head.writeInt16BE(fields.length, 5);
  return Buffer.concat([head, body]);
}

/** Another message between the rows: CommandComplete `SELECT n` or ReadyForQuery. */
function otherMessage(rand: () => number): Buffer {
  if (rand() < 0.5) return Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
  const text = Buffer.from(`SELECT ${Math.floor(rand() * 100)}\0`);
  const head = Buffer.alloc(5);
  head[0] = 0x43;
  head.writeUInt32BE(4 + text.length, 1);
  return Buffer.concat([head, text]);
}

function randomStream(rand: () => number, messages: number): Buffer {
  const out: Buffer[] = [];
  for (let m = 0; m < messages; m++) {
    if (rand() < 0.25) out.push(otherMessage(rand));
    else out.push(dataRow(Array.from({ length: Math.floor(rand() * 5) }, () => randomField(rand))));
  }
  return Buffer.concat(out);
}

/** The stream cut at `cuts`, each piece a buffer of its own (as each socket read is). */
function cutAt(stream: Buffer, cuts: ReadonlyArray<number>): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, stream.length]) {
    out.push(Buffer.from(stream.subarray(at, c)));
    at = c;
  }
  return out;
}

/** What a consumer sees of a message. */
const seen = (m: unknown): unknown => {
  const { name, length, fieldCount, fields, text, status } = m as Record<string, unknown>;
  return { name, length, fieldCount, fields, text, status };
};

type Parser = { parse(buffer: Buffer, callback: (msg: unknown) => void): void };

/**
 * Parses `chunks`; each DataRow's fields read in the callback, or only after every chunk was parsed
 * and then overwritten (`late`), so that a message not read in time shows. (Not before: the parser
 * keeps the rest of a read, a message it cuts, in the read's own buffer.)
 */
function run(parser: Parser, chunks: ReadonlyArray<Buffer>, late: boolean): unknown[] {
  const messages: unknown[] = [];
  const seenNow: unknown[] = [];
  for (const chunk of chunks) {
    parser.parse(chunk, (msg) => {
      messages.push(msg);
      if (!late) seenNow.push(seen(msg));
    });
  }
  if (!late) return seenNow;
  for (const chunk of chunks) chunk.fill(0xff); // the reads' buffers reused for something else
  return messages.map(seen);
}

t.test('the patched parser is the one pg uses, and it gives DataRow messages of its own', async (t) => {
  const Parser = pgParser();
  const got: unknown[] = [];
  new Parser().parse(dataRow(['a', null]), (m) => got.push(m));
  t.ok(got[0] instanceof DataRow);
  t.same(seen(got[0]), { name: 'dataRow', length: 15, fieldCount: 2, fields: ['a', null], text: undefined, status: undefined });
  const Original = originalParser();
  const before: unknown[] = [];
  new Original().parse(dataRow(['a', null]), (m) => before.push(m));
  t.notOk(before[0] instanceof DataRow, 'the original parser stays available for comparison');
});

t.test('the same messages as pg-protocol for random streams cut at random places, read at once or late', async (t) => {
  const Patched = pgParser();
  const Original = originalParser();
  for (let seed = 1; seed <= 200; seed++) {
    const rand = prng(seed);
    const stream = randomStream(rand, 1 + Math.floor(rand() * 12));
    const cuts = Array.from({ length: Math.floor(rand() * 6) }, () => Math.floor(rand() * stream.length)).sort((a, b) => a - b);
    const expected = run(new Original(), cutAt(stream, cuts), false);
    t.ok(expected.length > 0);
    for (const late of [false, true]) {
      const actual = run(new Patched(), cutAt(stream, cuts), late);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        t.same(actual, expected, `seed ${seed}, late ${late}`);
        return;
      }
    }
  }
  t.pass('200 streams agree');
});

t.test('a field split across two reads at every offset, several messages per read', async (t) => {
  const Patched = pgParser();
  const Original = originalParser();
  const stream = Buffer.concat([
    dataRow(['first', 'ÆØÅ 🎸 موارد', null, '']),
    otherMessage(prng(7)),
    dataRow(['日本語'.repeat(20), 'x']),
    dataRow([null]),
    dataRow([]),
  ]);
  const expected = run(new Original(), [Buffer.from(stream)], false);
  for (let cut = 0; cut <= stream.length; cut++) {
    for (const late of [false, true]) {
      const actual = run(new Patched(), cutAt(stream, [cut]), late);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        t.same(actual, expected, `cut at ${cut}, late ${late}`);
        return;
      }
    }
  }
  // Three reads: every pair of cuts 5 bytes apart (the parser moves a cut message within its own buffer).
  for (let cut = 0; cut + 5 <= stream.length; cut++) {
    const actual = run(new Patched(), cutAt(stream, [cut, cut + 5]), true);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      t.same(actual, expected, `cuts at ${cut}, ${cut + 5}`);
      return;
    }
  }
  t.pass('every cut agrees');
});

t.test('row(i): field i as a copy of its bytes, the others decoded; fields stays right after', async (t) => {
  const Patched = pgParser();
  const rand = prng(99);
  for (let n = 0; n < 100; n++) {
    const fields = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => randomField(rand));
    const raw = Math.floor(rand() * fields.length);
    const chunk = dataRow(fields);
    let row: Array<string | Buffer | null> = [];
    let msg: DataRow | null = null;
    new Patched().parse(chunk, (m) => {
      msg = m as DataRow;
      row = msg.row(raw);
    });
    chunk.fill(0x41);
    const want = fields.map((f, i) => (i === raw && f !== null ? Buffer.from(f, 'utf-8') : f));
    t.same(row, want, `fields ${JSON.stringify(fields)}, raw ${raw}`);
    if (fields[raw] !== null) t.ok(Buffer.isBuffer(row[raw]));
    t.same(msg!.fields, fields, 'fields read later decode the copy');
  }
});

t.test('row(i) after fields were read gives the same bytes', async (t) => {
  const Patched = pgParser();
  const fields = ['🎸 ÆØÅ', null, 'plain'];
  new Patched().parse(dataRow(fields), (m) => {
    const msg = m as DataRow;
    t.same(msg.fields, fields);
    t.same(msg.row(0), [Buffer.from('🎸 ÆØÅ'), null, 'plain']);
  });
});
