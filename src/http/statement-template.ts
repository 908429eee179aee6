// A compiled statement with holes where request values go, found by planning a request twice —
// once with its own values, once with stand-ins — and comparing: one SQL text, and values that
// differ exactly where a request value went. Reads keep one per shape with their filter values left
// out (http/read-template.ts, read-prep.ts), POSTs one per body shape with the body as the one value
// (http/shape-memo.ts); a later request only puts its values into a copy. Pure.
import type { Statement } from '../sql/fragment.js';

/** A compiled statement whose parameter `holes[k]` takes the request's filter value `slots[k]`. */
export interface StatementTemplate {
  readonly text: string;
  readonly values: ReadonlyArray<unknown>;
  readonly holes: ReadonlyArray<number>;
  readonly slots: ReadonlyArray<number>;
  readonly name: string;
}

/**
 * The template when `a` (planned with `own`) and `b` (with `other`) have one text and their values
 * differ exactly where a filter value went: every differing parameter is `own[k]` in `a` and
 * `other[k]` in `b`. `used` collects the slots seen, so the caller can require each was bound.
 */
export function templateOf(
  a: Statement,
  b: Statement,
  own: ReadonlyArray<string>,
  other: ReadonlyArray<string>,
  name: string,
  used: Set<number>,
): StatementTemplate | null {
  if (a.text !== b.text || a.values.length !== b.values.length) return null;
  const holes: number[] = [];
  const slots: number[] = [];
  for (let i = 0; i < a.values.length; i++) {
    const x = a.values[i];
    const y = b.values[i];
    if (x === y) continue;
    const k = typeof y === 'string' ? other.indexOf(y) : -1;
    if (k === -1) {
      // Arrays or objects built anew per plan: equal when they serialise the same.
      if (typeof x === 'object' && typeof y === 'object' && JSON.stringify(x) === JSON.stringify(y)) continue;
      return null;
    }
    if (x !== own[k]) return null;
    holes.push(i);
    slots.push(k);
    used.add(k);
  }
  return { text: a.text, values: a.values, holes, slots, name };
}

/** The template's statement with `values` in its holes. */
export function fill(t: StatementTemplate, values: ReadonlyArray<string>): Statement {
  if (t.holes.length === 0) return { text: t.text, values: t.values, name: t.name };
  const out = t.values.slice();
  for (let h = 0; h < t.holes.length; h++) out[t.holes[h]!] = values[t.slots[h]!];
  return { text: t.text, values: out, name: t.name };
}
