// The views of the exposed schemas, the views they are built on (in any schema, recursively) and
// the relations those views read from: everything needed to trace a view column back to the
// base-table column it shows, so that views inherit their tables' keys and relationships.
// The tracing itself is pure and happens in build.ts, from each view's parsed query tree
// (pg_rewrite.ev_action, the rule's targetList: resorigtbl/resorigcol per output column).

/**
 * CTE fragment (starts a `WITH RECURSIVE` list, so it must come first) defining
 * `view_closure(oid)`: views and materialized views of the exposed schemas ($1::text[]) and,
 * recursively, every view or materialized view they read from; and `view_sources(oid)`: those
 * views plus every relation any of them reads from.
 */
export const VIEW_CLOSURE_CTE = `
WITH RECURSIVE
view_closure (oid) AS (
  SELECT c.oid
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('v', 'm') AND n.nspname = ANY ($1::text[])
  UNION
  SELECT dep.refobjid
  FROM view_closure v
  JOIN pg_rewrite rw ON rw.ev_class = v.oid
  JOIN pg_depend dep
    ON dep.classid = 'pg_rewrite'::regclass AND dep.objid = rw.oid
   AND dep.refclassid = 'pg_class'::regclass AND dep.refobjid <> v.oid
  JOIN pg_class rc ON rc.oid = dep.refobjid AND rc.relkind IN ('v', 'm')
),
view_sources (oid) AS (
  SELECT oid FROM view_closure
  UNION
  SELECT dep.refobjid
  FROM view_closure v
  JOIN pg_rewrite rw ON rw.ev_class = v.oid
  JOIN pg_depend dep
    ON dep.classid = 'pg_rewrite'::regclass AND dep.objid = rw.oid
   AND dep.refclassid = 'pg_class'::regclass AND dep.refobjid <> v.oid
  JOIN pg_class rc ON rc.oid = dep.refobjid AND rc.relkind IN ('r', 'v', 'm', 'f', 'p')
)`;

/**
 * Parameters: `$1::text[]` exposed schemas. One row per relation of `view_sources`
 * (`RawViewSourceRow`): its oid and name, its column names indexed by attnum - 1 (null for
 * dropped columns), its primary key columns in key order, and for views the rule's query tree
 * as text (`definition`, pg_node_tree syntax), null for tables.
 */
export const VIEW_SOURCES_SQL = `${VIEW_CLOSURE_CTE}
SELECT
  c.oid,
  n.nspname AS schema,
  c.relname AS name,
  c.relkind::text AS kind,
  (SELECT json_agg(CASE WHEN a.attisdropped THEN NULL ELSE a.attname END ORDER BY a.attnum)
     FROM pg_attribute a
    WHERE a.attrelid = c.oid AND a.attnum > 0) AS columns,
  coalesce(
    (SELECT json_agg(a.attname ORDER BY k.ord)
       FROM pg_constraint con
       CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k (attnum, ord)
       JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
      WHERE con.conrelid = c.oid AND con.contype = 'p'),
    '[]'::json
  ) AS primary_key,
  (SELECT rw.ev_action::text FROM pg_rewrite rw WHERE rw.ev_class = c.oid AND rw.rulename = '_RETURN') AS definition
FROM view_sources s
JOIN pg_class c ON c.oid = s.oid
JOIN pg_namespace n ON n.oid = c.relnamespace
ORDER BY n.nspname, c.relname
`;
