// Media-type handlers (engine spec §6, PostgREST's): a domain named like a media type
// (`CREATE DOMAIN "text/csv" AS text`, or `*/*`) marks what a routine produces.
//  - An aggregate of one argument, a relation's row type or `anyelement`, returning such a domain
//    renders rows of that relation (of any relation) in that media type.
//  - A non-SETOF function returning such a domain produces that media type when called.

/**
 * Parameters: `$1::text[]` exposed schemas (where the handler routines live). One row per handler
 * (`RawMediaHandlerRow`); `kind` is `aggregate` or `function`; `relation_*` is the row type the
 * routine takes (null for `anyelement`, and for functions not taking exactly one row argument).
 * `media_type` is the domain's name lowercased; `base_type` the type under the domain (through one
 * nested domain), which decides whether the handler's output is bytes (`bytea`) or text.
 */
export const MEDIA_HANDLERS_SQL = `
WITH media_types AS (
  SELECT t.oid, lower(t.typname) AS media_type,
    (SELECT bt.typname FROM pg_type b JOIN pg_type bt ON bt.oid = CASE WHEN b.typtype = 'd' THEN b.typbasetype ELSE b.oid END
     WHERE b.oid = t.typbasetype) AS base_type
  FROM pg_type t
  WHERE t.typtype = 'd'
    AND (t.typname ~* '^[a-z0-9.-]+/[a-z0-9.+-]+$' OR t.typname = '*/*')
)
SELECT
  CASE p.prokind WHEN 'a' THEN 'aggregate' ELSE 'function' END AS kind,
  pn.nspname AS function_schema,
  p.proname AS function_name,
  mt.media_type,
  mt.base_type,
  an.nspname AS relation_schema,
  ac.relname AS relation_name
FROM media_types mt
JOIN pg_proc p ON p.prorettype = mt.oid
JOIN pg_namespace pn ON pn.oid = p.pronamespace
LEFT JOIN pg_type at ON p.pronargs = 1 AND at.oid = p.proargtypes[0]
LEFT JOIN pg_class ac ON ac.oid = at.typrelid AND ac.relkind IN ('r', 'v', 'm', 'f', 'p')
LEFT JOIN pg_namespace an ON an.oid = ac.relnamespace
WHERE pn.nspname = ANY ($1::text[])
  AND (
    (p.prokind = 'a' AND p.pronargs = 1 AND (at.oid = 'anyelement'::regtype OR ac.oid IS NOT NULL))
    OR (p.prokind = 'f' AND NOT p.proretset)
  )
ORDER BY mt.media_type, pn.nspname, p.proname, an.nspname NULLS FIRST, ac.relname NULLS FIRST
`;
