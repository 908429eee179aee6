// Reads of one shape with other filter values (`/tracks?id=eq.17`, `/tracks?id=eq.90210`) give
// the same SQL text: only the parameters that carry the values change. So a read's prepared
// statements are kept per shape with the values left out of the key, and a later read of that
// shape only puts its own values into copies of the values arrays.
//
// Only values that reach SQL verbatim as one parameter are left out: those of `eq`, `neq`, `gt`,
// `gte`, `lt`, `lte`, `isdistinct`, `match`, `imatch`, the range and array operators and the
// full-text ones (their configuration stays in the key). A value that is transformed (`like`'s
// `*`), or whose form changes the SQL (`in.(…)`'s length, `is.null` against `is.true`, `(any)`
// lists), stays in the key, as do logic trees, select, order, limit and offset.
//
// The template is checked, not assumed (http/statement-template.ts, as for POST bodies): the first
// read of a shape is planned again with stand-in values, and kept only when both give the same SQL
// text and their values differ exactly where the URL's values go. Pure.
import type { Operation, QueryParams } from '../request/types.js';

/** Operators whose value is bound as it is, as one parameter. */
const VERBATIM = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'isdistinct', 'match', 'imatch', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj']);
/** `[not.]op.` or `[not.]fts(config).` at the start of a raw (still percent-encoded) filter value. */
const VERBATIM_PREFIX =
  /^(?:not\.)?(?:(?:eq|neq|gt|gte|lt|lte|isdistinct|match|imatch|cs|cd|ov|sl|sr|nxr|nxl|adj)\.|(?:fts|plfts|phfts|wfts)(?:\([A-Za-z0-9_]*\))?\.)/;
/** Names that are not filters (request/grammar/query.ts), as whole names or last dotted words. */
const NOT_FILTER = new Set(['select', 'columns', 'on_conflict', 'order', 'limit', 'offset', 'and', 'or']);
/** A raw filter name the key can keep as it is: nothing percent-encoded, no `+`. */
const PLAIN_NAME = /^[^%+]+$/;

/**
 * The query string with the values of top-level verbatim filters cut out (`id=eq.&order=id`),
 * or null when it has none (the whole string is then the shape).
 */
export function valuelessSearch(search: string): string | null {
  if (search === '') return null;
  let cut = false;
  const parts = search.split('&');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq);
    if (!PLAIN_NAME.test(name) || NOT_FILTER.has(name.slice(name.lastIndexOf('.') + 1))) continue;
    const m = VERBATIM_PREFIX.exec(part.slice(eq + 1));
    if (m === null) continue;
    parts[i] = part.slice(0, eq + 1 + m[0].length);
    cut = true;
  }
  return cut ? parts.join('&') : null;
}

const verbatim = (op: Operation): op is Extract<Operation, { value: string }> & ({ kind: 'fts' } | { kind: 'simple'; quantifier: null }) =>
  op.kind === 'fts' || (op.kind === 'simple' && op.quantifier === null && VERBATIM.has(op.op));

/** The values of the top-level verbatim filters, in query-string order: what a template takes. */
export function filterValues(query: QueryParams): string[] {
  const out: string[] = [];
  for (const { tree } of query.logic) {
    if (tree.kind === 'filter' && verbatim(tree.filter.operation)) out.push(tree.filter.operation.value);
  }
  return out;
}

/** The query with those values replaced, in order, by `values`. */
export function withFilterValues(query: QueryParams, values: ReadonlyArray<string>): QueryParams {
  let i = 0;
  const logic = query.logic.map((entry) => {
    const { tree } = entry;
    if (tree.kind !== 'filter' || !verbatim(tree.filter.operation)) return entry;
    const operation = { ...tree.filter.operation, value: values[i++]! };
    return { path: entry.path, tree: { kind: 'filter' as const, filter: { ...tree.filter, operation } } };
  });
  return { ...query, logic };
}

/** Values no URL of this shape is likely to hold, one per slot, unlike each other. */
export const standIns = (count: number): string[] => Array.from({ length: count }, (_, i) => `\u0001dbrest-stand-in-${i}`);
