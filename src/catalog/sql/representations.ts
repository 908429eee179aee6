// Domain representations (PostgREST's "Domain Representations"): implicit casts, by function,
// between a domain and json or text. PostgreSQL ignores casts on domains; PostgREST (and dbrest)
// call the cast function itself: domain → json on JSON output, json → domain on a JSON payload,
// text → domain on a filter value.

/**
 * No parameters. One row per cast (`RawRepresentationRow`): `source` and `target` as format_type()
 * spells them (run with an empty search_path, so qualified like column types), and the cast
 * function's schema and name.
 */
export const REPRESENTATIONS_SQL = `
SELECT
  format_type(c.castsource, NULL) AS source,
  format_type(c.casttarget, NULL) AS target,
  fn.nspname AS function_schema,
  p.proname AS function_name
FROM pg_cast c
JOIN pg_type st ON st.oid = c.castsource
JOIN pg_type tt ON tt.oid = c.casttarget
JOIN pg_proc p ON p.oid = c.castfunc
JOIN pg_namespace fn ON fn.oid = p.pronamespace
WHERE c.castcontext = 'i'
  AND c.castmethod = 'f'
  AND (
    (st.typtype = 'd' AND c.casttarget IN ('json'::regtype, 'text'::regtype))
    OR (tt.typtype = 'd' AND c.castsource IN ('json'::regtype, 'text'::regtype))
  )
ORDER BY 1, 2
`;
