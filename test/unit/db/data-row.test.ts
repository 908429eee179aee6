// db/data-row.ts replaces pg-protocol's DataRow parsing with one that decodes on demand, and its
// mergeBuffer with one that never writes into bytes already handed out: the same messages as
// pg-protocol's own parser for any stream of messages however it is cut into reads; a message, or a
// field taken as a view of its bytes, still right when read after many later reads were parsed
// (where pg-protocol's mergeBuffer moves a cut message over them); a long message over many small
// reads copied O(n) bytes, not O(n²).
import { Buffer } from 'node:buffer';
import t from 'tap';
import { DataRow, installDataRowParser, mergeBuffer, originalParser, pgParser } from '../../../src/db/data-row.js';
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
 * (`late`): a message whose bytes were overwritten by a later read's merging shows.
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
  return late ? messages.map(seen) : seenNow;
}

t.test('the patched parser is the one pg uses, and it gives DataRow messages of its own', async (t) => {
  const Parser = pgParser();
  t.equal(Parser.prototype.mergeBuffer, mergeBuffer, 'its mergeBuffer is replaced');
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
  for (let seed = 1; seed <= 300; seed++) {
    const rand = prng(seed);
    const stream = randomStream(rand, 1 + Math.floor(rand() * 12));
    // Some streams in many small reads (a message cut several times), the others in a few.
    const pieces = rand() < 0.3 ? Math.floor(rand() * 40) : Math.floor(rand() * 6);
    const cuts = Array.from({ length: pieces }, () => Math.floor(rand() * stream.length)).sort((a, b) => a - b);
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
  t.pass('300 streams agree');
});

t.test('cut at every offset, and at every pair of offsets: the same messages, read at once or late', async (t) => {
  const Patched = pgParser();
  const Original = originalParser();
  const stream = Buffer.concat([
    dataRow(['first', 'ÆØÅ 🎸 موارد', null, '']),
    otherMessage(prng(7)),
    dataRow(['日本語'.repeat(20), 'x']),
    dataRow([null]),
    dataRow([]),
    dataRow(['last one', '🥁']),
  ]);
  const expected = run(new Original(), [Buffer.from(stream)], false);
  for (let cut = 0; cut <= stream.length; cut++) {
    for (let cut2 = cut; cut2 <= stream.length; cut2++) {
      for (const late of [false, true]) {
        const actual = run(new Patched(), cutAt(stream, cut2 === cut ? [cut] : [cut, cut2]), late);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          t.same(actual, expected, `cuts at ${cut}, ${cut2}, late ${late}`);
          return;
        }
      }
    }
  }
  t.pass('every cut agrees');
});

/**
 * The case where pg-protocol's mergeBuffer moves a cut message to the start of its buffer: a read
 * holding a whole DataRow and the first bytes of the next message, then the rest of that message in
 * a read no longer than the first's parsed part. The DataRow's fields are read (and its raw field
 * checked) only after MANY further reads, each again cut the same way.
 */
function moveCase(Parser: new () => Parser): { rows: Array<{ fields: Array<string | null>; raw: Buffer | null; want: ReadonlyArray<string | null> }> } {
  const parser = new Parser();
  const rows: Array<{ msg: DataRow; raw: Buffer | null; want: ReadonlyArray<string | null> }> = [];
  const rand = prng(5);
  for (let i = 0; i < 200; i++) {
    const want = [`row ${i} `.repeat(1 + (i % 7)) + 'ÆØÅ🎸', i % 3 === 0 ? null : `b${i}`];
    const next = dataRow([`n${i}`]);
    const keep = 1 + Math.floor(rand() * 4); // 1 to 4 bytes of the next message in the first read
    const first = Buffer.concat([dataRow(want), next.subarray(0, keep)]);
    const second = Buffer.from(next.subarray(keep));
    for (const chunk of [first, second]) {
      parser.parse(chunk, (m) => {
        const msg = m as DataRow;
        if (msg.fieldCount === 2) rows.push({ msg, raw: msg.row(0)[0] as Buffer, want });
      });
    }
  }
  return { rows: rows.map(({ msg, raw, want }) => ({ fields: msg.fields, raw, want })) };
}

t.test("a message and a raw field taken early are still right after many later reads (pg-protocol's move case)", async (t) => {
  const { rows } = moveCase(pgParser());
  t.equal(rows.length, 200);
  let right = 0;
  for (const { fields, raw, want } of rows) {
    if (JSON.stringify(fields) === JSON.stringify(want) && raw !== null && raw.equals(Buffer.from(want[0]!, 'utf-8'))) right++;
    else if (right >= 0) {
      t.same({ fields, raw: raw?.toString('utf-8') }, { fields: want, raw: want[0] }, 'a message parsed early (the first wrong one)');
      right = -rows.length; // shown once
    }
  }
  t.equal(right, 200, 'every message and raw field byte-correct');
  // The same with pg-protocol's own mergeBuffer (this module's lazy DataRows): the case does move
  // bytes over messages already handed out, so the test above would catch it.
  const moved = moveCase(originalParser(true)).rows;
  const broken = moved.filter(({ fields, raw, want }) => JSON.stringify(fields) !== JSON.stringify(want) || !raw!.equals(Buffer.from(want[0]!, 'utf-8')));
  t.ok(broken.length > 0, `pg-protocol's mergeBuffer overwrites messages handed out (${broken.length} of 200)`);
});

t.test('a long message over many small reads: O(n) bytes copied, buffers grown by doubling', async (t) => {
  const Patched = pgParser();
  const big = 'ÆØÅ 🎸 '.repeat(100_000); // 1.2 MB
  const stream = Buffer.concat([dataRow([big, 'tail']), dataRow(['after'])]);
  const { copy } = Buffer.prototype;
  const { allocUnsafe } = Buffer;
  for (const step of [100, 1000, 4096]) {
    const parser = new Patched();
    const got: DataRow[] = [];
    let copied = 0;
    let allocated = 0;
    // Counted inside parse() only (mergeBuffer's copies and buffers).
    Buffer.prototype.copy = function (this: Buffer, ...args: Parameters<Buffer['copy']>): number {
      const n = copy.apply(this, args);
      copied += n;
      return n;
    };
    Buffer.allocUnsafe = (size: number): Buffer<ArrayBuffer> => {
      allocated++;
      return allocUnsafe(size);
    };
    try {
      for (let at = 0; at < stream.length; at += step) parser.parse(stream.subarray(at, at + step), (m) => got.push(m as DataRow));
    } finally {
      Buffer.prototype.copy = copy;
      Buffer.allocUnsafe = allocUnsafe;
    }
    t.equal(got.length, 2, `step ${step}: both messages`);
    t.same(got.map((m) => m.fields), [[big, 'tail'], ['after']], `step ${step}: right`);
    t.ok(copied <= 3 * stream.length, `step ${step}: ${copied} bytes copied for a ${stream.length}-byte stream`);
    t.ok(allocated <= Math.ceil(Math.log2(stream.length / step)) + 2, `step ${step}: ${allocated} buffers allocated`);
  }
});

t.test('mergeBuffer alone: appends in its room, else a new buffer of at least twice the pending bytes; never writes before them', async (t) => {
  const state = { buffer: Buffer.alloc(0), bufferOffset: 0, bufferLength: 0 };
  const a = Buffer.from('0123456789');
  mergeBuffer.call(state, a);
  t.equal(state.buffer, a, 'nothing pending: the read itself, not copied');
  // The parser took 7 bytes: 3 pending at the end of the read.
  state.bufferOffset = 7;
  state.bufferLength = 3;
  mergeBuffer.call(state, Buffer.from('ab'));
  t.not(state.buffer, a, 'a read has no room: a new buffer');
  t.equal(a.toString(), '0123456789', 'the read is untouched');
  t.equal(state.buffer.length, 6, 'of max(3 + 2, 2 × 3) bytes');
  t.equal(state.buffer.subarray(state.bufferOffset, state.bufferOffset + state.bufferLength).toString(), '789ab');
  const built = state.buffer;
  mergeBuffer.call(state, Buffer.from('c'));
  t.equal(state.buffer, built, 'room after the pending bytes: appended in place');
  t.equal(state.buffer.toString(), '789abc');
  state.bufferOffset = 4; // the parser took 4 bytes
  state.bufferLength = 2;
  mergeBuffer.call(state, Buffer.from('d'));
  t.not(state.buffer, built, 'no room after them: a new buffer, even though the start of the old is free');
  t.equal(built.toString(), '789abc', 'the bytes handed out stay as they were');
  t.equal(state.buffer.subarray(0, 3).toString(), 'bcd');
});

t.test('row(i): field i as a view of its bytes in the read (no copy), the others decoded; fields stays right after', async (t) => {
  const Patched = pgParser();
  const rand = prng(99);
  for (let n = 0; n < 100; n++) {
    const fields = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => randomField(rand));
    const raw = Math.floor(rand() * fields.length);
    const chunk = dataRow(fields);
    let row: Array<string | Buffer | null> = [];
    let msg: DataRow | null = null;
    const parser = new Patched();
    parser.parse(chunk, (m) => {
      msg = m as DataRow;
      row = msg.row(raw);
    });
    parser.parse(dataRow(['another', 'read']), () => undefined);
    const want = fields.map((f, i) => (i === raw && f !== null ? Buffer.from(f, 'utf-8') : f));
    t.same(row, want, `fields ${JSON.stringify(fields)}, raw ${raw}`);
    if (fields[raw] !== null) t.equal((row[raw] as Buffer).buffer, chunk.buffer, 'a view of the read');
    t.same(msg!.fields, fields, 'fields read later decode the bytes');
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
