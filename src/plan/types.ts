// ReadPlan: a GET (or the representation of a write / an RPC result) checked against the schema
// cache, as a tree of nodes — one per relation in `select=`, the root first. Plain readonly data:
// sql/read.ts turns it into ONE statement; nothing here knows SQL text. Built by plan/read-plan.ts.
import type { Column, ComputedRelationship, ForeignKeyRelationship, QualifiedName } from '../catalog/types.js';
import type { AggregateName, FtsOperator, JsonPathStep, Operation, SimpleOperator } from '../request/types.js';
import type { Sql } from '../sql/fragment.js';

/** Rows of a node after `offset`/`limit`/`Range` and `db-max-rows`: `LIMIT limit OFFSET offset`. */
export interface ResolvedRange {
  readonly offset: number;
  /** null = no limit. 0 is a real limit (`limit=0`). */
  readonly limit: number | null;
}

/**
 * Where the root rows come from.
 * - `relation`: `GET /projects` → `FROM "s"."projects"`.
 * - `call`: `GET /rpc/f?a=1` on a set-returning function → `FROM "s"."f"(a => $1)`; `columns` are
 *   those of the returned row type; `relation` names the table whose row type it returns (for embeds).
 */
export type ReadSource =
  | { readonly kind: 'relation'; readonly name: QualifiedName }
  | {
      readonly kind: 'call';
      readonly from: Sql;
      readonly columns: ReadonlyArray<Column>;
      readonly relation: QualifiedName | null;
    };

/** A column reference with its JSON path: `data->a->>b`. */
export interface PlannedField {
  readonly column: string;
  readonly jsonPath: ReadonlyArray<JsonPathStep>;
  /**
   * True when the path needs `to_jsonb(col)` first (the column is not json/jsonb); PostgREST #2594:
   * json/jsonb columns keep the bare arrow so expression indexes apply.
   */
  readonly toJsonb: boolean;
  /** Column type as the schema cache spells it, or null when unknown (call sources without columns). */
  readonly type: string | null;
  /** The column is a tsvector or a domain over one: `fts` filters use it as is, without to_tsvector. */
  readonly tsvector?: true;
  /** Domain representation: the column's cast function to json, applied when it is output as is. */
  readonly toJson?: QualifiedName;
  /** Domain representation: the cast function from text, applied to filter values (eq, in, …). */
  readonly fromText?: QualifiedName;
  /** Set for a computed field: `column` is then rendered as `fn(row)` (PostgREST's computed columns). */
  readonly computed?: QualifiedName & {
    /** The row type the function takes: the row is cast to it, so an overload is picked even when the row is a record (a write's RETURNING). */
    readonly rowType?: QualifiedName;
  };
}

/**
 * One output column of a node.
 * - `field`: `alias:data->>x::int`, `total:amount.sum()::text`. `outputName` is the JSON key
 *   (explicit alias, else PostgREST's rules: aggregate name, last JSON key, column name).
 * - `star`: `*` (kept as `alias.*`, expanded to columns when the node aggregates).
 * - `count`: `count()` with no column.
 */
export type PlannedSelect =
  | {
      readonly kind: 'field';
      readonly field: PlannedField;
      readonly cast: string | null;
      readonly aggregate: AggregateName | null;
      readonly aggregateCast: string | null;
      readonly outputName: string;
    }
  | { readonly kind: 'star' }
  | { readonly kind: 'count'; readonly cast: string | null; readonly outputName: string };

/** Leaf of a resolved filter tree. */
export type PlannedFilter =
  /** `id=eq.1`, `tags=cs.{a}`, `name=like(any).{a*,b*}`: operation as parsed; `*` → `%` happens in SQL. */
  | { readonly kind: 'filter'; readonly field: PlannedField; readonly negated: boolean; readonly operation: Operation }
  /**
   * `clients=not.is.null` on an embedded `clients(...)` (PostgREST's null embed filter): keeps rows
   * that have (exists=true) or lack (exists=false) a related row.
   */
  | { readonly kind: 'embed-exists'; readonly embed: string; readonly exists: boolean };

export type PlannedLogic =
  | { readonly kind: 'and' | 'or'; readonly negated: boolean; readonly children: ReadonlyArray<PlannedLogic> }
  | PlannedFilter;

/** `order=name.desc.nullslast`, `order=clients(name)` (to-one embeds only: `embed` is its output name). */
export interface PlannedOrder {
  readonly embed: string | null;
  readonly field: PlannedField;
  readonly direction: 'asc' | 'desc' | null;
  readonly nulls: 'first' | 'last' | null;
}

/**
 * The join between a node and its parent.
 * - `fk` m2o/o2m/o2o: `child.toCol = parent.fromCol` for each pair (pairs are [parentCol, childCol]).
 * - `fk` m2m: through `junction`: `child.c = junction.j` and `junction.j = parent.p`.
 * - `computed`: the child rows are `function(parent_row)`; no condition.
 */
export type EmbedJoin =
  | {
      readonly kind: 'fk';
      readonly relationship: ForeignKeyRelationship;
      /** [parent column, child column] for direct relationships; empty for m2m. */
      readonly columns: ReadonlyArray<readonly [string, string]>;
      readonly junction: {
        readonly table: QualifiedName;
        /** [parent column, junction column] */
        readonly parentColumns: ReadonlyArray<readonly [string, string]>;
        /** [child column, junction column] */
        readonly childColumns: ReadonlyArray<readonly [string, string]>;
      } | null;
    }
  | { readonly kind: 'computed'; readonly relationship: ComputedRelationship; readonly parentType: QualifiedName };

export interface PlannedEmbed {
  /** JSON key in the parent: alias, else the name as written (`clients`, `client_id`, …). */
  readonly outputName: string;
  readonly toOne: boolean;
  readonly joinType: 'inner' | 'left';
  /** `...rel(cols)`: the columns go into the parent (to-many: each one as a JSON array). */
  readonly spread: boolean;
  /**
   * True when the embed contributes no output (`clients()` used only to filter with `!inner`):
   * PostgREST still joins it but leaves it out of the JSON.
   */
  readonly silent: boolean;
  /** SQL alias of the LATERAL subquery in the parent, e.g. `projects_clients_1`. */
  readonly lateralAlias: string;
  readonly join: EmbedJoin;
  readonly node: ReadNode;
}

export interface ReadNode {
  /** Relation whose columns this node reads (null for a call returning a non-table row type). */
  readonly relation: QualifiedName | null;
  /** Name used in messages (`column clients.x does not exist`). */
  readonly name: string;
  /** SQL alias of this node's FROM item, e.g. `projects` (root) or `clients_1` (depth 1). */
  readonly alias: string;
  readonly depth: number;
  readonly columns: ReadonlyArray<Column>;
  readonly select: ReadonlyArray<PlannedSelect>;
  readonly embeds: ReadonlyArray<PlannedEmbed>;
  /** ANDed together. */
  readonly where: ReadonlyArray<PlannedLogic>;
  readonly order: ReadonlyArray<PlannedOrder>;
  readonly range: ResolvedRange;
  /** Some select item of this node is an aggregate: the node groups by its other output columns. */
  readonly aggregates: boolean;
  /**
   * A to-one spread with aggregates (`...processes(count())`, PostgREST v13+): the parent computes
   * them, grouped by its own columns. The node outputs the aggregated values raw (`count()` as 1)
   * under their output names and does not group itself.
   */
  readonly hoisted: boolean;
}

export interface ReadPlan {
  readonly source: ReadSource;
  readonly root: ReadNode;
  /** The root's range (what Content-Range describes). */
  readonly range: ResolvedRange;
  readonly count: 'exact' | 'planned' | 'estimated' | null;
  /** `select` absent or exactly `*`: custom media handlers for the relation may apply (PostgREST). */
  readonly defaultSelect: boolean;
  /** `[relation, alias]` of aliased embeds the query string named by relation (deprecated; a Warning). */
  readonly legacyTargets?: ReadonlyArray<readonly [string, string]>;
}

export type { AggregateName, FtsOperator, JsonPathStep, SimpleOperator };
