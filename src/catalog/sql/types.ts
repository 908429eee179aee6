// User-defined types of the exposed schemas that describe values rather than relations: enums
// (their labels), standalone composite types (CREATE TYPE … AS (…): their attributes) and domains
// (their base type). Nothing in serving a request needs them; `dbrest types` does (Enums,
// CompositeTypes, and a domain typed as its base). Run with `search_path = ''`, so format_type()
// qualifies every type outside pg_catalog, as the columns' types are.

/**
 * Parameters: `$1::text[]` exposed schemas. One row per type (`RawTypeRow` in raw.ts): `kind` is
 * typtype (`e` enum, `c` composite, `d` domain); `enum_values` in sort order, `attributes` as
 * `[name, format_type]` pairs in attnum order, `base_type` a domain's format_type() with its
 * modifier; each null for the other kinds.
 */
export const TYPES_SQL = `
SELECT
  n.nspname AS schema,
  t.typname AS name,
  t.typtype::text AS kind,
  CASE WHEN t.typtype = 'e' THEN (
    SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid
  ) END AS enum_values,
  CASE WHEN t.typtype = 'c' THEN (
    SELECT coalesce(json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum), '[]'::json)
    FROM pg_attribute a
    WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
  ) END AS attributes,
  CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END AS base_type
FROM pg_type t
JOIN pg_namespace n ON n.oid = t.typnamespace
LEFT JOIN pg_class c ON c.oid = t.typrelid
WHERE n.nspname = ANY ($1::text[])
  AND (t.typtype IN ('e', 'd') OR (t.typtype = 'c' AND c.relkind = 'c'))
ORDER BY n.nspname, t.typname
`;
