// `limit=`, `offset=` and the `Range: first-last` request header, as plain numbers. Pure; turning them
// into the range a query reads (and 416 DBRST103) is the planner's job.
import { errors } from '../../errors/catalog.js';
import { err, ok, type Result } from '../../errors/types.js';
import type { RangeHeader } from '../types.js';

/** ASCII digits only, within Number's exact integers; null otherwise. */
function nonNegativeInteger(text: string): number | null {
  if (text.length === 0) return null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return null;
  }
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** An optional minus sign and ASCII digits: PostgREST reads `limit`/`offset` as signed integers. */
function integer(text: string): number | null {
  if (text.startsWith('-')) {
    const n = nonNegativeInteger(text.slice(1));
    return n === null ? null : -n;
  }
  return nonNegativeInteger(text);
}

/**
 * `limit=25`. Spaces around the number are ignored (Haskell's `read` does the same). A negative
 * number parses: the planner answers 416 for it, as PostgREST does.
 */
export function parseLimit(value: string): Result<number> {
  const n = integer(value.trim());
  if (n === null) {
    return err(errors.DBRST100(`failed to parse limit parameter (${value})`, {
      details: 'limit must be an integer',
    }));
  }
  return ok(n);
}

/** `offset=50`. A negative offset parses; the planner treats it as no offset (PostgREST v16). */
export function parseOffset(value: string): Result<number> {
  const n = integer(value.trim());
  if (n === null) {
    return err(errors.DBRST100(`failed to parse offset parameter (${value})`, {
      details: 'offset must be an integer',
    }));
  }
  return ok(n);
}

/**
 * `Range: 0-9` → {first 0, last 9}; `10-` → {first 10, last null}. Anything else (`items=0-9`, `-5`,
 * `a-b`) → null: PostgREST ignores a Range header it cannot read (its `^([0-9]+)-([0-9]*)$`). A
 * well-formed but inverted range (`10-5`) is returned as is so the planner can answer 416 like PostgREST.
 */
export function parseRangeHeader(value: string): RangeHeader | null {
  const text = value.trim();
  const dash = text.indexOf('-');
  if (dash <= 0) return null;
  const first = nonNegativeInteger(text.slice(0, dash));
  if (first === null) return null;
  const rest = text.slice(dash + 1);
  if (rest === '') return { first, last: null };
  const last = nonNegativeInteger(rest);
  return last === null ? null : { first, last };
}
