// PostgreSQL type names as PostgREST's OpenAPI output spells them, and their JSON types
// (PostgREST's toSwaggerType). Pure.
//
// PostgREST reads a column's type as `format_type(atttypid, NULL)` for pg_catalog types (no type
// modifier: `character varying`, not `character varying(20)`), the base type's name for a domain over
// a pg_catalog type, and `format_type(atttypid, atttypmod)` otherwise; its catalog connection has the
// usual `search_path` (`"$user", public`), so types of `public` are not qualified. The schema cache
// prints every type with `search_path = ''` (`public.mood`), so the same spelling is recovered here.
import type { Column } from '../../catalog/types.js';

/** JSON types a PostgreSQL type maps to; json/jsonb map to none (any JSON value). */
export type JsonType = 'integer' | 'number' | 'string' | 'boolean' | 'array';

/** PostgREST's toSwaggerType, on a type name as {@link columnTypeName} spells it. */
export function jsonTypeOf(typeName: string): JsonType | null {
  switch (typeName) {
    case 'character varying':
    case 'character':
    case 'text':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'smallint':
    case 'integer':
    case 'bigint':
      return 'integer';
    case 'numeric':
    case 'real':
    case 'double precision':
      return 'number';
    case 'json':
    case 'jsonb':
      return null;
    default:
      return typeName.endsWith('[]') ? 'array' : 'string';
  }
}

/** Element type of an array type name (`text[]` → `string`); undefined when not an array. */
export function arrayItemsOf(typeName: string): { readonly type: JsonType | null } | undefined {
  if (jsonTypeOf(typeName) !== 'array') return undefined;
  return { type: jsonTypeOf(typeName.slice(0, -2)) };
}

/**
 * pg_catalog base types whose `typname` differs from their SQL spelling (format_type output), and
 * those whose `typname` is their spelling. `Column.baseType` is a typname: this tells a domain over a
 * pg_catalog type (PostgREST then shows the base type) from one over anything else.
 */
const CATALOG_TYPE_NAMES: ReadonlyMap<string, string> = new Map([
  ['bool', 'boolean'], ['bpchar', 'character'], ['char', '"char"'], ['float4', 'real'], ['float8', 'double precision'],
  ['int2', 'smallint'], ['int4', 'integer'], ['int8', 'bigint'], ['time', 'time without time zone'],
  ['timestamp', 'timestamp without time zone'], ['timestamptz', 'timestamp with time zone'],
  ['timetz', 'time with time zone'], ['varbit', 'bit varying'], ['varchar', 'character varying'],
  ...[
    'aclitem', 'bit', 'box', 'bytea', 'cid', 'cidr', 'circle', 'date', 'datemultirange', 'daterange', 'inet',
    'int4multirange', 'int4range', 'int8multirange', 'int8range', 'interval', 'json', 'jsonb', 'jsonpath', 'line',
    'lseg', 'macaddr', 'macaddr8', 'money', 'name', 'numeric', 'nummultirange', 'numrange', 'oid', 'path', 'point',
    'polygon', 'refcursor', 'regclass', 'regcollation', 'regconfig', 'regdictionary', 'regnamespace', 'regoper',
    'regoperator', 'regproc', 'regprocedure', 'regrole', 'regtype', 'text', 'tid', 'tsmultirange', 'tsquery',
    'tsrange', 'tstzmultirange', 'tstzrange', 'tsvector', 'txid_snapshot', 'uuid', 'xid', 'xid8', 'xml',
  ].map((n) => [n, n] as const),
]);

/** Index of the first `.` outside double quotes (a schema qualification), or -1. */
function qualifierDot(typeName: string): number {
  let quoted = false;
  for (let i = 0; i < typeName.length; i++) {
    const ch = typeName[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === '.' && !quoted) return i;
  }
  return -1;
}

/** `public.mood` → `mood` (PostgREST's search_path); other schemas stay qualified. */
export function withoutPublic(typeName: string): string {
  return typeName.startsWith('public.') ? typeName.slice('public.'.length) : typeName;
}

/** `character varying(20)[]` → `character varying[]`, `numeric(10,2)` → `numeric`. */
const withoutTypmod = (typeName: string): string => typeName.replace(/\(\s*\d+\s*(?:,\s*-?\d+\s*)?\)/g, '');

/** Unquoted last name part without `[]`: `public."Mood"[]` → `Mood`. */
function bareName(typeName: string): string {
  const dot = qualifierDot(typeName);
  const name = (dot === -1 ? typeName : typeName.slice(dot + 1)).replace(/(\[\])+$/, '');
  return name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name;
}

/** A column's type as PostgREST's OpenAPI `format` shows it. */
export function columnTypeName(c: Pick<Column, 'type' | 'baseType' | 'enumValues'>): string {
  if (qualifierDot(c.type) === -1) return withoutTypmod(c.type); // a pg_catalog type
  // Qualified: an enum, composite, extension type, or a domain. A domain over a pg_catalog type
  // shows its base type. (A domain over a pg_catalog array type shows the element type here: the
  // schema cache keeps the element's name only.)
  const base = CATALOG_TYPE_NAMES.get(c.baseType);
  if (base !== undefined && c.enumValues.length === 0 && bareName(c.type) !== c.baseType) return base;
  return withoutPublic(c.type);
}
