// Request bodies → Payload (PostgREST's ApiRequest.Payload): what a write or a function call sends,
// and the set of keys it names. Pure; no schema knowledge.
//
//   application/json                    object or array of objects with the same keys
//   text/csv                            header line of names, one line per row; `NULL` is SQL null
//   application/x-ndjson                one JSON object per line, all with the same keys (a bulk
//                                       insert, as a JSON array of them)
//   application/x-www-form-urlencoded   one object of text values (POST /rpc/f: arguments)
//   text/plain, text/xml (application/xml), application/octet-stream   the raw body (POST /rpc/f with one unnamed
//                                       text / xml / bytea parameter)
//
// Every body but application/octet-stream is text and must be UTF-8: anything else is DBRST102,
// never decoded with U+FFFD in place of the bytes (the text stored would not be the text sent).
//
// JSON is checked here only for its shape: the body travels to PostgreSQL as ONE json parameter,
// unpacked there with json_to_recordset (sql/mutate.ts), so it is never re-serialised.
import { Buffer, isUtf8 } from 'node:buffer';
import { errors } from '../errors/catalog.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import type { ContentType } from './api-request.js';
import { parseUrlEncoded } from './urlencoded.js';

/** The body media types dbrest reads. */
export type PayloadMedia = 'json' | 'ndjson' | 'csv' | 'form' | 'text' | 'xml' | 'binary';

export type Payload =
  /**
   * JSON text of an object or an array (CSV and form bodies are converted to it). `keys` are the
   * object keys (bulk arrays: the keys every element shares) or the `columns=` list, in first-seen
   * order. `isObject`: the body is one object (json_to_record) rather than an array
   * (json_to_recordset).
   */
  | { readonly kind: 'json'; readonly text: string; readonly keys: ReadonlyArray<string>; readonly isObject: boolean }
  /** `a=1&b=2&b=3` posted to a function: arguments bound one by one (repeats feed VARIADIC). */
  | { readonly kind: 'form'; readonly pairs: ReadonlyArray<readonly [string, string]> }
  /** The whole body for a single unnamed text/xml/bytea parameter. */
  | { readonly kind: 'raw'; readonly media: 'text' | 'xml' | 'binary'; readonly body: Buffer };

export interface PayloadOptions {
  /** `columns=a,b`: the keys are these, and a JSON body is passed on without being parsed. */
  readonly columns: ReadonlyArray<string> | null;
  /** A function call: an empty body is `{}`, form bodies stay pairs, raw bodies are allowed. */
  readonly forCall: boolean;
}

const invalidBody = (message: string, details: string | null = null): ApiError =>
  errors.DBRST102(message, details === null ? {} : { details });

/** Which reader a Content-Type selects; absent means JSON (PostgREST's default). */
export function payloadMedia(ct: ContentType | null): PayloadMedia | null {
  if (ct === null) return 'json';
  // By type, then subtype: no `type/subtype` string built per request to be compared.
  if (ct.type === 'application') {
    switch (ct.subtype) {
      case 'json':
        return 'json';
      case 'x-ndjson':
        return 'ndjson';
      case 'x-www-form-urlencoded':
        return 'form';
      // PostgREST reads only text/xml; application/xml is the same XML (RFC 7303), and the XML
      // bodies of route mounts (engine spec §5) arrive as either.
      case 'xml':
        return 'xml';
      case 'octet-stream':
        return 'binary';
    }
  } else if (ct.type === 'text') {
    switch (ct.subtype) {
      case 'csv':
        return 'csv';
      case 'plain':
        return 'text';
      case 'xml':
        return 'xml';
    }
  }
  return null;
}

export function parsePayload(body: Buffer | null, ct: ContentType | null, opts: PayloadOptions): Result<Payload> {
  const media = payloadMedia(ct);
  if (media === null || (!opts.forCall && (media === 'text' || media === 'xml' || media === 'binary'))) {
    const mime = ct === null ? 'application/json' : `${ct.type}/${ct.subtype}`;
    return err(invalidBody(`Content-Type not acceptable: ${mime}`));
  }
  const raw = body ?? EMPTY;
  if (media === 'text' || media === 'xml' || media === 'binary') {
    if (media !== 'binary' && !isUtf8(raw)) return err(notUtf8(media, raw));
    return ok({ kind: 'raw', media, body: raw });
  }
  // Text is UTF-8 (PostgreSQL's encoding): a body that is not is refused, never read with U+FFFD
  // in place of the bytes it could not decode (which would store other text than was sent).
  // Decoding puts U+FFFD for every byte sequence that is not UTF-8, so a text without one came
  // from valid bytes: only a body that decodes with U+FFFD is checked (isUtf8 costs a call into
  // C++ on every write otherwise).
  const text = raw.toString('utf8');
  if (text.includes('\uFFFD') && !isUtf8(raw)) return err(notUtf8(media, raw));
  switch (media) {
    case 'json':
      return parseJsonPayload(text, opts);
    case 'ndjson':
      return parseNdjsonPayload(text, opts);
    case 'csv':
      return parseCsvPayload(text);
    case 'form':
      return parseFormPayload(text, opts);
  }
}

const EMPTY = Buffer.alloc(0);

function notUtf8(media: PayloadMedia, raw: Uint8Array): ApiError {
  const at = `The request body is not valid UTF-8: invalid byte sequence at byte ${invalidUtf8Offset(raw)}`;
  return invalidBody(media === 'json' ? 'Empty or invalid json' : 'The request body is not valid UTF-8', at);
}

/** Offset of the first byte that does not start a well-formed UTF-8 sequence (Unicode table 3-7); -1 if none. */
function invalidUtf8Offset(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f; // no UTF-16 surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f; // nothing above U+10FFFF
    } else return i;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

// ---- JSON -------------------------------------------------------------------------------------------

const WS = /^[ \t\n\r]*/;

function parseJsonPayload(text: string, opts: PayloadOptions): Result<Payload> {
  // With `columns=` PostgREST hands the body to PostgreSQL untouched (it validates it there).
  if (opts.columns !== null) {
    const first = text.replace(WS, '').charAt(0);
    return ok({ kind: 'json', text, keys: dedupe(opts.columns), isObject: first === '{' });
  }
  // forCall first: the test strips a copy of the whole body, for nothing when it is not a call.
  if (opts.forCall && text.replace(WS, '') === '') return ok({ kind: 'json', text: '{}', keys: [], isObject: true });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // PostgREST says only "Empty or invalid json" (#2344); the parser's own words, with the
    // position, go in `details` so a client can find the mistake.
    return err(invalidBody('Empty or invalid json', text.trim() === '' ? 'The request body is empty' : (e as Error).message));
  }
  return jsonShape(text, doc);
}

/**
 * PostgREST's payloadAttributes: an object gives its keys; an array must hold only objects with the
 * same key set; anything else (a number, a string, null) is read as an empty array.
 */
function jsonShape(text: string, doc: unknown): Result<Payload> {
  if (Array.isArray(doc)) {
    if (doc.length === 0) return ok({ kind: 'json', text: '[]', keys: [], isObject: false });
    const first = doc[0];
    if (!isPlainObject(first)) return err(invalidBody('All object keys must match'));
    const keys = Object.keys(first);
    const canonical = new Set(keys);
    for (let i = 1; i < doc.length; i++) {
      const el = doc[i];
      if (!isPlainObject(el)) return err(invalidBody('All object keys must match'));
      const k = Object.keys(el);
      if (k.length !== canonical.size || !k.every((x) => canonical.has(x))) {
        return err(invalidBody('All object keys must match', `Element ${i} has the keys (${k.join(', ')}) where element 0 has (${keys.join(', ')})`));
      }
    }
    return ok({ kind: 'json', text, keys, isObject: false });
  }
  if (isPlainObject(doc)) return ok({ kind: 'json', text, keys: Object.keys(doc), isObject: true });
  return ok({ kind: 'json', text: '[]', keys: [], isObject: false });
}

const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

const dedupe = (xs: ReadonlyArray<string>): string[] => [...new Set(xs)];

// ---- NDJSON -----------------------------------------------------------------------------------------

/**
 * One JSON value per line (blank lines skipped), read as the JSON array of them: each line's text is
 * kept as sent (not re-serialised), so the array is the lines joined by commas. Every line must be
 * an object, all with the same keys (as the elements of a JSON array body).
 */
function parseNdjsonPayload(text: string, opts: PayloadOptions): Result<Payload> {
  const lines: string[] = [];
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (line.trim() === '') continue;
    if (opts.columns === null) {
      try {
        JSON.parse(line);
      } catch (e) {
        return err(invalidBody('Empty or invalid json', `line ${lineNo}: ${(e as Error).message}`));
      }
    }
    lines.push(line);
  }
  const arrayText = '[' + lines.join(',') + ']';
  if (opts.columns !== null) return ok({ kind: 'json', text: arrayText, keys: dedupe(opts.columns), isObject: false });
  return jsonShape(arrayText, JSON.parse(arrayText));
}

// ---- CSV --------------------------------------------------------------------------------------------

/**
 * RFC 4180 fields: `"…"` quoted (a doubled `""` is a quote), CRLF or LF line ends, a final line end
 * optional. Returns the rows, or the 1-based line where a quote was left open.
 */
export function parseCsv(text: string): Result<string[][], { line: number; message: string }> {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let line = 1;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = '';
    fieldStarted = false;
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      if (c === '\n') line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"' && !fieldStarted && field === '') {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (c === ',') {
      endField();
      i++;
      continue;
    }
    if (c === '\r' && text[i + 1] === '\n') {
      endRow();
      line++;
      i += 2;
      continue;
    }
    if (c === '\n') {
      endRow();
      line++;
      i++;
      continue;
    }
    field += c;
    fieldStarted = true;
    i++;
  }
  if (quoted) return err({ line, message: 'unterminated quoted field' });
  if (field !== '' || fieldStarted || row.length > 0) endRow();
  return ok(rows);
}

function parseCsvPayload(text: string): Result<Payload> {
  const parsed = parseCsv(text);
  if (!parsed.ok) return err(invalidBody(`Invalid CSV: ${parsed.error.message}`, `line ${parsed.error.line}`));
  const [header, ...rows] = parsed.value;
  if (header === undefined) return err(invalidBody('Empty or invalid csv', 'The request body has no header line'));
  const width = header.length;
  const objects: Array<Record<string, string | null>> = [];
  for (let r = 0; r < rows.length; r++) {
    const fields = rows[r]!;
    if (fields.length !== width) {
      return err(invalidBody('All lines must have same number of fields', `line ${r + 2} has ${fields.length} fields, the header has ${width}`));
    }
    // No prototype: a `__proto__` header is a key like any other (then not a column: DBRST204).
    const o: Record<string, string | null> = Object.create(null);
    header.forEach((name, j) => {
      const v = fields[j]!;
      o[name] = v === 'NULL' ? null : v;
    });
    objects.push(o);
  }
  // PostgREST reads the keys of CSV (and form) bodies from the body itself, `columns=` or not.
  return ok({ kind: 'json', text: JSON.stringify(objects), keys: dedupe(header), isObject: false });
}

// ---- form -------------------------------------------------------------------------------------------

function parseFormPayload(text: string, opts: PayloadOptions): Result<Payload> {
  const pairs = parseUrlEncoded(text);
  if (pairs === null) {
    return err(invalidBody('The request body is not valid UTF-8', 'A percent-encoded name or value of the form body is not valid UTF-8'));
  }
  if (opts.forCall) return ok({ kind: 'form', pairs });
  // A table write: one object of text values, the last of a repeated key winning.
  const o: Record<string, string> = Object.create(null);
  for (const [k, v] of pairs) o[k] = v;
  return ok({ kind: 'json', text: JSON.stringify(o), keys: Object.keys(o), isObject: true });
}
