// The lexical pieces every query-string grammar shares (PostgREST's QueryParams.hs primitives): a cursor
// over the text, field names, quoted values, JSON paths, casts, and the one function that turns a parse
// failure into DBRST100. Pure; no I/O. Parsers are hand-written and predictive (one pass, no regex
// backtracking) so hostile input costs linear time.
import { errors } from '../../errors/catalog.js';
import { err, ok, type Result } from '../../errors/types.js';
import type { FieldRef, JsonPathStep } from '../types.js';

/**
 * Thrown inside a parser and caught by `runParser` in the same call: it never escapes this folder.
 * Recursive descent with an exception for "stop, this input is wrong" keeps each rule a few lines.
 */
export class ParseFailure {
  constructor(
    /** UTF-16 offset of the offending fragment. */
    readonly pos: number,
    /** What we expected there, already quoted where literal (`"("`, `field name`). */
    readonly expected: ReadonlyArray<string>,
    /** The offending fragment; defaults to the character at `pos`. */
    readonly fragment: string | null = null,
    /** Replaces the word "unexpected" when the problem is not a missing token ("unknown operator"). */
    readonly reason: string | null = null,
  ) {}
}

/** Deepest nesting of embeds / logic groups we accept: recursion must never blow the JS stack. */
export const MAX_DEPTH = 64;

export class Scanner {
  pos = 0;
  constructor(readonly text: string) {}

  get eof(): boolean {
    return this.pos >= this.text.length;
  }

  /** The UTF-16 unit at pos (or at pos+ahead), '' at the end. Enough for ASCII punctuation tests. */
  peek(ahead = 0): string {
    return this.text.charAt(this.pos + ahead);
  }

  /** The whole code point at pos, '' at the end (letters outside the BMP count as one character). */
  peekCodePoint(): string {
    const cp = this.text.codePointAt(this.pos);
    return cp === undefined ? '' : String.fromCodePoint(cp);
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  eat(s: string): boolean {
    if (!this.text.startsWith(s, this.pos)) return false;
    this.pos += s.length;
    return true;
  }

  expect(s: string): void {
    if (!this.eat(s)) this.fail([JSON.stringify(s)]);
  }

  /** PostgREST's `ws`: spaces and tabs only. */
  skipWs(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09) break;
      this.pos++;
    }
  }

  expectEnd(): void {
    if (!this.eof) this.fail(['end of input']);
  }

  fail(expected: ReadonlyArray<string>, at: number = this.pos, fragment: string | null = null): never {
    throw new ParseFailure(at, expected, fragment);
  }

  /** `<reason> "<fragment>" at position N[, expecting …]` for problems that are not a missing token. */
  failWith(reason: string, at: number, fragment: string | null = null, expected: ReadonlyArray<string> = []): never {
    throw new ParseFailure(at, expected, fragment, reason);
  }
}

/** Drop spaces and tabs at both ends, by hand: `/[ \t]+$/` is quadratic on long runs of blanks. */
export function trimBlanks(text: string): string {
  let a = 0;
  let b = text.length;
  while (a < b && (text[a] === ' ' || text[a] === '\t')) a++;
  while (b > a && (text[b - 1] === ' ' || text[b - 1] === '\t')) b--;
  return text.slice(a, b);
}

/** 1-based position in characters (code points), as a human counts them. */
function charPosition(text: string, pos: number): number {
  let n = 1;
  for (let i = 0; i < pos && i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function listOr(items: ReadonlyArray<string>): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** `unexpected "[" at position 16, expecting "," or ")"` — Parsec's wording plus a position. */
export function describeFailure(text: string, f: ParseFailure): string {
  const position = charPosition(text, f.pos);
  let fragment: string;
  if (f.fragment !== null) fragment = JSON.stringify(f.fragment);
  else if (f.pos >= text.length) fragment = 'end of input';
  else fragment = JSON.stringify(String.fromCodePoint(text.codePointAt(f.pos) ?? 0));
  const expecting = f.expected.length > 0 ? `, expecting ${listOr(f.expected)}` : '';
  return `${f.reason ?? 'unexpected'} ${fragment} at position ${position}${expecting}`;
}

/** Run a grammar rule over `text`; any ParseFailure becomes DBRST100 with `message` and positioned details. */
export function runParser<T>(text: string, message: string, rule: (s: Scanner) => T): Result<T> {
  const s = new Scanner(text);
  try {
    return ok(rule(s));
  } catch (e) {
    if (e instanceof ParseFailure) return err(errors.DBRST100(message, { details: describeFailure(text, e) }));
    throw e;
  }
}

// --- identifiers -------------------------------------------------------------------------------------

const LETTER = /^\p{L}$/u;

/** PostgREST's pIdentifierChar: a Unicode letter, an ASCII digit, `_`, space or `$`. */
export function isIdentChar(ch: string): boolean {
  if (ch.length === 0) return false;
  const c = ch.charCodeAt(0);
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) return true;
  if (c === 0x5f || c === 0x20 || c === 0x24) return true;
  return c > 0x7f && LETTER.test(ch);
}

/** Read a run of identifier characters (at least one), trimmed: pIdentifier. Used for casts and fts languages. */
export function readIdentifier(s: Scanner, label: string): string {
  const start = s.pos;
  for (let ch = s.peekCodePoint(); isIdentChar(ch); ch = s.peekCodePoint()) s.pos += ch.length;
  const name = s.text.slice(start, s.pos).trim();
  if (name === '') s.fail([label], start);
  return name;
}

/** `"…"` with `\x` meaning x: PostgREST's pQuotedValue. */
export function readQuoted(s: Scanner): string {
  s.expect('"');
  let out = '';
  let chunk = s.pos;
  for (;;) {
    if (s.eof) {
      s.fail(['"\\""']);
    }
    const c = s.peek();
    if (c === '"') {
      out += s.text.slice(chunk, s.pos);
      s.pos++;
      return out;
    }
    if (c === '\\') {
      out += s.text.slice(chunk, s.pos);
      s.pos++;
      if (s.eof) s.fail(['any character']);
      const escaped = s.peekCodePoint();
      out += escaped;
      s.pos += escaped.length;
      chunk = s.pos;
      continue;
    }
    s.pos++;
  }
}

/** `-` that is not the start of `->`: PostgREST allows dashes inside names (`first-name`). */
function atNameDash(s: Scanner): boolean {
  return s.peek() === '-' && s.peek(1) !== '>';
}

export interface Name {
  readonly name: string;
  /** `"inner"` is a hint named inner, `inner` is the join type: the quotes matter. */
  readonly quoted: boolean;
}

export const FIELD_NAME = 'field name';

/**
 * pFieldName: a quoted value, or identifier runs joined by dashes, each trimmed (`my col`, `first-name`).
 * NUL is refused here because no Postgres identifier can hold it.
 */
export function readFieldName(s: Scanner): Name {
  const start = s.pos;
  if (s.peek() === '"') {
    const name = readQuoted(s);
    if (name.includes('\u0000')) s.failWith('NUL character in identifier', start, name);
    return { name, quoted: true };
  }
  const parts: string[] = [];
  for (;;) {
    const partStart = s.pos;
    for (let ch = s.peekCodePoint(); isIdentChar(ch); ch = s.peekCodePoint()) s.pos += ch.length;
    if (s.pos === partStart) s.fail([FIELD_NAME]);
    parts.push(s.text.slice(partStart, s.pos).trim());
    if (!atNameDash(s)) break;
    s.pos++;
  }
  const name = parts.join('-');
  if (name === '') s.fail([FIELD_NAME], start);
  return { name, quoted: false };
}

// --- JSON paths --------------------------------------------------------------------------------------

/** Characters that end an unquoted JSON key: PostgREST's `noneOf "(-:.,>)"` (dash only before `>`). */
function isJsonKeyChar(c: string): boolean {
  return c !== '' && c !== '(' && c !== '-' && c !== ':' && c !== '.' && c !== ',' && c !== '>' && c !== ')';
}

/**
 * What may follow an array index for it to be an index (`data->0.desc`, `data->0,b`); otherwise `1a` is a
 * key. PostgREST omits `)` and whitespace here, so `rel(data->0)` indexed by the string "0"; we treat
 * them as ends too because an index is what the client meant.
 */
function atIndexEnd(s: Scanner): boolean {
  const c = s.peek();
  return c === '' || c === '.' || c === ',' || c === ')' || c === ' ' || c === '\t' || s.startsWith('->') || s.startsWith('::');
}

function readJsonOperand(s: Scanner): string | number {
  const start = s.pos;
  const negative = s.eat('-');
  const digitsStart = s.pos;
  while (s.peek() >= '0' && s.peek() <= '9') s.pos++;
  const digits = s.text.slice(digitsStart, s.pos);
  if (digits !== '' && atIndexEnd(s)) {
    const n = Number((negative ? '-' : '') + digits);
    if (!Number.isSafeInteger(n)) s.failWith('JSON array index out of range', start, s.text.slice(start, s.pos));
    return n;
  }
  if (negative) {
    // `->-x` or `->-7x`: a dash can only start a negative index.
    s.fail(digits === '' ? ['digit'] : ['digit', '"->"', '"::"', '"."', '","', 'end of input']);
  }
  s.pos = start;
  if (s.peek() === '"') return readQuoted(s);
  const parts: string[] = [];
  for (;;) {
    const partStart = s.pos;
    while (isJsonKeyChar(s.peek())) s.pos++;
    if (s.pos === partStart) s.fail(['JSON key or array index']);
    parts.push(s.text.slice(partStart, s.pos).trim());
    if (!atNameDash(s)) break;
    s.pos++;
  }
  return parts.join('-');
}

/** Zero or more `->key` / `->>key` / `->0` steps. */
export function readJsonPath(s: Scanner): JsonPathStep[] {
  const steps: JsonPathStep[] = [];
  while (s.startsWith('->')) {
    const op = s.startsWith('->>') ? '->>' : '->';
    s.pos += op.length;
    steps.push({ op, key: readJsonOperand(s) });
  }
  return steps;
}

/** pField: optional spaces, a field name, its JSON path, optional spaces. */
export function readField(s: Scanner): FieldRef {
  s.skipWs();
  const { name } = readFieldName(s);
  const jsonPath = readJsonPath(s);
  s.skipWs();
  return { name, jsonPath };
}

/** `a.b.c` → ['a','b','c'] (field names separated by dots, nothing else). */
export function readDottedNames(s: Scanner): string[] {
  const names = [readFieldName(s).name];
  while (s.eat('.')) names.push(readFieldName(s).name);
  return names;
}
