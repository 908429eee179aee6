// The schema cache: what dbrest knows of the database, built once at start-up (and on reload) from
// pg_catalog. A plain, serialisable value: `dbrest introspect --json` prints exactly this.
// Lookup maps are derived from it in lookup.ts, never stored in it.

export interface QualifiedName {
  readonly schema: string;
  readonly name: string;
}

export interface Column {
  readonly name: string;
  /** format_type() spelling, e.g. `integer`, `character varying(20)`, `text[]`, `public.mood`. */
  readonly type: string;
  /** Name of the underlying base type for domains and arrays' element, e.g. `int4`. */
  readonly baseType: string;
  readonly nullable: boolean;
  /** Default expression as Postgres prints it, or null. */
  readonly default: string | null;
  readonly maxLength: number | null;
  readonly description: string | null;
  /** Labels of an enum type, in order; empty otherwise. */
  readonly enumValues: ReadonlyArray<string>;
  readonly position: number;
  readonly generated: boolean;
  /** GENERATED ALWAYS / BY DEFAULT AS IDENTITY; absent otherwise. */
  readonly identity?: 'always' | 'by default';
  /** False for a column of a writable view that cannot be written (an expression); absent otherwise. */
  readonly updatable?: false;
  /**
   * Domain representations: the function of an implicit cast from this column's domain to json
   * (applied to the column's JSON output), from json (applied to a JSON payload value) and from
   * text (applied to a filter value). Absent when there is none.
   */
  readonly representation?: {
    readonly toJson?: QualifiedName;
    readonly fromJson?: QualifiedName;
    readonly fromText?: QualifiedName;
  };
}

export type RelationKind = 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table';

export interface Relation extends QualifiedName {
  readonly kind: RelationKind;
  readonly description: string | null;
  readonly columns: ReadonlyArray<Column>;
  /** Primary key columns in key order; for views, the key columns traced to a base table's PK. */
  readonly primaryKey: ReadonlyArray<string>;
  readonly insertable: boolean;
  readonly updatable: boolean;
  readonly deletable: boolean;
}

/** `m2o`: many rows of `from` point to one of `to` (FK on `from`). `o2m` is the reverse. */
export type Cardinality = 'm2o' | 'o2m' | 'o2o' | 'm2m';

/** Column pairs `[fromColumn, toColumn]`. */
export type ColumnPairs = ReadonlyArray<readonly [string, string]>;

export interface Junction {
  readonly table: QualifiedName;
  /** FK constraint from the junction to `from`, and the column pairs `[fromColumn, junctionColumn]`. */
  readonly constraintFrom: string;
  readonly columnsFrom: ColumnPairs;
  /** FK constraint from the junction to `to`, and the column pairs `[junctionColumn, toColumn]`... */
  readonly constraintTo: string;
  /** ...stated as `[toColumn, junctionColumn]`. */
  readonly columnsTo: ColumnPairs;
}

export interface ForeignKeyRelationship {
  readonly kind: 'fk';
  readonly from: QualifiedName;
  readonly to: QualifiedName;
  readonly cardinality: Cardinality;
  /**
   * The FK constraint's name. For m2m it is the junction table's name (what `!hint` matches);
   * the two constraints are in `junction`.
   */
  readonly constraintName: string;
  /** For m2o/o2m/o2o: pairs of `[from column, to column]`. Empty for m2m (see junction). */
  readonly columns: ColumnPairs;
  readonly junction: Junction | null;
  readonly isSelf: boolean;
  /**
   * o2o only: true on the direction from the referenced relation to the one holding the FK
   * (PostgREST's O2O isParent), absent on the FK's own direction.
   */
  readonly isParent?: true;
}

/** A function `f(row_type) returns setof t | t` used as an embeddable relation. */
export interface ComputedRelationship {
  readonly kind: 'computed';
  readonly from: QualifiedName;
  readonly to: QualifiedName;
  readonly cardinality: 'o2m' | 'm2o';
  readonly function: QualifiedName;
  readonly isSelf: boolean;
}

export type Relationship = ForeignKeyRelationship | ComputedRelationship;

export type ParamMode = 'in' | 'inout' | 'out' | 'variadic' | 'table';

export interface RoutineParam {
  readonly name: string;
  readonly type: string;
  readonly mode: ParamMode;
  readonly hasDefault: boolean;
}

export type Volatility = 'immutable' | 'stable' | 'volatile';

export type RoutineReturn =
  /** returns a base/domain/enum type (or setof one) */
  | { readonly kind: 'scalar'; readonly type: string; readonly setOf: boolean }
  /** returns a table/view/composite row type (or setof), or RETURNS TABLE(...) / OUT params */
  | { readonly kind: 'composite'; readonly type: QualifiedName; readonly setOf: boolean; readonly isRelation: boolean }
  | { readonly kind: 'void' };

export interface Routine extends QualifiedName {
  readonly description: string | null;
  readonly params: ReadonlyArray<RoutineParam>;
  readonly returns: RoutineReturn;
  readonly volatility: Volatility;
  readonly isProcedure: boolean;
  /** Postgres' oid::regprocedure text; distinguishes overloads. */
  readonly signature: string;
  /** ROWS estimate of a SETOF function (1000 unless declared); absent when not SETOF. */
  readonly rows?: number;
}

/**
 * A function or aggregate returning a domain named like a media type (engine spec §6).
 * Aggregates (`isAggregate`) render rows of `relation` (of any relation when null: `anyelement`).
 * A plain function (not SETOF) produces `mediaType` when it is itself called; `relation` is then
 * its single row-typed argument, if it has one, else null.
 */
export interface MediaHandler {
  /** The domain's name, lowercased (`text/csv`, `application/vnd.twkb`, or `*\/*`, meaning any). */
  readonly mediaType: string;
  /** True when the domain is over bytea: the handler produces bytes, else text. */
  readonly binary: boolean;
  /** Set when the domain is over xml: its text is xml's output (see sql/media.ts). */
  readonly xml?: true;
  readonly function: QualifiedName;
  /** Relation whose row type the handler accepts, or null for `anyelement` (any relation). */
  readonly relation: QualifiedName | null;
  readonly isAggregate: boolean;
}

/** An enum, standalone composite type or domain of an exposed schema (for `dbrest types`). */
export type UserType =
  | (QualifiedName & { readonly kind: 'enum'; readonly values: ReadonlyArray<string> })
  | (QualifiedName & { readonly kind: 'composite'; readonly attributes: ReadonlyArray<{ readonly name: string; readonly type: string }> })
  /** `base`: the format_type() spelling of the type under the domain. */
  | (QualifiedName & { readonly kind: 'domain'; readonly base: string });

export interface SchemaCache {
  readonly version: 1;
  /** Exposed schemas in configuration order; the first is the default. */
  readonly schemas: ReadonlyArray<string>;
  readonly relations: ReadonlyArray<Relation>;
  readonly relationships: ReadonlyArray<Relationship>;
  readonly routines: ReadonlyArray<Routine>;
  readonly mediaHandlers: ReadonlyArray<MediaHandler>;
  /** Enums, composite types and domains of the exposed schemas (absent from caches built by hand). */
  readonly types?: ReadonlyArray<UserType>;
  /** Postgres server_version_num, e.g. 180000. */
  readonly serverVersion: number;
}
