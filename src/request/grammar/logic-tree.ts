// `or=(a.eq.1,and(b.gt.2,not.c.is.null))` and friends (PostgREST's pLogicTree). Children are filters
// in `col.op.value` form or nested groups; values end at `,` or `)` unless quoted or written `{…}`.
// Pure; no schema knowledge.
import type { Result } from '../../errors/types.js';
import type { LogicTree } from '../types.js';
import { readOpExpr, type ValueReader } from './filter.js';
import { MAX_DEPTH, ParseFailure, type Scanner, readDottedNames, readField, readQuoted, runParser } from './scanner.js';

/**
 * `key` is `or`, `and`, `not.or`, `not.and`, optionally after an embed path (`actors.or`,
 * `actors.not.and`); `value` is the parenthesised list. → the embed path and the tree.
 */
export function parseLogicTree(key: string, value: string): Result<{ path: string[]; tree: LogicTree }> {
  const head = runParser(key, `failed to parse logic path (${key})`, (s) => {
    const names = readDottedNames(s);
    s.expectEnd();
    const op = names[names.length - 1] ?? '';
    const kind: 'and' | 'or' = op === 'and' ? 'and' : op === 'or' ? 'or' : s.fail(['"and"', '"or"'], key.length - op.length, op);
    // PostgREST drops every `not` segment from the path and negates the group if there was one.
    const init = names.slice(0, -1);
    return { kind, negated: init.includes('not'), path: init.filter((n) => n !== 'not') };
  });
  if (!head.ok) return head;
  const { kind, negated, path } = head.value;
  const tree = runParser(value, `failed to parse logic tree (${value})`, (s) => {
    // PostgREST's pLogicTree stops at the group's closing parenthesis: what follows is ignored.
    const children = readGroupBody(s, 1);
    const tree: LogicTree = { kind, negated, children };
    return tree;
  });
  if (!tree.ok) return tree;
  return { ok: true, value: { path, tree: tree.value } };
}

/** `( child , child … )` with spaces allowed around the parentheses and commas; at least one child. */
function readGroupBody(s: Scanner, depth: number): LogicTree[] {
  if (depth > MAX_DEPTH) s.failWith(`too deeply nested (more than ${MAX_DEPTH} levels)`, s.pos);
  s.skipWs();
  s.expect('(');
  const children: LogicTree[] = [];
  for (;;) {
    s.skipWs();
    children.push(readChild(s, depth));
    s.skipWs();
    if (s.eat(',')) continue;
    if (s.eat(')')) break;
    s.fail(['","', '")"']);
  }
  s.skipWs();
  return children;
}

/** `and(` / `or(` / `not.and(` … starts a group; anything else is a filter. Decided by looking ahead. */
function groupAhead(s: Scanner): { kind: 'and' | 'or'; negated: boolean } | null {
  const save = s.pos;
  const negated = s.eat('not.');
  const kind = s.eat('and') ? 'and' : s.eat('or') ? 'or' : null;
  s.skipWs();
  const isGroup = kind !== null && s.peek() === '(';
  if (!isGroup) s.pos = save;
  return isGroup ? { kind, negated } : null;
}

function readChild(s: Scanner, depth: number): LogicTree {
  const group = groupAhead(s);
  if (group !== null) {
    return { ...group, children: readGroupBody(s, depth + 1) };
  }
  if (s.eof || s.peek() === ')' || s.peek() === ',') {
    s.fail(['field name', 'negation operator (not)', 'logic operator (and, or)']);
  }
  const field = readField(s);
  s.expect('.');
  const { negated, operation } = readOpExpr(s, readLogicValue);
  return { kind: 'filter', filter: { field, negated, operation } };
}

/**
 * PostgREST's pLogicSingleVal: a quoted value if a `,` or `)` follows its closing quote, else a
 * `{…}` array literal (commas inside are kept), else everything up to the next `,` or `)`.
 */
const readLogicValue: ValueReader = (s) => {
  const start = s.pos;
  if (s.peek() === '"') {
    try {
      const v = readQuoted(s);
      if (s.eof || s.peek() === ',' || s.peek() === ')') return v;
    } catch (e) {
      if (!(e instanceof ParseFailure)) throw e;
    }
    s.pos = start;
  }
  if (s.peek() === '{') {
    let i = s.pos + 1;
    while (i < s.text.length && s.text[i] !== '{' && s.text[i] !== '}') i++;
    if (s.text[i] === '}') {
      s.pos = i + 1;
      return s.text.slice(start, s.pos);
    }
  }
  while (!s.eof && s.peek() !== ',' && s.peek() !== ')') s.pos++;
  return s.text.slice(start, s.pos);
};
