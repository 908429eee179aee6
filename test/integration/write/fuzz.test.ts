// No write or function call makes the server answer 500, hang or keep part of a failed request:
// thousands of generated hostile-but-plausible requests (seeded, so a failure reproduces) —
// POST/PATCH/PUT/DELETE on write.sql's tables and views, GET/POST on its functions — with malformed
// and mistyped JSON, CSV, form and raw bodies, invalid UTF-8, hostile `columns=`/`on_conflict=`/
// `select=`, bad filters and Prefer combinations. Every answer is < 500, every error is in the error
// model (JSON body with code and message, Proxy-Status header), and afterwards the tables that only
// ever received requests that must fail (or that were rolled back) are unchanged.
//
// The requests run in four lanes, one per group of tables that can lock each other (foreign keys,
// triggers, functions writing tables): each lane is sequential and the lanes run concurrently, so
// the run is deterministic (no deadlock between fuzz requests, the same database states) while the
// server still sees concurrent requests.
import t from 'tap';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { startWriteServer, tableRows } from './write-server.js';
import { prng } from '../../helpers/prng.js';

const COUNT = Number(process.env.DBREST_FUZZ_COUNT ?? 10_000);
/** Another seed explores other requests; a failure names the seed it was found with. */
const SEED = Number(process.env.DBREST_FUZZ_SEED ?? 20261122);

interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer | ReadonlyArray<Buffer>;
  /** Built to fail (a doomed write): must answer >= 400. */
  readonly mustFail?: boolean;
  /**
   * The body (read as text) or the query string holds bytes that are not UTF-8: it may not be
   * accepted (2xx), since the text stored or matched would not be the text sent.
   */
  readonly invalidUtf8?: boolean;
}

type Rand = () => number;
const pickFrom = (rand: Rand) => <T>(a: ReadonlyArray<T>): T => a[Math.floor(rand() * a.length)]!;

// ---- the fixture, as the generator sees it -------------------------------------------------------

type ColType = 'int' | 'bigint' | 'text' | 'bool' | 'numeric' | 'text[]' | 'jsonb' | 'timestamptz';

const RELATIONS: Readonly<Record<string, ReadonlyArray<readonly [string, ColType]>>> = {
  clients: [['id', 'int'], ['name', 'text']],
  projects: [['id', 'int'], ['name', 'text'], ['client_id', 'int'], ['status', 'text'], ['budget', 'numeric'], ['tags', 'text[]'], ['meta', 'jsonb']],
  tasks: [['id', 'int'], ['project_id', 'int'], ['name', 'text'], ['done', 'bool']],
  project_clients: [['id', 'int'], ['name', 'text'], ['client', 'text']],
  client_counts: [['client_id', 'int'], ['n', 'bigint']],
  items: [['id', 'int'], ['name', 'text'], ['qty', 'int']],
  items_view: [['id', 'int'], ['name', 'text'], ['qty', 'int']],
  compound: [['k1', 'int'], ['k2', 'text'], ['v', 'text']],
  no_pk: [['a', 'int'], ['b', 'text']],
  defaults: [['id', 'int'], ['label', 'text'], ['n', 'int'], ['counter', 'bigint'], ['stamp', 'timestamptz'], ['plain', 'text']],
  employees: [['id', 'int'], ['name', 'text'], ['salary', 'int']],
  bulk: [['id', 'int'], ['v', 'text']],
  deferred_checks: [['id', 'int'], ['parent', 'int']],
  audit: [['id', 'int'], ['note', 'text']],
  nope: [['id', 'int'], ['x', 'text']],
};

const PRIMARY_KEYS: Readonly<Record<string, ReadonlyArray<string>>> = {
  clients: ['id'], projects: ['id'], tasks: ['id'], items: ['id'], compound: ['k1', 'k2'], employees: ['id'],
  defaults: ['id'], bulk: ['id'], deferred_checks: ['id'], audit: ['id'], items_view: ['id'], project_clients: ['id'],
};

/** Function → its input parameters (name, type); '' is an unnamed parameter. */
const FUNCTIONS: Readonly<Record<string, ReadonlyArray<readonly [string, ColType | 'json' | 'bytea' | 'int[]']>>> = {
  add: [['a', 'int'], ['b', 'int']],
  add_default: [['a', 'int'], ['b', 'int']],
  hello: [],
  echo_json: [['', 'json']],
  text_length: [['', 'text']],
  bytes_length: [['', 'bytea']],
  named_json: [['payload', 'jsonb']],
  overloaded: [['a', 'int'], ['b', 'int']],
  ambiguous: [['x', 'int']],
  vsum: [['xs', 'int[]']],
  all_items: [],
  get_item: [['item_id', 'int']],
  item_names: [['min_qty', 'int']],
  numbers: [['n', 'int']],
  client_projects: [['client', 'int']],
  write_audit: [['note', 'text']],
  new_item: [['id', 'int'], ['name', 'text']],
  new_items: [['n', 'int']],
  random_number: [],
  fail_with: [['msg', 'text']],
  accepted: [],
  greet: [['name', 'text'], ['greeting', 'text']],
  get_path: [],
  nope: [['a', 'int']],
};

interface Lane {
  readonly tables: ReadonlyArray<string>;
  readonly functions: ReadonlyArray<string>;
  readonly embeds: ReadonlyArray<string>;
}

/** Groups of relations and functions that may lock each other; lane 3 is the guarded one. */
const LANES: ReadonlyArray<Lane> = [
  {
    tables: ['clients', 'projects', 'tasks', 'project_clients', 'client_counts'],
    functions: ['client_projects', 'hello', 'get_path', 'accepted', 'greet'],
    embeds: ['clients', 'projects', 'tasks', 'client_counts', 'client:clients', 'projects!inner', 'tasks!projects', 'clients!client_id', 'nope'],
  },
  {
    tables: ['items', 'items_view'],
    functions: ['new_item', 'new_items', 'get_item', 'all_items', 'item_names', 'add', 'add_default'],
    embeds: ['items', 'items_view', 'clients', 'nope', 'items!inner'],
  },
  {
    tables: ['compound', 'no_pk', 'defaults', 'nope'],
    functions: ['echo_json', 'text_length', 'bytes_length', 'named_json', 'overloaded', 'ambiguous', 'vsum', 'numbers', 'fail_with', 'random_number', 'nope'],
    embeds: ['compound', 'no_pk', 'defaults', 'nope', 'items'],
  },
  { tables: ['employees', 'audit'], functions: ['write_audit'], embeds: ['employees', 'audit', 'nope'] },
];

// ---- pieces ---------------------------------------------------------------------------------------

const HOSTILE_NAMES = ['nope', 'ID', 'id;drop table items', 'a b', ' ', 'name->x', 'id::text', '\u00e9', '*', 'x'.repeat(80), 'ctid', 'tableoid', 'pgrst_body', 'json_data', '_', '"id"', 'id)', '$1', 'null'];
const OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'in', 'is', 'cs', 'cd', 'ov', 'fts', 'match', 'isdistinct', 'eqq', 'sl', ''];
const FILTER_VALUES = ['1', '2', '0', '-1', 'abc', 'null', 'true', '(1,2)', '{1,2}', '', '%', "'", '"', '\\', '1e309', 'NaN', '(', '99999999999999999999', '\u0000', '2024-01-01'];
const PREFERS = [
  'return=minimal', 'return=headers-only', 'return=representation', 'return=representation', 'return=bogus',
  'resolution=merge-duplicates', 'resolution=ignore-duplicates', 'resolution=nope',
  'missing=default', 'missing=null', 'max-affected=0', 'max-affected=1', 'max-affected=99999999999999999999', 'max-affected=-1', 'max-affected=x',
  'handling=strict', 'handling=lenient', 'tx=rollback', 'tx=commit', 'tx=maybe', 'count=exact', 'count=planned', 'count=estimated',
  'params=single-object', 'timezone=UTC', 'timezone=Nope/Zone', 'foo', 'return', '=',
];
const VALID_PREFERS = [
  'return=minimal', 'return=headers-only', 'return=representation', 'return=representation', 'resolution=merge-duplicates', 'resolution=ignore-duplicates',
  'missing=default', 'count=exact', 'tx=rollback', 'tx=commit', 'handling=lenient', 'max-affected=5', 'handling=strict, max-affected=3',
];
const ACCEPTS = [
  undefined, undefined, undefined, 'application/json', 'application/vnd.pgrst.object+json', 'application/vnd.pgrst.object+json;nulls=stripped',
  'text/csv', 'application/vnd.pgrst.plan+json', 'application/vnd.pgrst.plan+json; options=analyze|verbose', 'application/vnd.pgrst.plan+text; for="text/csv"',
  'application/vnd.pgrst.plan; options=analyze|buffers|wal|settings; for="application/vnd.pgrst.object+json"', 'application/vnd.pgrst.plan; options=nope', 'text/html', '*/*', 'application/octet-stream', 'text/plain', ';;,', 'application/json;q=0',
];
const CONTENT_TYPES_ODD = [
  'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'application/vnd.pgrst.object+json',
  'text/json', 'application/xml', 'text/xml', 'multipart/form-data; boundary=x', '', ';', 'application/', 'application/json, text/csv',
  'application/json; charset="utf-8"', 'application/json;;', 'text/csv; charset=latin1', 'application/x-www-form-urlencoded; charset=utf-8',
];

/** What a request gets wrong; most requests get one thing wrong, some several, some nothing. */
type Dim = 'value' | 'shape' | 'media' | 'utf8' | 'query' | 'select' | 'columns' | 'prefer' | 'headers' | 'args';
const DIMS: ReadonlyArray<Dim> = ['value', 'value', 'shape', 'shape', 'media', 'utf8', 'query', 'query', 'select', 'columns', 'prefer', 'prefer', 'headers', 'args', 'args'];

/** `select=` that plans, by relation (the embeds follow write.sql's foreign keys). */
const VALID_SELECTS: Readonly<Record<string, ReadonlyArray<string>>> = {
  clients: ['projects(*)', 'name,projects(id,name,tasks(name))', 'id,projects!inner(id)'],
  projects: ['clients(*)', 'id,client:clients(name)', '*,tasks(*)', 'name,tasks(id,done)', 'id,tasks!inner(id)'],
  tasks: ['projects(*)', 'id,projects(name,clients(name))'],
};

function gen(rand: Rand, lane: Lane, laneIndex: number): FuzzRequest {
  const pick = pickFrom(rand);
  const chance = (p: number) => rand() < p;
  const hostile = new Set<Dim>();
  let method = 'POST';
  // A call's arguments: never a big generated array (new_items(n) with a huge n is a slow request by design).
  let forRpc = false;
  if (chance(0.75)) {
    hostile.add(pick(DIMS));
    while (chance(0.3)) hostile.add(pick(DIMS));
  }
  // Invalid UTF-8 goes either in the body or in the query string.
  const queryUtf8 = hostile.has('utf8') && chance(0.3);
  const bad = (d: Dim, p = 1) => hostile.has(d) && !(d === 'utf8' && queryUtf8) && chance(p);

  // ---- values ----
  const intText = () => pick(['1', '2', '3', '4', '5', '7', '10', '11', '12', '20', '0', '-1', '42', String(Math.floor(rand() * 60))]);
  const hostileScalar = (): string =>
    pick([
      '2147483647', '2147483648', '-2147483649', '9223372036854775808', '1e309', '-1e309', '1.5', '-0', '1E2', '0.1e-400',
      '99999999999999999999999999999999999999', '"7"', '"x"', '""', '"NULL"', '"\\u0000"', '"a\\u0000b"', '"\\ud800"', '"\\uDFFF\\uD800"',
      '"O\'Brien"', '"{1,2}"', '"[1,"', '"2024-13-45"', '"infinity"', '"NaN"', 'true', 'false', 'null', '[]', '[1,"a",null]', '{}', '{"a":{"b":[1,{"c":null}]}}',
      JSON.stringify('x'.repeat(3000)), JSON.stringify('\u00e9\u4e2d\ud83d\ude00'), '"\\"; drop table items; --"',
    ]);
  const typed = (type: string): string => {
    if (bad('value', 0.5)) return hostileScalar();
    switch (type) {
      case 'int':
      case 'bigint':
        return chance(0.9) ? intText() : `"${intText()}"`;
      case 'text':
        return JSON.stringify(pick(['abc', 'one', 'Windows', 'IOS', 'Microsoft', 'Apple', 'x y', '', '\u00e9\u4e2d', 'n' + Math.floor(rand() * 1000)]));
      case 'bool':
        return pick(['true', 'false', '"t"', '"false"']);
      case 'numeric':
        return pick(['1.25', '100', '"12.5"', '1e7', '0']);
      case 'text[]':
        return pick(['["a","b"]', '"{a,b}"', '[]', 'null']);
      case 'jsonb':
      case 'json':
        return pick(['{"k":1}', '[1,2]', '"s"', '1', 'null', '{"a":{"b":[1,{"c":null}]}}']);
      case 'timestamptz':
        return pick(['"2024-01-01"', '"2024-01-01T10:00:00Z"', '"infinity"', 'null']);
      case 'int[]':
        return pick(['[1,2,3]', '"{1,2}"', '[]']);
      case 'bytea':
        return pick(['"\\\\x0102"', '"abc"']);
      default:
        return hostileScalar();
    }
  };
  const keyText = (k: string) => JSON.stringify(k);
  const objectText = (cols: ReadonlyArray<readonly [string, string]>, keys: ReadonlyArray<string>): string => {
    const parts = keys.map((k) => `${keyText(k)}:${typed(cols.find(([c]) => c === k)?.[1] ?? 'any')}`);
    if (bad('shape', 0.1) && keys.length > 0) parts.push(`${keyText(keys[0]!)}:${typed('any')}`); // duplicate key
    return `{${parts.join(',')}}`;
  };
  const someKeys = (cols: ReadonlyArray<readonly [string, string]>): string[] => {
    const names = cols.map(([c]) => c);
    const keys = names.filter(() => chance(0.6));
    if (bad('shape', 0.3)) keys.push(pick(HOSTILE_NAMES));
    if (keys.length === 0 && chance(0.8) && names.length > 0) keys.push(names[0]!);
    return [...new Set(keys)];
  };

  // ---- bodies ----
  interface Body {
    readonly body?: string | Buffer | ReadonlyArray<Buffer>;
    readonly contentType?: string;
    readonly invalidUtf8?: boolean;
  }
  const withInvalidUtf8 = (text: string, contentType: string): Body => {
    const bytes = pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf], [0xfe, 0xff]]);
    // Inside the last string of the document when there is one, else at the end.
    const at = text.lastIndexOf('"');
    const cut = at > 0 ? at : text.length;
    return { body: Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from(bytes), Buffer.from(text.slice(cut))]), contentType, invalidUtf8: true };
  };
  const jsonText = (cols: ReadonlyArray<readonly [string, string]>): string => {
    const keys = someKeys(cols);
    const many = () => `[${Array.from({ length: 1 + Math.floor(rand() * 4) }, () => objectText(cols, keys)).join(',')}]`;
    if (!hostile.has('shape')) return chance(0.6) ? objectText(cols, keys) : many();
    const r = rand();
    if (r < 0.15) return `[${objectText(cols, keys)},${objectText(cols, someKeys(cols))}]`;
    if (r < 0.3) return pick(['null', '1', '"x"', 'true', '[]', '{}', '[1,2]', '[null]', '[[]]', '[{}, 1]', '[{},{}]', `[${objectText(cols, keys)},null]`, `[[${objectText(cols, keys)}]]`]);
    if (r < 0.75) {
      // Malformed JSON.
      const good = chance(0.5) ? objectText(cols, keys) : many();
      return pick([
        good.slice(0, Math.max(1, Math.floor(rand() * good.length))),
        good + ',', good + good, `${good.slice(0, -1)},}`, "{'id': 1}", '{id: 1}', '{"id": NaN}', '{"id": Infinity}', '{"id": 0x10}', '{"id": 01}',
        '\ufeff' + good, `/* c */${good}`, '{"a":1', '[', ']', '{', '}', '"', '\\', '{"a":"\\x"}', '{"a":"\u0001"}', ' ', '\n\t',
        `[${'['.repeat(3000)}`, `${'['.repeat(600)}${']'.repeat(600)}`, `${'{"a":'.repeat(300)}1${'}'.repeat(300)}`, '{"a":' + '1'.repeat(400) + '}',
      ]);
    }
    if (r < 0.85 && method === 'POST' && !forRpc) {
      // A big bulk insert. (Not a PATCH: an UPDATE joins every target row with every element, so a
      // big array against a big table is a slow request by design — PostgREST's statement too.)
      const n = 200 + Math.floor(rand() * 800);
      const base = 100_000 + laneIndex * 10_000_000 + Math.floor(rand() * 1_000_000);
      const k = cols.length > 1 ? [cols[0]![0], cols[1]![0]] : [cols[0]?.[0] ?? 'id'];
      return `[${Array.from({ length: n }, (_, i) => `{${k.map((c, j) => `${keyText(c)}:${j === 0 ? base + i : JSON.stringify('v' + i)}`).join(',')}}`).join(',')}]`;
    }
    return chance(0.5) ? '' : '   ';
  };
  const jsonBody = (cols: ReadonlyArray<readonly [string, string]>): Body => {
    const text = jsonText(cols);
    if (bad('utf8')) return withInvalidUtf8(text, 'application/json');
    const ct = !hostile.has('media') || chance(0.3) ? (chance(0.9) ? 'application/json' : undefined) : pick(CONTENT_TYPES_ODD);
    if (chance(0.05)) {
      // Chunked, split at an arbitrary byte (even inside a UTF-8 sequence).
      const buf = Buffer.from(text);
      const cut = Math.floor(rand() * (buf.length + 1));
      return { body: [buf.subarray(0, cut), buf.subarray(cut)], ...(ct !== undefined ? { contentType: ct } : {}) };
    }
    return { body: text, ...(ct !== undefined ? { contentType: ct } : {}) };
  };
  const csvBody = (cols: ReadonlyArray<readonly [string, string]>): Body => {
    const header = someKeys(cols);
    const field = (col: string | undefined) => {
      if (bad('value', 0.5) || col === undefined) return pick(['abc', 'NULL', '', '"a,b"', '"x""y"', '\u00e9', '99999999999', 'true', '{a}', '1.5']);
      const ty = cols.find(([c]) => c === col)?.[1];
      return ty === 'int' || ty === 'bigint' ? intText() : ty === 'bool' ? pick(['true', 'f']) : pick(['abc', 'NULL', '"a,b"', '"x""y"', '\u00e9']);
    };
    const rows = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
      const width = bad('shape', 0.5) ? Math.floor(rand() * (header.length + 2)) : header.length;
      return Array.from({ length: width }, (_, i) => field(header[i])).join(',');
    });
    let text = [header.join(','), ...rows].join(pick(['\n', '\r\n'])) + (chance(0.5) ? '\n' : '');
    if (bad('shape', 0.3)) text = pick(['', '\n', ',,,', '"', 'a\n"b', 'id\n1\n\n2', `${header.join(',')}\n"unterminated`, 'id,id\n1,2', '__proto__\n1']);
    if (bad('utf8')) return withInvalidUtf8(text, 'text/csv');
    return { body: text, contentType: pick(['text/csv', 'text/csv', 'text/csv; charset=utf-8', 'text/csv; header=present']) };
  };
  const formBody = (names: ReadonlyArray<string>): Body => {
    const pairs = names.filter(() => chance(0.8)).map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(bad('value', 0.5) ? pick(['abc', '', '\u00e9', '9999999999', '1.5']) : intText())}`);
    if (bad('shape', 0.5)) pairs.push(pick(['%ZZ=1', 'a=%ZZ', '=1', '&&', 'x', 'a=1=2', '%00=%00', '__proto__=1', 'constructor=1', `${pick(HOSTILE_NAMES)}=1`]));
    const text = pairs.join('&');
    if (bad('utf8', 0.5)) return withInvalidUtf8(text + '&name=x', 'application/x-www-form-urlencoded');
    // Percent-escapes of bytes that are not UTF-8.
    if (bad('utf8')) return { body: `${text}&${pick(['name=%FF', 'name=ab%C3%28', '%ED%A0%80=1', 'x=%E2%82'])}`, contentType: 'application/x-www-form-urlencoded', invalidUtf8: true };
    return { body: text, contentType: 'application/x-www-form-urlencoded' };
  };
  const rawBody = (): Body => {
    const ct = pick(['text/plain', 'text/xml', 'application/octet-stream', 'text/plain; charset=utf-8']);
    const text = pick(['hello', '', '<a>1</a>', '<a>', '\u0000', 'x'.repeat(5000), '{"a":1}', '\u00e9\u4e2d']);
    if (bad('utf8') && ct !== 'application/octet-stream') return withInvalidUtf8(text, ct);
    return { body: text, contentType: ct };
  };
  const anyBody = (cols: ReadonlyArray<readonly [string, string]>): Body => {
    if (!hostile.has('media')) return chance(0.85) ? jsonBody(cols) : chance(0.7) ? csvBody(cols) : formBody(cols.map(([c]) => c));
    const r = rand();
    if (r < 0.3) return jsonBody(cols);
    if (r < 0.5) return csvBody(cols);
    if (r < 0.65) return formBody(cols.map(([c]) => c));
    if (r < 0.85) return rawBody();
    return chance(0.5) ? {} : { body: '', contentType: 'application/json' };
  };

  // ---- query string ----
  const col = (cols: ReadonlyArray<readonly [string, string]>, d: Dim) => (!bad(d, 0.5) && cols.length > 0 ? pick(cols)[0] : pick(HOSTILE_NAMES));
  const filterValue = (cols: ReadonlyArray<readonly [string, string]>, name: string) => {
    const ty = cols.find(([c]) => c === name)?.[1];
    return ty === 'int' || ty === 'bigint' ? intText() : ty === 'bool' ? pick(['true', 'false']) : pick(['abc', 'Windows 7', 'one', 'IOS']);
  };
  const filter = (cols: ReadonlyArray<readonly [string, string]>) => {
    if (!hostile.has('query')) {
      const c = col(cols, 'query');
      return `${c}=${pick(['eq', 'eq', 'neq', 'gt', 'lt', 'gte'])}.${filterValue(cols, c)}`;
    }
    return `${chance(0.1) ? pick(lane.embeds).replace(/[:!].*/, '') + '.' : ''}${col(cols, 'query')}=${chance(0.1) ? 'not.' : ''}${pick(OPS)}${chance(0.05) ? '(any)' : ''}.${pick(FILTER_VALUES)}`;
  };
  const select = (table: string | null, cols: ReadonlyArray<readonly [string, string]>) => {
    if (!hostile.has('select')) {
      const valid = table === null ? [] : VALID_SELECTS[table] ?? [];
      return chance(0.5) && valid.length > 0 ? pick(valid) : chance(0.3) ? '*' : [...new Set(cols.filter(() => chance(0.6)).map(([c]) => c))].join(',') || '*';
    }
    const items: string[] = [];
    const n = 1 + Math.floor(rand() * 3);
    for (let i = 0; i < n; i++) {
      const r = rand();
      if (r < 0.3) items.push(col(cols, 'select'));
      else if (r < 0.4) items.push('*');
      else if (r < 0.8) items.push(`${pick(lane.embeds)}(${pick(['*', 'id', 'name', 'nope', '*,nope(*)', '', 'id,tasks(*)'])})`);
      else items.push(pick(['count()', 'id::text', 'name->>x', 'id.sum()', 'alias:id', '...clients(name)', '(', ')', ',', 'a b', 'id::nope', 'meta->a->>b']));
    }
    return items.join(',');
  };
  const columnsList = (cols: ReadonlyArray<readonly [string, string]>) =>
    Array.from({ length: 1 + Math.floor(rand() * 3) }, () => col(cols, 'columns')).join(bad('columns', 0.3) ? pick([',,', ', ,', ',']) : pick([',', ', ']));

  const query = (method: string, table: string | null, cols: ReadonlyArray<readonly [string, string]>, forRpc: boolean): string[] => {
    const parts: string[] = [];
    if ((method === 'POST' || method === 'PATCH') && (chance(0.1) || bad('columns', 0.7))) parts.push(`columns=${columnsList(cols)}`);
    if (method === 'POST' && !forRpc && (chance(0.1) || bad('columns', 0.5))) parts.push(`on_conflict=${columnsList(cols)}`);
    if (chance(0.3) || bad('select')) parts.push(`select=${select(table, cols)}`);
    if (method !== 'POST' || forRpc) {
      const n = Math.floor(rand() * 3);
      for (let i = 0; i < n; i++) parts.push(filter(cols));
    }
    if (chance(0.1) || bad('query', 0.3)) parts.push(`${pick(['or', 'and', 'not.or'])}=(${filter(cols).replace('=', '.')},${col(cols, 'query')}.is.null)`);
    const ranged = chance(0.1) || bad('query', 0.3);
    if (ranged || bad('query', 0.3)) parts.push(`order=${col(cols, 'query')}${hostile.has('query') ? pick(['', '.asc', '.desc', '.nullsfirst', '.x']) : pick(['', '.asc', '.desc'])}`);
    if (ranged) parts.push(`${pick(['limit', 'offset'])}=${hostile.has('query') ? pick(['0', '1', '2', '-1', 'x', '99999999999999999999']) : pick(['0', '1', '2'])}`);
    if (bad('query', 0.2)) parts.push(pick(['%ZZ=1', '=', '&', 'a.b.c.d=eq.1', 'select', 'columns', 'on_conflict=', 'columns=']));
    return parts;
  };

  const headers: Record<string, string> = {};
  const prefer = () =>
    Array.from({ length: 1 + Math.floor(rand() * 3) }, () => (hostile.has('prefer') ? pick(PREFERS) : pick(VALID_PREFERS))).join(pick([',', ', ']));
  const commonHeaders = () => {
    if (chance(0.4) || hostile.has('prefer')) headers['Prefer'] = prefer();
    const accept = hostile.has('headers') ? pick(ACCEPTS) : pick([undefined, undefined, undefined, 'application/json', 'application/vnd.pgrst.object+json', 'text/csv']);
    if (accept !== undefined) headers['Accept'] = accept;
    if (bad('headers', 0.3)) headers['Content-Profile'] = pick(['public', 'nope', 'private', '']);
    if (bad('headers', 0.3)) headers['Range'] = pick(['0-1', 'items=0-1', '5-2', 'bogus']);
    if (bad('headers', 0.2)) headers['Range-Unit'] = 'items';
  };
  // Percent-escapes of bytes that are not UTF-8 in the query string (a filter value, an argument).
  // (A text column's filter or a text argument, so that only the bytes make the request wrong.)
  let badQueryText: string | null = null;
  const badQuery = (names: ReadonlyArray<readonly [string, string]>, filter: boolean) => {
    if (!queryUtf8) return;
    const text = names.filter(([, ty]) => ty === 'text').map(([n]) => n);
    const esc = pick(['%FF', 'ab%C3%28', '%ED%A0%80', '%E2%82', '%C0%AF']);
    badQueryText = text.length > 0 ? `${pick(text)}=${filter ? 'eq.' : ''}${esc}` : pick([`${esc}=1`, `select=${esc}`]);
  };
  const target = (path: string, parts: string[]) => {
    const all = badQueryText === null ? parts : [...parts, badQueryText];
    return (all.length > 0 ? `${path}?${all.join('&')}` : path).replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu, (c) => encodeURIComponent(c));
  };
  const queryFlag = () => (badQueryText === null ? {} : { invalidUtf8: true });
  const withBody = (b: Body) => {
    if (b.contentType !== undefined) headers['Content-Type'] = b.contentType;
    return { ...(b.body !== undefined ? { body: b.body } : {}), ...(b.invalidUtf8 ? { invalidUtf8: true } : {}) };
  };

  // ---- a request ----
  if (chance(0.3) && lane.functions.length > 0) {
    forRpc = true;
    const fn = pick(lane.functions);
    const params = FUNCTIONS[fn] ?? [];
    method = hostile.has('headers') && chance(0.3) ? pick(['PATCH', 'PUT', 'DELETE', 'HEAD']) : pick(['POST', 'POST', 'GET']);
    const safeInt = (name: string) => name === 'n'; // numbers(n), new_items(n): never a huge series
    const argValue = (name: string, type: string) => (safeInt(name) ? pick(['1', '2', '3', '0', '-1', '"x"', 'null', '1.5', '"2"']) : typed(bad('args', 0.5) ? pick(['int', 'text', 'json', 'any']) : type));
    const argNames: Array<readonly [string, string]> = params.filter(([n]) => n !== '' && (!hostile.has('args') || chance(0.7))).map(([n, ty]) => [n, ty] as const);
    if (bad('args', 0.5)) argNames.push([pick(['nope', 'A', 'xs', 'b', 'payload', '', 'select', 'limit', 'order']), 'any']);
    commonHeaders();
    const resultCols: Array<readonly [string, string]> = [['id', 'int'], ['name', 'text'], ['item_id', 'int'], ['pgrst_scalar', 'any']];
    badQuery(method === 'GET' || method === 'HEAD' ? argNames : [], false);
    if (method === 'GET' || method === 'HEAD') {
      const parts = argNames.map(([n, ty]) => `${n}=${encodeURIComponent(argValue(n, ty).replace(/^"(.*)"$/s, '$1'))}`);
      if (fn === 'vsum') parts.push(...['1', '2', bad('args') ? 'x' : '3'].map((v) => `xs=${v}`));
      parts.push(...query('GET', null, resultCols, true));
      return { method, path: target(`/rpc/${fn}`, parts), headers, ...queryFlag() };
    }
    const parts = query('POST', null, resultCols, true).filter((p) => !p.startsWith('columns=') || hostile.has('columns'));
    let b: Body;
    const r = rand();
    const unnamed = params.length === 1 && params[0]![0] === '';
    if (unnamed && !hostile.has('media')) {
      const ty = params[0]![1];
      b = ty === 'json' ? jsonBody([]) : ty === 'bytea' ? { body: Buffer.from([0, 1, 2, 0xff]), contentType: 'application/octet-stream' } : { body: pick(['hello', '', '\u00e9\u4e2d']), contentType: 'text/plain' };
      if (bad('utf8') && ty !== 'bytea') b = withInvalidUtf8(String(b.body), b.contentType ?? 'text/plain');
    } else if (r < 0.7 && !hostile.has('media')) {
      const text = `{${argNames.map(([n, ty]) => `${keyText(n)}:${argValue(n, ty)}`).join(',')}}`;
      b = { body: bad('shape', 0.5) ? `[${text},${text}]` : text, contentType: 'application/json' };
      if (bad('utf8')) b = withInvalidUtf8(String(b.body), 'application/json');
    } else if (r < 0.85) b = formBody(argNames.map(([n]) => n).concat(fn === 'vsum' ? ['xs', 'xs'] : []));
    else if (r < 0.95) b = rawBody();
    else b = anyBody(argNames);
    return { method, path: target(`/rpc/${fn}`, parts), headers, ...withBody(b), ...queryFlag() };
  }

  const table = pick(lane.tables);
  const cols = RELATIONS[table]!;
  method = pick(['POST', 'POST', 'PATCH', 'PATCH', 'PUT', 'DELETE']);
  badQuery(method === 'POST' ? [] : cols, true);
  commonHeaders();
  const parts = query(method, table, cols, false);
  if (method === 'PUT') {
    // The whole primary key with eq (sometimes partial, negated, or another operator).
    const pk = PRIMARY_KEYS[table] ?? ['id'];
    const keyFilters = pk
      .filter(() => !bad('query', 0.3))
      .map((k) => `${k}=${bad('query', 0.3) ? pick(['neq', 'not.eq', 'gt', 'eq(any)']) : 'eq'}.${filterValue(cols, k)}`);
    parts.unshift(...keyFilters);
    return { method, path: target(`/${table}`, parts.filter((p) => !/^(limit|offset|or|and|not\.or)=/.test(p) || hostile.has('query'))), headers, ...withBody(anyBody(cols)), ...queryFlag() };
  }
  if (method === 'DELETE') {
    // DELETE reads no body (PostgREST's neither): whatever it holds, only the query string counts.
    if (bad('media', 0.5)) return { method, path: target(`/${table}`, parts), headers, ...withBody(anyBody(cols)), invalidUtf8: badQueryText !== null };
    return { method, path: target(`/${table}`, parts), headers, ...queryFlag() };
  }
  return { method, path: target(`/${table}`, parts), headers, ...withBody(anyBody(cols)), ...queryFlag() };
}

// ---- lane 3: requests that must leave their table unchanged ---------------------------------------

/**
 * employees, audit, bulk, deferred_checks: a write built to fail, most of them after changing rows —
 * max-affected, a singular response, PUT's key mismatch, a unique violation, a duplicate key in a
 * bulk insert, a deferred foreign key at COMMIT, a volatile function that fails, a filter on a
 * resource the request does not embed — or GET on a volatile function. An empty path stands for
 * an ordinary fuzz request with `Prefer: tx=rollback` first (the first occurrence wins).
 */
function guarded(rand: Rand): FuzzRequest {
  const pick = pickFrom(rand);
  const chance = (p: number) => rand() < p;
  const extra = () => {
    const h: Record<string, string> = {};
    const prefs = ['return=representation', 'return=minimal', 'return=headers-only', 'count=exact', 'tx=rollback', 'tx=commit', 'missing=default'].filter(() => chance(0.25));
    if (prefs.length > 0) h['Prefer'] = prefs.join(',');
    if (chance(0.2)) h['Content-Profile'] = 'public';
    return h;
  };
  const sel = () => (chance(0.3) ? `select=${pick(['*', 'id', 'id,name', 'nope', 'id,audit(*)', '*,employees(*)'])}` : '');
  const q = (...ps: string[]) => {
    const all = [...ps, sel()].filter((p) => p !== '');
    return all.length > 0 ? '?' + all.join('&') : '';
  };
  const json = { 'Content-Type': 'application/json' };
  const r = rand();
  if (r < 0.1) {
    const n = 1 + Math.floor(rand() * 1000);
    return { method: 'PATCH', path: `/employees${q(pick(['id=gt.0', 'salary=gte.0', 'or=(id.eq.1,id.eq.2)', '']))}`, headers: { ...extra(), ...json, Prefer: `handling=strict, max-affected=1${chance(0.5) ? ', return=representation' : ''}` }, body: `{"salary": ${n}}`, mustFail: true };
  }
  if (r < 0.2) {
    return { method: 'DELETE', path: `/employees${q(pick(['', 'id=gt.0', 'name=like.*']))}`, headers: { ...extra(), Accept: 'application/vnd.pgrst.object+json' }, mustFail: true };
  }
  if (r < 0.25) {
    return { method: 'DELETE', path: `/employees${q('id=gte.1')}`, headers: { ...extra(), Prefer: 'handling=strict,max-affected=1' }, mustFail: true };
  }
  if (r < 0.35) {
    return { method: 'PUT', path: `/employees${q(`id=eq.${pick(['1', '2', '3'])}`)}`, headers: { ...extra(), ...json }, body: `{"id": ${pick(['4', '5', '"9"'])}, "name": "Mallory", "salary": 1}`, mustFail: true };
  }
  if (r < 0.45) {
    // The second row violates the unique name after the first was inserted.
    const csv = chance(0.3);
    return {
      method: 'POST',
      path: `/employees${q()}`,
      headers: { ...extra(), 'Content-Type': csv ? 'text/csv' : 'application/json' },
      body: csv ? `id,name,salary\n10,Carol,1\n11,Alice,2` : `[{"id": 10, "name": "Carol", "salary": 1}, {"id": 11, "name": "${pick(['Alice', 'Bob', 'Carol'])}", "salary": 2}]`,
      mustFail: true,
    };
  }
  if (r < 0.5) {
    return { method: 'PATCH', path: `/employees${q('id=eq.2')}`, headers: { ...extra(), ...json }, body: '{"name": "Alice"}', mustFail: true };
  }
  if (r < 0.55) {
    return { method: 'POST', path: `/employees${q()}`, headers: { ...extra(), ...json, Accept: 'application/vnd.pgrst.object+json' }, body: '[{"id": 20, "name": "Dan"}, {"id": 21, "name": "Eve"}]', mustFail: true };
  }
  if (r < 0.65) {
    // bulk: a duplicate key in one insert (plain, CSV, or chunked).
    const n = 2 + Math.floor(rand() * 50);
    const ids = Array.from({ length: n }, (_, i) => i + 1);
    ids.push(pick(ids));
    const csv = chance(0.3);
    const text = csv ? `id,v\n${ids.map((i) => `${i},v${i}`).join('\n')}` : `[${ids.map((i) => `{"id":${i},"v":"v${i}"}`).join(',')}]`;
    return { method: 'POST', path: `/bulk${q()}`, headers: { ...extra(), 'Content-Type': csv ? 'text/csv' : 'application/json' }, body: text, mustFail: true };
  }
  if (r < 0.75) {
    // deferred_checks: the foreign key is checked at COMMIT (or before tx=rollback).
    const n = 1 + Math.floor(rand() * 5);
    const rows = Array.from({ length: n }, (_, i) => `{"id":${i + 1},"parent":${i === 0 ? 'null' : i}}`);
    rows.splice(Math.floor(rand() * (n + 1)), 0, `{"id":${n + 1},"parent":${pick(['999', '-1', '0'])}}`);
    return { method: 'POST', path: `/deferred_checks${q()}`, headers: { ...extra(), ...json }, body: `[${rows.join(',')}]`, mustFail: true };
  }
  if (r < 0.77) {
    // A volatile function that fails after (or before) writing: max-affected on a function that does
    // not return a set, text PostgreSQL cannot store, a row-count check on its one row.
    const h = pick<Record<string, string>>([{ Prefer: 'handling=strict, max-affected=0' }, {}, { Accept: 'application/vnd.pgrst.object+json' }]);
    const note = 'Prefer' in h ? '"x"' : '"a\\u0000b"';
    return { method: 'POST', path: `/rpc/write_audit${chance(0.3) ? '?select=nope' : ''}`, headers: { ...extra(), ...json, ...h }, body: `{"note": ${note}}`, mustFail: true };
  }
  if (r < 0.78) {
    // A filter on an embedded resource the request does not embed: an error, never "no filter".
    const f = `${pick(['audit', 'nope', 'employees', 'clients'])}.${pick(['id', 'name', 'note'])}=${pick(['eq.1', 'gt.0', 'is.null', 'not.eq.3'])}`;
    const m = pick(['PATCH', 'DELETE', 'PUT']);
    const path = m === 'PUT' ? `/employees?id=eq.1&${f}` : `/employees?${f}${chance(0.3) ? '&id=gt.0' : ''}`;
    return { method: m, path, headers: { ...extra(), ...json }, ...(m === 'DELETE' ? {} : { body: m === 'PUT' ? '{"id":1,"name":"Mallory","salary":0}' : '{"salary": 0}' }), mustFail: true };
  }
  if (r < 0.8) {
    // A volatile function through GET runs read-only.
    return { method: 'GET', path: `/rpc/write_audit?note=${encodeURIComponent(pick(['x', '', 'hello', "'"]))}`, headers: {}, mustFail: true };
  }
  return { method: 'GET', path: '', headers: {} }; // replaced by a tx=rollback fuzz request
}

/** The ordinary generator with `tx=rollback` forced first in Prefer. */
function rolledBack(rand: Rand): FuzzRequest {
  const req = gen(rand, LANES[3]!, 3);
  const prefer = req.headers['Prefer'];
  return { ...req, headers: { ...req.headers, Prefer: prefer ? `tx=rollback, ${prefer}` : 'tx=rollback' } };
}

function laneRequests(laneIndex: number, count: number): FuzzRequest[] {
  const rand = prng(SEED + laneIndex * 7919);
  return Array.from({ length: count }, () => {
    if (laneIndex !== 3) return gen(rand, LANES[laneIndex]!, laneIndex);
    const g = guarded(rand);
    return g.path === '' ? rolledBack(rand) : g;
  });
}

/**
 * The one 5xx a write may legitimately answer here: PostgreSQL refuses to write through a view that
 * is neither auto-updatable nor has the INSTEAD OF trigger (55000 object_not_in_prerequisite_state),
 * which the SQLSTATE table maps to 500 — as PostgREST does (mapSQLtoHTTP: 55* → 500), pinned by
 * insert.test.ts. client_counts has no trigger at all, project_clients none for DELETE.
 */
function legitimate500(r: FuzzRequest, status: number, text: string): boolean {
  return status === 500 && /^\/(client_counts|project_clients)(\?|$)/.test(r.path) && /^\{"code":"55000"/.test(text);
}

// ---- the run ------------------------------------------------------------------------------------

t.test(`${COUNT} generated writes and calls (seed ${SEED}): only 2xx/4xx, errors in the error model, failures change nothing`, async (t) => {
  // db-plan-enabled: `Accept: application/vnd.pgrst.plan` explains (and with analyze runs) writes too.
  const s = await startWriteServer(t, { 'db-plan-enabled': 'true' });
  const client = new Pool(s.url, { connections: LANES.length });
  t.teardown(() => client.close());
  const employeesBefore = await tableRows(s, 'employees');

  const perLane = Math.ceil(COUNT / LANES.length);
  const lanes = LANES.map((_, i) => laneRequests(i, perLane));
  const total = lanes.reduce((a, l) => a + l.length, 0);
  // One example per kind of failure (its first line of text up to the request), so a bug that many
  // requests hit does not hide the others.
  const failures = new Map<string, string>();
  let failureCount = 0;
  const fail = (kind: string, example: string) => {
    failureCount++;
    if (!failures.has(kind)) failures.set(kind, example);
  };
  const statuses = new Map<number, number>();
  const codes = new Map<string, number>();
  let legit = 0;
  const show = (r: FuzzRequest) =>
    `${r.method} ${r.path} ${JSON.stringify(r.headers)} ${r.body === undefined ? '' : Array.isArray(r.body) ? '<chunked>' : JSON.stringify(r.body.toString().slice(0, 160))}`;

  const send = async (r: FuzzRequest) => {
    const body = r.body === undefined ? undefined : Array.isArray(r.body) ? Readable.from(r.body as Buffer[]) : (r.body as string | Buffer);
    let status: number;
    let text: string;
    let headers: Record<string, string | string[] | undefined>;
    try {
      const res = await client.request({ path: r.path, method: r.method as 'GET', headers: r.headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 });
      status = res.statusCode;
      headers = res.headers;
      text = await res.body.text();
    } catch (e) {
      fail(`no answer ${r.method} ${r.path.split('?')[0]}`, `no answer (${(e as Error).message}): ${show(r)}`);
      return;
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    if (status >= 500 && legitimate500(r, status, text)) legit++;
    else if (status >= 500) fail(`${status} ${text.replace(/"message".*/s, '')}`, `${status} ${text.slice(0, 300)} <- ${show(r)}`);
    else if (status >= 300) {
      if (r.method === 'HEAD') return;
      let e: { code?: unknown; message?: unknown } = {};
      try {
        e = JSON.parse(text);
      } catch {
        /* reported below */
      }
      const proxy = headers['proxy-status'];
      codes.set(`${status} ${String(e.code)}`, (codes.get(`${status} ${String(e.code)}`) ?? 0) + 1);
      if (typeof e.code !== 'string' || typeof e.message !== 'string' || typeof proxy !== 'string' || !proxy.includes(`error=${e.code}`)) {
        fail(`error model ${status}`, `not in the error model: ${status} ${text.slice(0, 200)} <- ${show(r)}`);
      }
    } else {
      if (r.mustFail) fail(`doomed ${r.method} ${r.path.split('?')[0]}`, `a doomed write succeeded: ${status} ${text.slice(0, 200)} <- ${show(r)}`);
      if (r.invalidUtf8) fail(`invalid UTF-8 ${r.method} ${r.headers['Content-Type']}`, `invalid UTF-8 accepted: ${status} ${text.slice(0, 200)} <- ${show(r)}`);
      const ct = headers['content-type'];
      if (typeof ct === 'string' && ct.startsWith('application/json') && text !== '') {
        try {
          JSON.parse(text);
        } catch {
          fail('unparsable JSON', `unparsable JSON answer: ${status} ${text.slice(0, 200)} <- ${show(r)}`);
        }
      }
    }
  };
  const started = performance.now();
  await Promise.all(
    lanes.map(async (requests) => {
      for (const r of requests) await send(r);
    }),
  );
  const ms = performance.now() - started;
  t.comment(`${total} requests in ${(ms / 1000).toFixed(1)} s; statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
  t.comment(`error codes: ${JSON.stringify(Object.fromEntries([...codes].sort((a, b) => b[1] - a[1]).slice(0, 25)))}`);
  t.comment(`legitimate database-side 500s (55000 on views that are not updatable): ${legit}`);
  t.same([...failures.values()].slice(0, 30), [], `no 5xx, no hang, every error in the error model (${failureCount} failures)`);
  t.equal([...statuses.values()].reduce((a, b) => a + b, 0), total, 'every request answered');
  const success = [...statuses].filter(([st]) => st < 300).reduce((a, [, n]) => a + n, 0);
  t.ok(success > total / 10, `a fair share of the generated requests are valid writes (${success})`);

  // What only ever received failing or rolled-back requests is as it was.
  t.same(await tableRows(s, 'employees'), employeesBefore, 'employees: only rolled-back or failing writes, unchanged');
  t.same(await tableRows(s, 'bulk'), [], 'bulk: every insert had a duplicate key, nothing kept');
  t.same(await tableRows(s, 'deferred_checks'), [], 'deferred_checks: every insert broke the deferred foreign key, nothing kept');
  t.same(await tableRows(s, 'audit'), [], 'audit: only read-only or rolled-back calls of write_audit');

  // The server is still healthy: no connection leaked, concurrent requests are answered.
  const after = await Promise.all(Array.from({ length: 20 }, () => s.request('/items?select=id&limit=1')));
  t.same(after.map((r) => r.status), Array(20).fill(200), 'still answering after the run');
});
