// Accept and Content-Type headers → media types (RFC 9110 §8.3, §12.5.1). Pure and forgiving: a
// malformed Accept entry is skipped, not fatal, because browsers and proxies send odd headers and
// the negotiator can still answer from the rest. Choosing a representation is plan/negotiate's job.
import type { ContentType } from './api-request.js';
import type { MediaRange } from './types.js';

/** `type/subtype; k=v` without a weight: what Content-Type carries and what we send back. */
export type MediaType = ContentType;

/** RFC 9110 tchar. */
function isTokenChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
    c === 0x21 || (c >= 0x23 && c <= 0x27) || c === 0x2a || c === 0x2b || c === 0x2d || c === 0x2e ||
    c === 0x5e || c === 0x5f || c === 0x60 || c === 0x7c || c === 0x7e
  );
}

/** Cursor over one header value; every method is linear in what it consumes. */
class Cursor {
  pos = 0;
  constructor(readonly text: string) {}
  get eof(): boolean {
    return this.pos >= this.text.length;
  }
  peek(): string {
    return this.text.charAt(this.pos);
  }
  skipOws(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }
  token(): string | null {
    const start = this.pos;
    while (this.pos < this.text.length && isTokenChar(this.text.charCodeAt(this.pos))) this.pos++;
    return this.pos > start ? this.text.slice(start, this.pos) : null;
  }
  /** quoted-string with backslash escapes; null if unterminated. */
  quoted(): string | null {
    this.pos++; // opening quote
    let out = '';
    while (this.pos < this.text.length) {
      const c = this.text[this.pos++] as string;
      if (c === '"') return out;
      if (c === '\\' && this.pos < this.text.length) out += this.text[this.pos++];
      else out += c;
    }
    return null;
  }
  /** Skip to just after the next `,` outside quotes (or the end): recovering from a bad entry. */
  skipEntry(): void {
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        return;
      }
      if (c === '"') {
        if (this.quoted() === null) return;
      } else this.pos++;
    }
  }
}

/** `type/subtype *(; name=value)`, names and type lower-cased; null when malformed. */
function readMediaType(c: Cursor, allowBareStar: boolean): MediaType | null {
  c.skipOws();
  const type = c.token();
  if (type === null) return null;
  let subtype: string | null;
  if (c.peek() === '/') {
    c.pos++;
    subtype = c.token();
    if (subtype === null) return null;
  } else if (allowBareStar && type === '*') {
    // Old Java clients send `Accept: *; q=.2`; read it as `*/*`.
    subtype = '*';
  } else {
    return null;
  }
  if (type === '*' && subtype !== '*') return null;
  // A Map, then fromEntries: `__proto__` or `constructor` as a parameter name stays a plain own key.
  const params = new Map<string, string>();
  for (;;) {
    c.skipOws();
    if (c.peek() !== ';') break;
    c.pos++;
    c.skipOws();
    if (c.eof || c.peek() === ',' || c.peek() === ';') continue; // tolerate `text/html;` and `;;`
    const name = c.token();
    if (name === null || c.peek() !== '=') return null;
    c.pos++;
    // An empty value (`options=;`, as postgrest-js's explain() sends) reads as the empty string.
    const value = c.peek() === '"' ? c.quoted() : (c.token() ?? '');
    if (value === null) return null;
    const key = name.toLowerCase();
    if (!params.has(key)) params.set(key, value);
  }
  return { type: type.toLowerCase(), subtype: subtype.toLowerCase(), params: Object.fromEntries(params) };
}

/** RFC 9110 qvalue, leniently: `0`, `1`, `0.5`, `.5`, `1.000`; null if not a number in [0, 1]. */
function parseQ(text: string): number | null {
  if (text.length === 0 || text.length > 16) return null;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '.') dots++;
    else if (ch === undefined || ch < '0' || ch > '9') return null;
  }
  if (dots > 1 || text === '.') return null;
  const q = Number(text);
  return q >= 0 && q <= 1 ? q : null;
}

const ANY: MediaRange = { type: '*', subtype: '*', params: {}, q: 1 };

/**
 * `Accept` → media ranges, highest q first, then the more specific, ties in header order; `q=0` ranges are dropped (the client
 * refuses them). A missing or blank header means `*\/*`. Malformed entries are skipped; if nothing
 * usable remains the list is empty (nothing acceptable → 406).
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [ANY];
  const c = new Cursor(header);
  const ranges: MediaRange[] = [];
  while (!c.eof) {
    c.skipOws();
    if (c.peek() === ',') {
      c.pos++;
      continue;
    }
    const m = readMediaType(c, true);
    c.skipOws();
    if (m === null || !(c.eof || c.peek() === ',')) {
      c.skipEntry();
      continue;
    }
    c.pos++; // the comma (or past the end)
    const { q: qText, ...params } = m.params;
    const q = qText === undefined ? 1 : parseQ(qText);
    if (q === null || q === 0) continue;
    ranges.push({ type: m.type, subtype: m.subtype, params, q });
  }
  if (ranges.length < 2) return ranges;
  // Highest q first; then, as PostgREST (wai's parseHttpAccept) does, the more specific range first:
  // specificity is the number of parameters (q aside) minus the number of `*`, so `text/csv` goes
  // before `*/*` and `…;nulls=stripped` before plain types. Array.prototype.sort is stable, so equal
  // keys keep header order.
  return ranges.sort((a, b) => b.q - a.q || specificity(b) - specificity(a));
}

function specificity(m: MediaRange): number {
  return Object.keys(m.params).length - (m.type === '*' ? 1 : 0) - (m.subtype === '*' ? 1 : 0);
}

/**
 * The Accept header's entries as PostgREST names them in its 406 message (wai's parseHttpAccept, then
 * decodeMediaType): spaces removed, each entry cut at its first `;`, garbage kept as written
 * (`Accept: ;;;` names ``, `text/` names `text/`), ordered by weight (an unreadable weight is 1)
 * then by specificity (`;` count minus `*` count), ties in header order.
 */
export function acceptEntriesAsNamed(header: string): string[] {
  const entries = header.replace(/ /g, '').split(',').map((entry, i) => {
    const at = entry.indexOf(';q=');
    const weight = at < 0 ? NaN : Number.parseFloat(entry.slice(at + 3));
    const bare = at < 0 ? entry : entry.slice(0, at);
    const specificity = (bare.match(/;/g)?.length ?? 0) - (bare.match(/\*/g)?.length ?? 0);
    return { name: entry.split(';')[0] as string, q: Number.isNaN(weight) ? 1 : weight, specificity, i };
  });
  entries.sort((a, b) => b.q - a.q || b.specificity - a.specificity || a.i - b.i);
  return entries.map((e) => e.name);
}

/** `Content-Type` → media type, or null when absent or malformed (a list is malformed here). */
export function parseContentType(header: string | undefined): MediaType | null {
  if (header === undefined) return null;
  const c = new Cursor(header);
  const m = readMediaType(c, false);
  c.skipOws();
  if (m === null || !c.eof || m.type === '*' || m.subtype === '*') return null;
  return m;
}

function formatParamValue(v: string): string {
  let token = v.length > 0;
  for (let i = 0; i < v.length && token; i++) token = isTokenChar(v.charCodeAt(i));
  return token ? v : `"${v.replace(/["\\]/g, (ch) => `\\${ch}`)}"`;
}

/** `{application, json, {charset: utf-8}}` → `application/json; charset=utf-8` (a weight is not rendered). */
export function mediaTypeToString(m: MediaType | MediaRange): string {
  let out = `${m.type}/${m.subtype}`;
  for (const [k, v] of Object.entries(m.params)) out += `; ${k}=${formatParamValue(v)}`;
  return out;
}
