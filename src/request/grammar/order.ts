// `order=` grammar (PostgREST's pOrder): `a,b.desc,c.asc.nullsfirst,data->>x.desc,rel(col).desc`.
// Pure; whether `rel` is a to-one embed is the planner's question.
import type { Result } from '../../errors/types.js';
import type { OrderTerm } from '../types.js';
import { type Scanner, readField, readFieldName, runParser } from './scanner.js';

export function parseOrder(value: string): Result<OrderTerm[]> {
  return runParser(value, `failed to parse order (${value})`, (s) => {
    const terms = [readTerm(s)];
    while (s.eat(',')) terms.push(readTerm(s));
    s.expectEnd();
    return terms;
  });
}

function readTerm(s: Scanner): OrderTerm {
  s.skipWs();
  const start = s.pos;
  // `rel(col)` when a name is directly followed by `(`; otherwise a plain field with a JSON path.
  let relation: string | null = null;
  const { name } = readFieldName(s);
  if (s.peek() === '(') {
    relation = name;
    s.pos++;
    const field = readField(s);
    s.expect(')');
    return { relation, field, ...readModifiers(s) };
  }
  s.pos = start;
  const field = readField(s);
  return { relation, field, ...readModifiers(s) };
}

/** `.asc|.desc` then `.nullsfirst|.nullslast`, each optional, in that order; then `,` or the end. */
function readModifiers(s: Scanner): Pick<OrderTerm, 'direction' | 'nulls'> {
  let direction: OrderTerm['direction'] = null;
  let nulls: OrderTerm['nulls'] = null;
  while (s.peek() === '.') {
    s.pos++;
    const at = s.pos;
    while (/[A-Za-z0-9_]/.test(s.peek())) s.pos++;
    const word = s.text.slice(at, s.pos);
    if (direction === null && nulls === null && (word === 'asc' || word === 'desc')) direction = word;
    else if (nulls === null && word === 'nullsfirst') nulls = 'first';
    else if (nulls === null && word === 'nullslast') nulls = 'last';
    else {
      const allowed = nulls !== null ? [] : direction !== null ? ['"nullsfirst"', '"nullslast"'] : ['"asc"', '"desc"', '"nullsfirst"', '"nullslast"'];
      if (allowed.length === 0) s.fail(['","', 'end of input'], at - 1);
      s.fail(allowed, at, word === '' ? null : word);
    }
  }
  s.skipWs();
  if (!s.eof && s.peek() !== ',') {
    const expected = nulls !== null ? [] : direction !== null ? ['"."'] : ['"->"', '"->>"', '"."'];
    s.fail([...expected, '","', 'end of input']);
  }
  return { direction, nulls };
}
