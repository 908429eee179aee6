// HTTP → ApiRequest: what the client asked for, parsed but not yet checked against the schema.
// Nothing here knows tables or columns exist; the planner does that.

/** `->'key'` is `{ op: '->', key }`, `->>0` is `{ op: '->>', key: 0 }`. */
export interface JsonPathStep {
  readonly op: '->' | '->>';
  readonly key: string | number;
}

/** `data->a->>b` : name `data`, jsonPath [->a, ->>b]. */
export interface FieldRef {
  readonly name: string;
  readonly jsonPath: ReadonlyArray<JsonPathStep>;
}

export type AggregateName = 'count' | 'sum' | 'avg' | 'min' | 'max';

/** One item of `select=`. */
export type SelectItem =
  /** `*` */
  | { readonly kind: 'star' }
  /** `alias:col->x::text`, `col.sum()`, `total:amount.sum()::int` */
  | {
      readonly kind: 'field';
      readonly field: FieldRef;
      readonly alias: string | null;
      readonly cast: string | null;
      readonly aggregate: AggregateName | null;
      /** cast applied to the aggregate's result: `amount.sum()::int` */
      readonly aggregateCast: string | null;
    }
  /** `count()` with no column */
  | { readonly kind: 'count'; readonly alias: string | null; readonly cast: string | null }
  /** `alias:rel!hint!inner(select…)` and spread `...rel(select…)` */
  | {
      readonly kind: 'embed';
      readonly relation: string;
      readonly alias: string | null;
      readonly hint: string | null;
      readonly joinType: 'inner' | 'left' | null;
      readonly spread: boolean;
      readonly select: ReadonlyArray<SelectItem>;
    };

export type SimpleOperator =
  | 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'
  | 'like' | 'ilike' | 'match' | 'imatch'
  | 'cs' | 'cd' | 'ov' | 'sl' | 'sr' | 'nxr' | 'nxl' | 'adj'
  | 'isdistinct';

export type FtsOperator = 'fts' | 'plfts' | 'phfts' | 'wfts';

export type Operation =
  /** `eq.5`, `like(any).{a*,b*}` — for any/all `values` holds the list, else `value` the text */
  | { readonly kind: 'simple'; readonly op: SimpleOperator; readonly value: string; readonly quantifier: null }
  | { readonly kind: 'simple'; readonly op: SimpleOperator; readonly values: ReadonlyArray<string>; readonly quantifier: 'any' | 'all' }
  /** `in.(1,2,"a,b")` */
  | { readonly kind: 'in'; readonly values: ReadonlyArray<string> }
  /** `is.null`, `is.not_null`, `is.true`, `is.false`, `is.unknown` */
  | { readonly kind: 'is'; readonly value: 'null' | 'not_null' | 'true' | 'false' | 'unknown' }
  /** `fts(english).cat` */
  | { readonly kind: 'fts'; readonly op: FtsOperator; readonly language: string | null; readonly value: string };

export interface Filter {
  readonly field: FieldRef;
  readonly negated: boolean;
  readonly operation: Operation;
}

/** `or=(a.eq.1,not.and(b.gt.2,c.is.null))` */
export type LogicTree =
  | { readonly kind: 'and' | 'or'; readonly negated: boolean; readonly children: ReadonlyArray<LogicTree> }
  | { readonly kind: 'filter'; readonly filter: Filter };

/** `order=name.desc.nullslast`, `order=actors(name).asc` (ordering by a to-one embedded column). */
export interface OrderTerm {
  /** Embedded relation name (or alias) for `rel(col)` terms; null for own columns. */
  readonly relation: string | null;
  readonly field: FieldRef;
  readonly direction: 'asc' | 'desc' | null;
  readonly nulls: 'first' | 'last' | null;
}

/** Embed path of a qualified query parameter: `actors.films.order=…` → ['actors', 'films']. */
export type EmbedPath = ReadonlyArray<string>;

export interface QueryParams {
  /** null when `select` is absent (means `*`). */
  readonly select: ReadonlyArray<SelectItem> | null;
  /** Every filter and logic parameter, in query-string order, with the embed path it applies to. */
  readonly logic: ReadonlyArray<{ readonly path: EmbedPath; readonly tree: LogicTree }>;
  readonly order: ReadonlyArray<{ readonly path: EmbedPath; readonly terms: ReadonlyArray<OrderTerm> }>;
  /** From `limit`/`offset` (and `path.limit`/`path.offset`). */
  readonly ranges: ReadonlyArray<{ readonly path: EmbedPath; readonly offset: number; readonly limit: number | null }>;
  /** `columns=a,b` for inserts. */
  readonly columns: ReadonlyArray<string> | null;
  /** `on_conflict=a,b` for upserts. */
  readonly onConflict: ReadonlyArray<string> | null;
  /** Query parameters the caller marked as RPC arguments (GET /rpc/f?a=1), in order; repeats kept. */
  readonly rpcArgs: ReadonlyArray<readonly [string, string]>;
}

export interface Preferences {
  readonly return: 'minimal' | 'headers-only' | 'representation' | null;
  readonly count: 'exact' | 'planned' | 'estimated' | null;
  readonly resolution: 'merge-duplicates' | 'ignore-duplicates' | null;
  readonly missing: 'default' | 'null' | null;
  readonly handling: 'strict' | 'lenient' | null;
  readonly tx: 'commit' | 'rollback' | null;
  readonly maxAffected: number | null;
  readonly params: 'single-object' | null;
  readonly timezone: string | null;
  /** Preferences we did not understand, verbatim (`handling=strict` turns them into DBRST122). */
  readonly invalid: ReadonlyArray<string>;
}

/** One entry of an Accept header, ordered by q then position. */
export interface MediaRange {
  readonly type: string;        // e.g. 'application'
  readonly subtype: string;     // e.g. 'vnd.pgrst.object+json'
  readonly params: Readonly<Record<string, string>>;
  readonly q: number;
}

/** `Range: 0-9` (request header), already validated; last null for open-ended `10-`. */
export interface RangeHeader {
  readonly first: number;
  readonly last: number | null;
}
