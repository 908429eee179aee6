// `select=` grammar (PostgREST's pFieldForest): columns, aliases, casts, JSON paths, aggregates, embeds
// with hints and join types, spreads. Pure; no schema knowledge — whether `rel` is a relationship and
// `int` a type is the planner's question.
import type { Result } from '../../errors/types.js';
import type { AggregateName, SelectItem } from '../types.js';
import {
  FIELD_NAME,
  MAX_DEPTH,
  type Scanner,
  readFieldName,
  readIdentifier,
  readJsonPath,
  runParser,
} from './scanner.js';

/**
 * `select=id,alias:data->>x::int,total:amount.sum(),count(),client!hint!inner(*),...rel(a,b)`.
 * The empty string is an empty list (PostgREST: `select=` selects no columns). Like PostgREST's
 * pFieldForest (a `sepBy` with no end-of-input check), the list ends at the first top-level
 * character that is not a `,` after a complete item, and the rest is ignored: `id,name)` is `id,name`.
 */
export function parseSelect(text: string): Result<SelectItem[]> {
  return runParser(text, `failed to parse select parameter (${text})`, (s) => readForest(s, 0));
}

const AGGREGATES: ReadonlyArray<AggregateName> = ['count', 'sum', 'avg', 'min', 'max'];

/** Items separated by commas, until `)` (inside an embed) or the end. Empty lists are allowed: `rel!inner()`. */
function readForest(s: Scanner, depth: number): SelectItem[] {
  if (depth > MAX_DEPTH) s.failWith(`too deeply nested (more than ${MAX_DEPTH} levels)`, s.pos);
  const items: SelectItem[] = [];
  s.skipWs();
  if (s.eof || s.peek() === ')') return items;
  for (;;) {
    items.push(readItem(s, depth));
    s.skipWs();
    if (!s.eat(',')) break;
    s.skipWs();
  }
  if (depth > 0 && s.peek() !== ')') s.fail(['","', '")"']);
  return items;
}

/** After an item only `,`, `)` or the end may follow (PostgREST's pEnd). */
function expectItemEnd(s: Scanner, expected: ReadonlyArray<string>): void {
  s.skipWs();
  const c = s.peek();
  if (c !== '' && c !== ',' && c !== ')') s.fail([...expected, '","', '")"', 'end of input']);
}

function readItem(s: Scanner, depth: number): SelectItem {
  s.skipWs();
  if (s.eat('...')) {
    // `...rel!hint!inner(cols)`: a spread takes no alias (PostgREST rejects `alias:...rel`).
    const { name } = readFieldName(s);
    return readEmbedRest(s, depth, name, null, true);
  }
  if (s.peek() === '*') {
    s.pos++;
    expectItemEnd(s, []);
    return { kind: 'star' };
  }
  let alias: string | null = null;
  if (!s.startsWith('count()')) {
    const first = readFieldName(s);
    s.skipWs();
    if (s.peek() === ':' && s.peek(1) !== ':') {
      s.pos++;
      s.skipWs();
      alias = first.name;
    } else {
      return readNamed(s, depth, first.name, null);
    }
  }
  if (s.eat('count()')) {
    // `count()` / `alias:count()::int`: counts rows, the cast applies to the count.
    const cast = readCast(s);
    expectItemEnd(s, cast === null ? ['"::"'] : []);
    return { kind: 'count', alias, cast };
  }
  if (s.peek() === '*') s.fail([FIELD_NAME]);
  return readNamed(s, depth, readFieldName(s).name, alias);
}

/** What follows a (possibly aliased) name: an embed `(`/`!`, or a field with path, cast and aggregate. */
function readNamed(s: Scanner, depth: number, name: string, alias: string | null): SelectItem {
  s.skipWs();
  if ((s.peek() === '(' || s.peek() === '!') && name !== 'count') {
    return readEmbedRest(s, depth, name, alias, false);
  }
  const jsonPath = readJsonPath(s);
  s.skipWs();
  const cast = readCast(s);
  let aggregate: AggregateName | null = null;
  let aggregateCast: string | null = null;
  if (s.peek() === '.') {
    const at = s.pos;
    s.pos++;
    aggregate = AGGREGATES.find((a) => s.startsWith(`${a}()`)) ?? null;
    if (aggregate === null) s.fail(['aggregate (sum(), avg(), count(), min(), max())'], at + 1);
    s.pos += aggregate.length + 2;
    aggregateCast = readCast(s);
  }
  // The tokens that could still have followed, for a precise error.
  const expected: string[] = [];
  if (aggregate === null) {
    if (cast === null) {
      expected.push('"->"', '"::"');
      if (jsonPath.length === 0 && name !== 'count') expected.push('"("', '"!"');
    }
    expected.push('"."');
  } else if (aggregateCast === null) {
    expected.push('"::"');
  }
  expectItemEnd(s, expected);
  return { kind: 'field', field: { name, jsonPath }, alias, cast, aggregate, aggregateCast };
}

/** `::type` (letters, digits, `_`, `$`, spaces: `::double precision`), or null. */
function readCast(s: Scanner): string | null {
  if (!s.eat('::')) return null;
  const cast = readIdentifier(s, 'type name');
  s.skipWs();
  return cast;
}

/**
 * `!hint`, `!inner`, `!left` (at most one hint and one join type, in either order) then `(forest)`.
 * Only the unquoted words inner/left are join types, so a foreign key named `inner` is `!"inner"`;
 * PostgREST matches the prefix, so `!leftovers` fails there — here it is a hint.
 */
function readEmbedRest(s: Scanner, depth: number, relation: string, alias: string | null, spread: boolean): SelectItem {
  let hint: string | null = null;
  let joinType: 'inner' | 'left' | null = null;
  s.skipWs();
  while (s.peek() === '!') {
    s.pos++;
    const at = s.pos;
    const param = readFieldName(s);
    if (!param.quoted && (param.name === 'inner' || param.name === 'left')) {
      if (joinType !== null) s.failWith('more than one join type', at, param.name);
      joinType = param.name;
    } else {
      if (hint !== null) s.failWith('more than one embedding hint', at, param.name);
      hint = param.name;
    }
    s.skipWs();
  }
  if (s.peek() !== '(') s.fail(hint === null || joinType === null ? ['"!"', '"("'] : ['"("']);
  s.pos++;
  const select = readForest(s, depth + 1);
  s.expect(')');
  return { kind: 'embed', relation, alias, hint, joinType, spread, select };
}
