// Computed relationships: a function `f(row of A) RETURNS [SETOF] B` where A and B are relations
// of the exposed schemas can be embedded from A as if it were a relationship to B (PostgREST's
// "computed relationships"). The function itself may live in any schema.

/**
 * Parameters: `$1::text[]` exposed schemas. One row per function (`RawComputedRelationshipRow`).
 * `returns_set` with `rows` (prorows) decide the cardinality in build.ts: a SETOF function
 * declared `ROWS 1` is to-one, as in PostgREST.
 */
export const COMPUTED_RELATIONSHIPS_SQL = `
SELECT
  pn.nspname AS function_schema,
  p.proname AS function_name,
  fn.nspname AS from_schema,
  fc.relname AS from_name,
  tn.nspname AS to_schema,
  tc.relname AS to_name,
  p.proretset AS returns_set,
  p.prorows::float8 AS rows
FROM pg_proc p
JOIN pg_namespace pn ON pn.oid = p.pronamespace
JOIN pg_type ft ON ft.oid = p.proargtypes[0]
JOIN pg_class fc ON fc.oid = ft.typrelid AND fc.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT fc.relispartition
JOIN pg_namespace fn ON fn.oid = fc.relnamespace
JOIN pg_type tt ON tt.oid = p.prorettype
JOIN pg_class tc ON tc.oid = tt.typrelid AND tc.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT tc.relispartition
JOIN pg_namespace tn ON tn.oid = tc.relnamespace
WHERE p.pronargs = 1
  AND p.prokind = 'f'
  AND fn.nspname = ANY ($1::text[])
  AND tn.nspname = ANY ($1::text[])
ORDER BY fn.nspname, fc.relname, pn.nspname, p.proname
`;
