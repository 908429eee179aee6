// RawCatalog: the rows of the catalog queries (src/catalog/sql/*.ts) exactly as PostgreSQL and
// node-postgres return them (JSON columns arrive parsed). fetch.ts produces it, build.ts turns it
// into a SchemaCache, and test/fixtures/catalog/*.json record it so the builder can be tested
// without a database. Field names are the queries' column names (snake_case).

/** sql/version.ts */
export interface RawVersionRow {
  readonly server_version_num: number;
}

/**
 * An element of RawRelationRow.columns: a JSON array rather than an object, as the key names
 * repeated for every column were half the bytes PostgreSQL built and node-postgres parsed on a
 * big catalog. `type` is format_type(atttypid, atttypmod); `baseType` the typname of the domain's
 * base type, or of the array's element type, else of the type.
 */
export type RawColumn = readonly [
  name: string,
  position: number,
  type: string,
  baseType: string,
  nullable: boolean,
  defaultValue: string | null,
  maxLength: number | null,
  description: string | null,
  enumValues: ReadonlyArray<string>,
  generated: boolean,
  /** pg_attribute.attidentity: `a` ALWAYS, `d` BY DEFAULT, `` none (absent in older recordings). */
  identity?: string,
];

/** pg_class.relkind of the relations we expose. */
export type RawRelkind = 'r' | 'v' | 'm' | 'f' | 'p';

/** sql/relations.ts */
export interface RawRelationRow {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  readonly kind: RawRelkind;
  readonly description: string | null;
  readonly insertable: boolean;
  readonly updatable: boolean;
  readonly deletable: boolean;
  /** Primary key columns in key order; empty for views (traced in build.ts) and keyless tables. */
  readonly primary_key: ReadonlyArray<string>;
  /** A writable view's columns that cannot be written; null otherwise (absent in older recordings). */
  readonly read_only_columns?: ReadonlyArray<string> | null;
  readonly columns: ReadonlyArray<RawColumn>;
}

/** sql/foreign-keys.ts */
export interface RawForeignKeyRow {
  readonly oid: number;
  readonly schema: string;
  readonly table: string;
  readonly foreign_schema: string;
  readonly foreign_table: string;
  /** Constraint name. */
  readonly name: string;
  /** `[column, referenced column]` in key order. */
  readonly columns: ReadonlyArray<readonly [string, string]>;
  /** The FK columns are exactly a primary key or unique constraint of the referencing table. */
  readonly one_to_one: boolean;
}

/** sql/view-sources.ts */
export interface RawViewSourceRow {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  /** relkind; `v` and `m` carry a definition. */
  readonly kind: string;
  /** Column names indexed by attnum - 1; null for dropped columns (and for a column-less table). */
  readonly columns: ReadonlyArray<string | null> | null;
  readonly primary_key: ReadonlyArray<string>;
  /** pg_rewrite.ev_action of the view's _RETURN rule (pg_node_tree text), null for tables. */
  readonly definition: string | null;
}

/** An element of RawRoutineRow.params. */
export interface RawRoutineParam {
  /** '' when unnamed */
  readonly name: string;
  /** format_type() of the argument type */
  readonly type: string;
  /** pg_proc.proargmodes letter: i, o, b (inout), v (variadic), t (table) */
  readonly mode: string;
}

/** sql/routines.ts */
export interface RawRoutineRow {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  readonly description: string | null;
  /** prokind: f function, p procedure */
  readonly kind: string;
  /** provolatile: i, s, v */
  readonly volatility: string;
  /** oid::regprocedure */
  readonly signature: string;
  readonly returns_set: boolean;
  /** Number of input arguments, and how many of the last ones have defaults. */
  readonly nargs: number;
  readonly nargdefaults: number;
  /** format_type(prorettype) */
  readonly return_type: string;
  /** The return type resolved through domains: typtype (b, c, d, e, p, r, m), schema, name. */
  readonly return_base_typtype: string;
  readonly return_base_schema: string;
  /** relname for row types, else typname */
  readonly return_base_name: string;
  /** relkind when the resolved return type is a row type (`c` for a standalone composite type). */
  readonly return_base_relkind: string | null;
  readonly params: ReadonlyArray<RawRoutineParam>;
  /** prorows: the planner's row estimate of a SETOF function (0 otherwise); absent in older recordings. */
  readonly rows?: number;
}

/** sql/computed-relationships.ts */
export interface RawComputedRelationshipRow {
  readonly function_schema: string;
  readonly function_name: string;
  readonly from_schema: string;
  readonly from_name: string;
  readonly to_schema: string;
  readonly to_name: string;
  readonly returns_set: boolean;
  /** prorows (0 for non-SETOF functions) */
  readonly rows: number;
}

/** sql/media-handlers.ts */
export interface RawMediaHandlerRow {
  readonly kind: 'aggregate' | 'function';
  readonly function_schema: string;
  readonly function_name: string;
  /** The domain's name, lowercased: `text/csv`, `*\/*`. */
  readonly media_type: string;
  /** The type under the domain (`bytea`, `text`, `json`, …). */
  readonly base_type: string;
  readonly relation_schema: string | null;
  readonly relation_name: string | null;
}

export interface RawCatalog {
  readonly version: ReadonlyArray<RawVersionRow>;
  readonly relations: ReadonlyArray<RawRelationRow>;
  readonly foreignKeys: ReadonlyArray<RawForeignKeyRow>;
  readonly viewSources: ReadonlyArray<RawViewSourceRow>;
  readonly routines: ReadonlyArray<RawRoutineRow>;
  readonly computedRelationships: ReadonlyArray<RawComputedRelationshipRow>;
  readonly mediaHandlers: ReadonlyArray<RawMediaHandlerRow>;
  /** sql/representations.ts; absent in catalogs recorded before it existed. */
  readonly representations?: ReadonlyArray<RawRepresentationRow>;
  /** sql/types.ts; absent in catalogs recorded before it existed. */
  readonly types?: ReadonlyArray<RawTypeRow>;
}

/** sql/types.ts: an enum, standalone composite type or domain of an exposed schema. */
export interface RawTypeRow {
  readonly schema: string;
  readonly name: string;
  /** typtype: e enum, c composite, d domain */
  readonly kind: string;
  readonly enum_values: ReadonlyArray<string> | null;
  /** `[name, format_type]` per attribute */
  readonly attributes: ReadonlyArray<readonly [string, string]> | null;
  readonly base_type: string | null;
}

/** sql/representations.ts: an implicit cast by function between a domain and json or text. */
export interface RawRepresentationRow {
  readonly source: string;
  readonly target: string;
  readonly function_schema: string;
  readonly function_name: string;
}
