// The whole query string → QueryParams (PostgREST's QueryParams.parse): routes each parameter to its
// grammar by name. Pure; the caller says which names are RPC arguments (GET /rpc/f?a=1), since that
// needs the schema cache.
import { ok, type Result } from '../../errors/types.js';
import type { EmbedPath, LogicTree, OrderTerm, QueryParams, SelectItem } from '../types.js';
import { parseEmbedPath, parseFilter } from './filter.js';
import { parseLogicTree } from './logic-tree.js';
import { parseOrder } from './order.js';
import { parseLimit, parseOffset } from './range.js';
import { readFieldName, runParser, type Scanner } from './scanner.js';
import { parseSelect } from './select.js';
import { memoByText } from '../../memo.js';

export interface QueryParamsOptions {
  /** True for names the planner will bind to arguments of the called function. */
  readonly isRpcArg?: (name: string) => boolean;
  /**
   * `GET`/`HEAD /rpc/f`: the first occurrence of a parameter name is that argument; any other
   * parameter whose value is not a filter (`x=1`, not `x=gt.1`) is an argument too, so an unknown
   * name makes the call unmatched (404 DBRST202) instead of a filter parse error (PostgREST's
   * QueryParams.parse with isRpcRead).
   */
  readonly rpcRead?: boolean;
}

/**
 * A `select=` is parsed once per text: clients send the same one with every request while its
 * filter values change (W3's `?select=…,tracks(…)&artist_id=eq.<random>`), so the whole query string
 * is seldom seen twice. Its items are read, never changed (the planner builds its own).
 */
const selectOf = memoByText(parseSelect, 256, 4096);
/** `order=` too: the same few per client (`id`, `id.desc`). */
const orderOf = memoByText(parseOrder, 256, 1024);

/** Reserved only as whole names. */
const RESERVED = new Set(['select', 'columns', 'on_conflict']);
/** Reserved as the last dot-separated word, so they can target an embed: `actors.order`, `actors.or`. */
const RESERVED_EMBEDDABLE = new Set(['order', 'limit', 'offset', 'and', 'or']);

/**
 * Walk every parameter in order. `select`, `columns`, `on_conflict`: the first occurrence wins
 * (PostgREST looks the name up once). `limit`/`offset` per embed path: the last wins (a map in
 * PostgREST). Filters, logic trees and orders are all kept, in query-string order.
 */
export function parseQueryParams(
  search: URLSearchParams | ReadonlyArray<readonly [string, string]>,
  opts: QueryParamsOptions = {},
): Result<QueryParams> {
  let select: ReadonlyArray<SelectItem> | null = null;
  let columns: ReadonlyArray<string> | null = null;
  let onConflict: ReadonlyArray<string> | null = null;
  const seen = new Set<string>();
  const logic: Array<{ readonly path: EmbedPath; readonly tree: LogicTree }> = [];
  const order: Array<{ readonly path: EmbedPath; readonly terms: ReadonlyArray<OrderTerm> }> = [];
  const ranges = new Map<string, { path: EmbedPath; offset: number; limit: number | null }>();
  const rpcArgs: Array<readonly [string, string]> = [];
  const argNamesSeen = new Set<string>();

  const rangeFor = (path: EmbedPath) => {
    const k = JSON.stringify(path);
    let r = ranges.get(k);
    if (r === undefined) {
      r = { path, offset: 0, limit: null };
      ranges.set(k, r);
    }
    return r;
  };

  for (const [key, value] of search) {
    if (RESERVED.has(key)) {
      if (seen.has(key)) continue;
      seen.add(key);
      if (key === 'select') {
        const r = selectOf(value);
        if (!r.ok) return r;
        select = r.value;
      } else {
        const r = parseColumns(key === 'columns' ? 'columns' : 'on_conflict', value);
        if (!r.ok) return r;
        if (key === 'columns') columns = r.value;
        else onConflict = r.value;
      }
      continue;
    }
    const last = key.slice(key.lastIndexOf('.') + 1);
    if (RESERVED_EMBEDDABLE.has(last)) {
      if (last === 'and' || last === 'or') {
        const r = parseLogicTree(key, value);
        if (!r.ok) return r;
        logic.push(r.value);
        continue;
      }
      const path = parseEmbedPath(key);
      if (!path.ok) return path;
      if (last === 'order') {
        const r = orderOf(value);
        if (!r.ok) return r;
        order.push({ path: path.value, terms: r.value });
      } else if (last === 'limit') {
        const r = parseLimit(value);
        if (!r.ok) return r;
        rangeFor(path.value).limit = r.value;
      } else {
        const r = parseOffset(value);
        if (!r.ok) return r;
        rangeFor(path.value).offset = r.value;
      }
      continue;
    }
    if (key !== '' && opts.isRpcArg?.(key) === true && !(opts.rpcRead === true && argNamesSeen.has(key))) {
      argNamesSeen.add(key);
      rpcArgs.push([key, value]);
      continue;
    }
    // Everything else is a filter; an empty name fails here as "failed to parse tree path ()".
    const r = parseFilter(key, value);
    if (!r.ok) {
      if (opts.rpcRead === true && key !== '' && !key.includes('.')) {
        rpcArgs.push([key, value]);
        continue;
      }
      return r;
    }
    logic.push({ path: r.value.path, tree: { kind: 'filter', filter: r.value.filter } });
  }

  return ok({ select, logic, order, ranges: [...ranges.values()], columns, onConflict, rpcArgs });
}

/** `columns=a, b,"c d"` → ['a','b','c d'] (PostgREST's pColumns: field names, commas, optional spaces). */
export function parseColumns(param: 'columns' | 'on_conflict', value: string): Result<string[]> {
  return runParser(value, `failed to parse ${param} parameter (${value})`, (s: Scanner) => {
    const names: string[] = [];
    for (;;) {
      s.skipWs();
      names.push(readFieldName(s).name);
      s.skipWs();
      if (!s.eat(',')) break;
    }
    if (!s.eof) s.fail(['","', 'end of input']);
    return names;
  });
}
