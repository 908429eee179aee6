// db/wire.ts writes a batch's messages itself: byte for byte what pg's serializer (pg-protocol,
// the messages pg's Connection would have sent) writes for the same statements and values.
import { createRequire } from 'node:module';
import t from 'tap';
import { startBatch, takeBatch, writeBind, writeCloseStatement, writeDescribePortal, writeExecute, writeParse, writeSync } from '../../../src/db/wire.js';

const require = createRequire(import.meta.url);
interface Serialize {
  parse(q: { text: string; name: string; types: unknown[] }): Buffer;
  bind(c: { portal: string; statement: string; values: unknown[]; valueMapper: (v: unknown, i: number) => unknown }): Buffer;
  describe(c: { type: 'P'; name: string }): Buffer;
  execute(c: { portal: string; rows: number }): Buffer;
  close(c: { type: 'S'; name: string }): Buffer;
  sync(): Buffer;
}
const { serialize } = require('pg-protocol/dist/serializer.js') as { serialize: Serialize };
const { prepareValue } = require('pg/lib/utils.js') as { prepareValue: (v: unknown, seen?: unknown) => unknown };

/** pg's messages for one statement: Close and Parse when asked, Bind, Describe when asked, Execute. */
function pgMessages(name: string, text: string, values: unknown[], opts: { parse: boolean; describe: boolean }): Buffer[] {
  const out: Buffer[] = [];
  if (opts.parse) {
    if (name !== '') out.push(serialize.close({ type: 'S', name }));
    out.push(serialize.parse({ text, name, types: [] }));
  }
  out.push(serialize.bind({ portal: '', statement: name, values, valueMapper: prepareValue }));
  if (opts.describe) out.push(serialize.describe({ type: 'P', name: '' }));
  out.push(serialize.execute({ portal: '', rows: 0 }));
  return out;
}

function ours(name: string, text: string, values: unknown[], opts: { parse: boolean; describe: boolean }): void {
  if (opts.parse) {
    if (name !== '') writeCloseStatement(name);
    writeParse(name, text);
  }
  writeBind(name, values);
  if (opts.describe) writeDescribePortal();
  writeExecute();
}

const long = 'x'.repeat(70_000); // past the writer's first 16 KiB: it grows mid-message
const samples: unknown[] = [
  'search_path', '"public"', '', 'plain ascii of exactly sixty-four characters, to the short path!',
  'é', 'naïve café — 東京 😀', `${'a'.repeat(63)}é`, 'lone \ud800 surrogate', 'nul\u0000inside', 'ÿ',
  null, undefined, 42, 1.5, -7n, true, false,
  Buffer.from([0, 1, 2, 255]), new Uint8Array([9, 8, 7]),
  ['a', 'b,c', null, ['nested']], { json: ['object', 1, null] }, new Date(Date.UTC(2024, 1, 29, 12, 0, 0)),
  long, JSON.stringify({ first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', country: 'Norway' }),
];

t.test('a batch is the bytes pg writes for the same messages', async (t) => {
  const cases: Array<[string, string, unknown[], { parse: boolean; describe: boolean }]> = [
    ['dbrest_0123456789abcdef0123', 'SELECT pg_catalog.num_nulls(pg_catalog.set_config($1, $2, true))', ['role', 'web_anon'], { parse: true, describe: false }],
    ['dbrest_0123456789abcdef0123', 'SELECT pg_catalog.num_nulls(pg_catalog.set_config($1, $2, true))', ['role', 'web_anon'], { parse: false, describe: false }],
    ['', 'SELECT $1::text, "ταμείο".x', samples, { parse: true, describe: true }],
    ['dbrest_named', 'INSERT INTO t SELECT * FROM json_populate_record(null::t, $1)', samples, { parse: false, describe: true }],
    ['', 'BEGIN', [], { parse: true, describe: false }],
    // All strings: ASCII ones are encoded together, a non-ASCII one sends the bind value by value.
    ['', 'SELECT $1, $2, $3', ['request.method', 'POST', '{"accept":"application/json"}'], { parse: true, describe: false }],
    ['', 'SELECT $1, $2, $3', ['request.path', '/ταμείο', 'x'], { parse: true, describe: false }],
    ['', 'SELECT $1, $2', ['lone \udc00', 'y'], { parse: true, describe: false }],
    ['', 'SELECT $1, $2', [long, ''], { parse: true, describe: false }],
  ];
  for (const vs of [[], ['one'], samples]) cases.push(['', 'SELECT 1', vs, { parse: true, describe: true }]);

  startBatch();
  const expected: Buffer[] = [];
  for (const [name, text, vs, opts] of cases) {
    expected.push(...pgMessages(name, text, vs, opts));
    ours(name, text, vs, opts);
  }
  expected.push(serialize.sync());
  writeSync();
  const got = takeBatch();
  t.ok(Buffer.concat(expected).equals(got), 'the same bytes');
  t.equal(got.length, Buffer.concat(expected).length);

  // The next batch starts empty, and what the first wrote is its own copy.
  const copy = Buffer.from(got);
  startBatch();
  writeSync();
  t.same([...takeBatch()], [...serialize.sync()], 'a batch of its own');
  t.ok(got.equals(copy), 'an earlier batch is not overwritten');
});

t.test('a value that cannot be serialised throws, and the next batch is whole', async (t) => {
  startBatch();
  writeParse('', 'SELECT $1');
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  t.throws(() => writeBind('', [circular]), 'pg refuses it too');
  t.throws(() => serialize.bind({ portal: '', statement: '', values: [circular], valueMapper: prepareValue }));
  startBatch();
  ours('', 'SELECT $1', ['ok'], { parse: true, describe: true });
  writeSync();
  t.ok(takeBatch().equals(Buffer.concat([...pgMessages('', 'SELECT $1', ['ok'], { parse: true, describe: true }), serialize.sync()])));
});
