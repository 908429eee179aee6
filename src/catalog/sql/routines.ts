// Functions and procedures of the exposed schemas: what `/rpc/<name>` can call. Aggregates,
// window functions and trigger functions are not routines of the API. Which routines are
// callable (PostgREST: at most one unnamed argument, of a body-sized type) is decided in build.ts.
// char(n)/bit(n) parameters are described as their varying forms (see the `type` column below).
import { DOMAIN_BASE_CTE } from './relations.js';

/**
 * Parameters: `$1::text[]` exposed schemas. One row per routine (`RawRoutineRow`). `params` lists
 * every argument, OUT and TABLE ones included, in declaration order, with its mode letter
 * (`i`, `o`, `b` inout, `v` variadic, `t` table). The return type is described twice: as
 * format_type() spells it, and resolved through domains (`return_base_*`), which tells a
 * composite from a scalar. `nargs`/`nargdefaults` count input arguments; the last `nargdefaults`
 * of them have defaults.
 */
export const ROUTINES_SQL = `
WITH RECURSIVE
${DOMAIN_BASE_CTE}
SELECT
  p.oid,
  n.nspname AS schema,
  p.proname AS name,
  d.description,
  p.prokind::text AS kind,
  p.provolatile::text AS volatility,
  p.oid::regprocedure::text AS signature,
  p.proretset AS returns_set,
  p.pronargs AS nargs,
  p.pronargdefaults AS nargdefaults,
  CASE WHEN p.proretset THEN p.prorows::int ELSE 0 END AS rows,
  format_type(p.prorettype, NULL) AS return_type,
  rt.typtype::text AS return_base_typtype,
  rtn.nspname AS return_base_schema,
  coalesce(rc.relname, rt.typname) AS return_base_name,
  rc.relkind::text AS return_base_relkind,
  coalesce(args.params, '[]'::json) AS params
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
LEFT JOIN domain_base db ON db.oid = p.prorettype
JOIN pg_type rt ON rt.oid = coalesce(db.base, p.prorettype)
JOIN pg_namespace rtn ON rtn.oid = rt.typnamespace
LEFT JOIN pg_class rc ON rc.oid = rt.typrelid
LEFT JOIN pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_proc'::regclass AND d.objsubid = 0
LEFT JOIN LATERAL (
  SELECT json_agg(json_build_object(
    'name', coalesce(a.name, ''),
    -- A parameter has no typmod, and casting to bare character/bit means length 1: the value
    -- would be cut to its first character. PostgREST widens them to their varying forms (#1586);
    -- PostgreSQL casts those back implicitly when it calls the function.
    'type', CASE a.type
      WHEN 'bpchar'::regtype THEN 'character varying'
      WHEN '_bpchar'::regtype THEN 'character varying[]'
      WHEN 'bit'::regtype THEN 'bit varying'
      WHEN '_bit'::regtype THEN 'bit varying[]'
      ELSE format_type(a.type, NULL)
    END,
    'mode', coalesce(a.mode::text, 'i')
  ) ORDER BY a.idx) AS params
  FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]), p.proargmodes, p.proargnames)
    WITH ORDINALITY AS a (type, mode, name, idx)
  WHERE a.type IS NOT NULL
) args ON true
WHERE n.nspname = ANY ($1::text[])
  AND p.prokind IN ('f', 'p')
  AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
ORDER BY n.nspname, p.proname, p.oid::regprocedure::text
`;
