// Foreign keys the schema cache can turn into relationships: those with either end in an exposed
// schema, plus those between relations that exposed views read from (a view over private tables
// inherits their relationships). Constraints cloned onto partitions are skipped (conparentid <> 0):
// the partitioned parent's constraint stands for them.
import { VIEW_CLOSURE_CTE } from './view-sources.js';

/**
 * Parameters: `$1::text[]` exposed schemas. One row per FK constraint (`RawForeignKeyRow`):
 * `columns` pairs `[column, referenced column]` in key order; `one_to_one` when the FK columns are
 * exactly the columns of the referencing table's primary key or of one of its unique constraints.
 */
export const FOREIGN_KEYS_SQL = `${VIEW_CLOSURE_CTE},
exposed_namespaces AS (
  SELECT oid FROM pg_namespace WHERE nspname = ANY ($1::text[])
)
SELECT
  fk.oid,
  ns1.nspname AS schema,
  tab.relname AS table,
  ns2.nspname AS foreign_schema,
  other.relname AS foreign_table,
  fk.conname AS name,
  cols.pairs AS columns,
  -- Same column set as a primary key or unique constraint of the referencing table: contained
  -- both ways (keys list no column twice). An index probe per FK, not a sort of every key.
  EXISTS (
    SELECT 1 FROM pg_constraint ks
    WHERE ks.conrelid = fk.conrelid AND ks.contype IN ('p', 'u')
      AND ks.conkey @> fk.conkey AND ks.conkey <@ fk.conkey
  ) AS one_to_one
FROM pg_constraint fk
JOIN pg_class tab ON tab.oid = fk.conrelid
JOIN pg_namespace ns1 ON ns1.oid = tab.relnamespace
JOIN pg_class other ON other.oid = fk.confrelid
JOIN pg_namespace ns2 ON ns2.oid = other.relnamespace
-- Each name by its (attrelid, attnum) key: a lookup, whatever join method the planner may use.
CROSS JOIN LATERAL (
  SELECT json_agg(json_build_array(
    (SELECT ca.attname FROM pg_attribute ca WHERE ca.attrelid = fk.conrelid AND ca.attnum = k.col),
    (SELECT ra.attname FROM pg_attribute ra WHERE ra.attrelid = fk.confrelid AND ra.attnum = k.ref)
  ) ORDER BY k.ord) AS pairs
  FROM unnest(fk.conkey, fk.confkey) WITH ORDINALITY AS k (col, ref, ord)
) AS cols
WHERE fk.contype = 'f'
  AND fk.conparentid = 0
  AND (
    tab.relnamespace IN (SELECT oid FROM exposed_namespaces)
    OR other.relnamespace IN (SELECT oid FROM exposed_namespaces)
    OR fk.conrelid IN (SELECT oid FROM view_sources)
    OR fk.confrelid IN (SELECT oid FROM view_sources)
  )
ORDER BY ns1.nspname, tab.relname, fk.conname
`;
