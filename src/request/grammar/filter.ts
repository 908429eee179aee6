// Horizontal filters (PostgREST's pOpExpr): `col=eq.5`, `rel.col=not.in.(1,2)`, `data->>a=like(any).{a*,b*}`.
// The operator grammar here is shared with logic trees, which only differ in how a value ends.
// Pure; values stay text (the planner binds them; it also turns `*` into `%` for like/ilike).
import type { Result } from '../../errors/types.js';
import { memoByText } from '../../memo.js';
import type { EmbedPath, FieldRef, Filter, FtsOperator, Operation, SimpleOperator } from '../types.js';
import {
  ParseFailure,
  type Scanner,
  readDottedNames,
  readIdentifier,
  readJsonPath,
  readQuoted,
  runParser,
  trimBlanks,
} from './scanner.js';

/** `rel.col=eq.5` → path ['rel'], filter on `col`. The value is taken verbatim after the operator. */
export function parseFilter(key: string, value: string): Result<{ path: string[]; filter: Filter }> {
  const target = treePathOf(key);
  if (!target.ok) return target;
  const quick = quickOperation(value);
  if (quick !== null) return { ok: true, value: { path: target.value.path, filter: { field: target.value.field, negated: false, operation: quick } } };
  const op = runParser(value, `failed to parse filter (${value})`, (s) => {
    const expr = readOpExpr(s, readRestValue);
    s.skipWs();
    s.expectEnd();
    return expr;
  });
  if (!op.ok) return op;
  return { ok: true, value: { path: target.value.path, filter: { field: target.value.field, ...op.value } } };
}

// A filter's key repeats from request to request while its value changes: the key's tree path is
// parsed once per text (its parts are read, never changed), and the commonest values, `eq.`, `neq.`,
// `gt.`, `gte.`, `lt.` and `lte.` followed by the value, skip the scanner: the operator grammar gives
// them exactly this (no `not.`, no quantifier, the rest verbatim). Some 1–2 µs a filter.
const treePathOf = memoByText(parseTreePath, 512, 256);
const QUICK_OPERATORS: ReadonlySet<string> = new Set<SimpleOperator>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte']);

/** The operation of `op.value` for the operators above; null for any other value (the scanner reads it). */
export function quickOperation(value: string): Operation | null {
  const dot = value.indexOf('.');
  if (dot !== 2 && dot !== 3) return null;
  const op = value.slice(0, dot);
  if (!QUICK_OPERATORS.has(op)) return null;
  return { kind: 'simple', op: op as SimpleOperator, value: value.slice(dot + 1), quantifier: null };
}

/** A filter key: `a.b.col->x` → path ['a','b'], field col->x (PostgREST's pTreePath). */
export function parseTreePath(key: string): Result<{ path: string[]; field: FieldRef }> {
  return runParser(key, `failed to parse tree path (${key})`, (s) => {
    const names = readDottedNames(s);
    const jsonPath = readJsonPath(s);
    s.expectEnd();
    const name = names.pop() as string; // readDottedNames returns at least one name
    return { path: names, field: { name, jsonPath } };
  });
}

/** `a.b.order` → ['a','b']: the embed path in front of a reserved word (order, limit, offset). */
export function parseEmbedPath(key: string): Result<EmbedPath> {
  return runParser(key, `failed to parse tree path (${key})`, (s) => {
    const names = readDottedNames(s);
    s.expectEnd();
    return names.slice(0, -1);
  });
}

const SIMPLE: ReadonlyArray<SimpleOperator> = ['neq', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'];
/** Only these take `(any)`/`(all)` (PostgREST's QuantOperator). */
const QUANTIFIABLE: ReadonlyArray<SimpleOperator> = ['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch'];
const FTS: ReadonlyArray<FtsOperator> = ['fts', 'plfts', 'phfts', 'wfts'];
const IS_VALUES = ['null', 'not_null', 'true', 'false', 'unknown'] as const;
const OPERATOR = 'operator (eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj)';

/** How an operator's value ends: the rest of the input for `col=eq.x`, `,` or `)` inside a logic tree. */
export type ValueReader = (s: Scanner) => string;

export const readRestValue: ValueReader = (s) => {
  const v = s.text.slice(s.pos);
  s.pos = s.text.length;
  return v;
};

/** `[not.]op[(modifier)].value` → negation and operation. */
export function readOpExpr(s: Scanner, readValue: ValueReader): { negated: boolean; operation: Operation } {
  const negated = s.eat('not.');
  return { negated, operation: readOperation(s, readValue, negated) };
}

function readOperation(s: Scanner, readValue: ValueReader, negated: boolean): Operation {
  const at = s.pos;
  while (/[a-z_]/.test(s.peek())) s.pos++;
  const word = s.text.slice(at, s.pos);
  if (word === 'in') {
    s.expect('.');
    return { kind: 'in', values: readList(s) };
  }
  if (word === 'is') {
    s.expect('.');
    return { kind: 'is', value: readIsValue(s) };
  }
  if (word === 'isdistinct') {
    s.expect('.');
    return { kind: 'simple', op: 'isdistinct', value: readValue(s), quantifier: null };
  }
  const fts = FTS.find((o) => o === word);
  if (fts !== undefined) {
    let language: string | null = null;
    if (s.eat('(')) {
      language = readIdentifier(s, 'text search configuration');
      s.expect(')');
    }
    s.expect('.');
    return { kind: 'fts', op: fts, language, value: readValue(s) };
  }
  const simple = SIMPLE.find((o) => o === word);
  if (simple !== undefined) {
    s.expect('.');
    return { kind: 'simple', op: simple, value: readValue(s), quantifier: null };
  }
  const quant = QUANTIFIABLE.find((o) => o === word);
  if (quant !== undefined) {
    let quantifier: 'any' | 'all' | null = null;
    if (s.startsWith('(')) {
      const q = s.pos + 1;
      if (s.eat('(any)')) quantifier = 'any';
      else if (s.eat('(all)')) quantifier = 'all';
      else s.fail(['"any"', '"all"'], q);
    }
    s.expect('.');
    if (quantifier === null) return { kind: 'simple', op: quant, value: readValue(s), quantifier: null };
    const valueAt = s.pos;
    const values = parseBraceList(readValue(s));
    if (values === null) s.failWith('malformed list', valueAt, s.text.slice(valueAt, s.pos), ['a list in braces like {a,b}']);
    return { kind: 'simple', op: quant, values, quantifier };
  }
  if (word === '') s.fail(negated ? [OPERATOR] : ['"not"', OPERATOR]);
  s.failWith('unknown operator', at, word, [OPERATOR]);
}

/** `is.null`, `is.NOT_NULL`, … case-insensitively (PostgREST's ciString). */
function readIsValue(s: Scanner): (typeof IS_VALUES)[number] {
  const at = s.pos;
  while (/[A-Za-z_]/.test(s.peek())) s.pos++;
  const word = s.text.slice(at, s.pos).toLowerCase();
  const value = IS_VALUES.find((v) => v === word);
  if (value === undefined) s.fail(['null', 'not_null', 'true', 'false', 'unknown'], at, s.text.slice(at, s.pos) || null);
  return value;
}

/**
 * `(1,2,"a,b", "q \"x\"")` (PostgREST's pListVal). A double-quoted element ends at its closing quote
 * (backslash escapes anything); spaces and tabs around elements are dropped — PostgREST keeps them
 * on unquoted elements after the first, so `in.(a, b)` there looks for " b". `in.()` is the empty list.
 */
export function readList(s: Scanner): string[] {
  s.skipWs();
  s.expect('(');
  s.skipWs();
  const values: string[] = [];
  if (s.eat(')')) {
    s.skipWs();
    return values;
  }
  for (;;) {
    values.push(readListElement(s));
    if (s.eat(',')) continue;
    if (s.eat(')')) break;
    s.fail(['","', '")"']);
  }
  s.skipWs();
  return values;
}

function readListElement(s: Scanner): string {
  const start = s.pos;
  s.skipWs();
  if (s.peek() === '"') {
    const save = s.pos;
    try {
      const v = readQuoted(s);
      s.skipWs();
      if (s.peek() === ',' || s.peek() === ')') return v;
    } catch (e) {
      // An unterminated quote is just text, as in PostgREST (`try pQuotedValue <|> raw`).
      if (!(e instanceof ParseFailure)) throw e;
    }
    s.pos = save;
  }
  s.pos = start;
  while (!s.eof && s.peek() !== ',' && s.peek() !== ')') s.pos++;
  return trimBlanks(s.text.slice(start, s.pos));
}

/**
 * `{a*,"b,c",d}` → ['a*','b,c','d'], the Postgres array-literal rules the (any)/(all) value is
 * written in: quotes and backslashes escape, unquoted elements are trimmed. Nested arrays → null.
 */
export function parseBraceList(text: string): string[] | null {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}') || t.length < 2) return null;
  const body = t.slice(1, -1);
  const values: string[] = [];
  if (body.trim() === '') return values;
  let i = 0;
  for (;;) {
    while (body[i] === ' ' || body[i] === '\t') i++;
    let v = '';
    if (body[i] === '"') {
      i++;
      for (;;) {
        if (i >= body.length) return null;
        const c = body[i];
        if (c === '"') break;
        if (c === '\\') {
          i++;
          if (i >= body.length) return null;
        }
        v += body[i];
        i++;
      }
      i++;
      while (body[i] === ' ' || body[i] === '\t') i++;
    } else {
      const start = i;
      while (i < body.length && body[i] !== ',') {
        if (body[i] === '{' || body[i] === '}' || body[i] === '"') return null;
        if (body[i] === '\\') i++;
        i++;
      }
      v = trimBlanks(body.slice(start, Math.min(i, body.length)).replace(/\\(.)/gs, '$1'));
    }
    values.push(v);
    if (i >= body.length) return values;
    if (body[i] !== ',') return null;
    i++;
  }
}
