// Relations of the exposed schemas (tables, views, materialized views, foreign and partitioned
// tables) with their primary key, one row per relation, and their columns. Partitions are left
// out, as PostgREST does: a partitioned table is reached through its parent. Two queries, so that
// fetch.ts can run them on two connections at once: on a big catalog the columns are most of the
// work (35,000 columns at 5,000 tables), and the relations, keys and the other queries the rest.
// Both are run with `search_path = ''`, so that format_type() qualifies every type outside
// pg_catalog (`public.mood`).

/**
 * CTEs `domain_bases` / `domain_base`: every domain with the base type it finally rests on
 * (domains may be stacked). Needs WITH RECURSIVE; shared with routines.ts.
 */
export const DOMAIN_BASE_CTE = `domain_bases (oid, base) AS (
  SELECT t.oid, t.typbasetype FROM pg_type t WHERE t.typtype = 'd'
  UNION ALL
  SELECT d.oid, t.typbasetype
  FROM domain_bases d
  JOIN pg_type t ON t.oid = d.base AND t.typtype = 'd'
),
domain_base AS (
  SELECT d.oid, d.base
  FROM domain_bases d
  JOIN pg_type b ON b.oid = d.base
  WHERE b.typtype <> 'd'
)`;

/** The relations: pg_class rows of the exposed schemas ($1::text[]) of the kinds we serve. */
const EXPOSED_RELATIONS = `
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = ANY ($1::text[])
    AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
    AND NOT c.relispartition`;

/**
 * Parameters: `$1::text[]` exposed schemas. One row per relation (`RawRelationRow` in raw.ts
 * without `columns`: fetch.ts adds them from COLUMNS_SQL), primary key as a JSON array.
 */
export const RELATIONS_SQL = `
WITH
rels AS (
  SELECT
    c.oid, n.nspname, c.relname, c.relkind,
    -- pg_relation_is_updatable() is a bitmask of 1 << CmdType: 4 UPDATE, 8 INSERT, 16 DELETE.
    -- A foreign table whose wrapper has no handler would make it fail: such a table is read-only.
    CASE
      WHEN c.relkind IN ('r', 'p') THEN 28
      WHEN c.relkind = 'v' THEN pg_relation_is_updatable(c.oid::regclass, true)
      WHEN c.relkind = 'f' AND EXISTS (
        SELECT 1
        FROM pg_foreign_table ft
        JOIN pg_foreign_server srv ON srv.oid = ft.ftserver
        JOIN pg_foreign_data_wrapper w ON w.oid = srv.srvfdw
        WHERE ft.ftrelid = c.oid AND w.fdwhandler <> 0
      ) THEN pg_relation_is_updatable(c.oid::regclass, true)
      ELSE 0
    END AS updatable_mask
  ${EXPOSED_RELATIONS}
),
primary_keys AS (
  SELECT con.conrelid, json_agg(a.attname ORDER BY k.ord) AS columns
  FROM pg_constraint con
  CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k (attnum, ord)
  JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
  WHERE con.contype = 'p' AND con.conrelid IN (SELECT oid FROM rels)
  GROUP BY con.conrelid
)
SELECT
  r.oid,
  r.nspname AS schema,
  r.relname AS name,
  r.relkind::text AS kind,
  d.description,
  (r.updatable_mask & 8) = 8 AS insertable,
  (r.updatable_mask & 4) = 4 AS updatable,
  (r.updatable_mask & 16) = 16 AS deletable,
  coalesce(pk.columns, '[]'::json) AS primary_key,
  -- A writable view's columns that cannot be written (expressions). Asked here, not with the
  -- columns: pg_relation_is_updatable above has opened these views in this backend already.
  CASE WHEN r.relkind = 'v' AND r.updatable_mask <> 0 THEN (
    SELECT coalesce(json_agg(a.attname ORDER BY a.attnum), '[]'::json)
    FROM pg_attribute a
    WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
      AND NOT pg_column_is_updatable(r.oid::regclass, a.attnum, true)
  ) END AS read_only_columns
FROM rels r
LEFT JOIN pg_description d ON d.objoid = r.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
LEFT JOIN primary_keys pk ON pk.conrelid = r.oid
ORDER BY r.nspname, r.relname
`;

/**
 * Parameters: `$1::text[]` exposed schemas. One row `{ oid, columns }` per relation that has
 * columns: `columns` a JSON array of RawColumn (raw.ts), in attnum order.
 */
export const COLUMNS_SQL = `
WITH RECURSIVE
${DOMAIN_BASE_CTE},
rels AS (
  SELECT c.oid${EXPOSED_RELATIONS}
),
enum_labels AS (
  SELECT e.enumtypid, json_agg(e.enumlabel ORDER BY e.enumsortorder) AS labels
  FROM pg_enum e
  GROUP BY e.enumtypid
),
columns AS (
  SELECT
    a.attrelid,
    -- one array per column, in RawColumn's order (raw.ts)
    json_agg(json_build_array(
      a.attname,                                                             -- name
      a.attnum,                                                              -- position
      -- the declared type with its modifier: character varying(200), text[], public.mood
      format_type(a.atttypid, a.atttypmod),
      -- domains resolved to their base, arrays to their element: int4, text, mood
      CASE WHEN bt.typcategory = 'A' AND bt.typelem <> 0 THEN et.typname ELSE bt.typname END,
      NOT (a.attnotnull OR (t.typtype = 'd' AND t.typnotnull)),              -- nullable
      CASE                                                                   -- default
        WHEN a.attgenerated <> '' THEN NULL                                  -- GENERATED ALWAYS AS (...)
        WHEN a.attidentity = 'd' THEN format('nextval(%L::regclass)', (          -- BY DEFAULT AS IDENTITY: its sequence
          SELECT seq.objid::regclass::text FROM pg_depend seq
          WHERE seq.refclassid = 'pg_class'::regclass AND seq.refobjid = a.attrelid AND seq.refobjsubid = a.attnum
            AND seq.classid = 'pg_class'::regclass AND seq.deptype = 'i'))
        WHEN ad.adbin IS NOT NULL THEN pg_get_expr(ad.adbin, 0)             -- names no column: no relation context
        WHEN t.typtype = 'd' THEN pg_get_expr(t.typdefaultbin, 0)            -- CREATE DOMAIN ... DEFAULT
      END,
      -- information_schema.columns.character_maximum_length, inlined (_pg_char_max_length of
      -- _pg_truetypid/_pg_truetypmod): varchar(n)/char(n) → n, bit(n)/varbit(n) → n
      CASE                                                                   -- max_length
        WHEN tm.typmod = -1 THEN NULL
        WHEN tm.typid IN ('bpchar'::regtype, 'varchar'::regtype) THEN tm.typmod - 4
        WHEN tm.typid IN ('bit'::regtype, 'varbit'::regtype) THEN tm.typmod
      END,
      cd.description,
      coalesce(el.labels, '[]'::json),                                       -- enum values
      a.attgenerated <> '',                                                  -- generated
      a.attidentity::text                                                    -- identity: a, d or ''
    ) ORDER BY a.attnum) AS columns
  FROM rels r
  JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
  JOIN pg_type t ON t.oid = a.atttypid
  CROSS JOIN LATERAL (
    SELECT
      CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END AS typid,
      CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END AS typmod
  ) tm
  LEFT JOIN domain_base db ON db.oid = t.oid
  JOIN pg_type bt ON bt.oid = coalesce(db.base, t.oid)
  LEFT JOIN pg_type et ON et.oid = bt.typelem
  LEFT JOIN enum_labels el ON el.enumtypid = bt.oid
  LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
  LEFT JOIN pg_description cd
    ON cd.objoid = a.attrelid AND cd.classoid = 'pg_class'::regclass AND cd.objsubid = a.attnum
  GROUP BY a.attrelid
)
SELECT attrelid AS oid, columns FROM columns
`;
