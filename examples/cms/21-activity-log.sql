-- CMS API activity log (§7): GET /activity-log-group/list (newest first, offset/limit) and
-- POST /activity-log-group/list with an ActivityLogGroupListInput in JSON or XML. XML input is first
-- turned into the JSON shape; one validator compiles the JSON into a WHERE clause of literals (format %L),
-- run with EXECUTE. Every mistake is a 400 naming it.

-- ---- date expressions (§7.3) -----------------------------------------------------------------------

-- `YYYY-MM-DD`, `YYYY-MM-DD[T ]HH:MM[:SS][Z|±HH:MM]`, `@<unix>`, now/today/yesterday/tomorrow, or
-- relative parts `[+|-] <n> <unit>` from now. NULL when the expression is not one of these.
CREATE FUNCTION cms.parse_date_expr(expr text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
DECLARE
  e text := lower(trim(coalesce(expr, '')));
  m text[];
  total interval := '0';
  unit text;
  part_re constant text := '\s*([+-]?)\s*([0-9]{1,9})\s*(secs?|seconds?|mins?|minutes?|hours?|days?|weeks?|months?|years?)\s*';
  utc_today timestamptz := date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
BEGIN
  IF e = 'now' THEN RETURN now(); END IF;
  IF e = 'today' THEN RETURN utc_today; END IF;
  IF e = 'yesterday' THEN RETURN utc_today - interval '1 day'; END IF;
  IF e = 'tomorrow' THEN RETURN utc_today + interval '1 day'; END IF;
  m := regexp_match(e, '^@(-?[0-9]{1,12})$');
  IF m IS NOT NULL THEN RETURN to_timestamp(m[1]::bigint); END IF;
  m := regexp_match(e, '^([0-9]{4}-[0-9]{2}-[0-9]{2})$');
  IF m IS NOT NULL THEN
    BEGIN
      RETURN m[1]::date::timestamp AT TIME ZONE 'UTC';
    EXCEPTION WHEN others THEN RETURN NULL;
    END;
  END IF;
  m := regexp_match(e, '^([0-9]{4}-[0-9]{2}-[0-9]{2})[t ]([0-9]{2}:[0-9]{2}(:[0-9]{2})?)(z|[+-][0-9]{2}:[0-9]{2})?$');
  IF m IS NOT NULL THEN
    BEGIN
      RETURN (m[1] || ' ' || m[2] || CASE WHEN m[4] IS NULL OR m[4] = 'z' THEN '+00:00' ELSE m[4] END)::timestamptz;
    EXCEPTION WHEN others THEN RETURN NULL;
    END;
  END IF;
  -- Relative: the whole expression must be a sequence of parts.
  IF e ~ ('^(' || part_re || ')+$') THEN
    FOR m IN SELECT regexp_matches(e, part_re, 'g') LOOP
      unit := CASE WHEN m[3] LIKE 'sec%' THEN 'seconds' WHEN m[3] LIKE 'min%' THEN 'minutes'
                   ELSE rtrim(m[3], 's') || 's' END;
      total := total + (CASE WHEN m[1] = '-' THEN '-' ELSE '' END || m[2] || ' ' || unit)::interval;
    END LOOP;
    RETURN now() + total;
  END IF;
  RETURN NULL;
END $$;

-- ---- ActivityLogGroupListInput ---------------------------------------------------------------------

CREATE FUNCTION cms.alg_fail(description text) RETURNS void LANGUAGE sql AS $$
  SELECT cms.fail(400, 'Invalid ActivityLogGroupListInput: ' || description)
$$;

-- 400 when `obj` has a member outside `allowed`.
CREATE FUNCTION cms.alg_only(obj jsonb, allowed text[], what text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE extra text;
BEGIN
  SELECT k INTO extra FROM jsonb_object_keys(obj) k WHERE k <> ALL (allowed) ORDER BY k LIMIT 1;
  IF extra IS NOT NULL THEN
    PERFORM cms.alg_fail(format('unknown member %s in %s (allowed: %s).', extra, what, array_to_string(allowed, ', ')));
  END IF;
END $$;

-- A required member of a criterion as a list of strings (`value` may be one string or an array).
CREATE FUNCTION cms.alg_strings(c jsonb, member text, kind text, one_allowed boolean) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE v jsonb := c -> member; out text[];
BEGIN
  IF v IS NULL THEN PERFORM cms.alg_fail(format('a %s criterion needs %s.', c->>'type', member)); END IF;
  IF one_allowed AND jsonb_typeof(v) <> 'array' THEN v := jsonb_build_array(v); END IF;
  IF jsonb_typeof(v) <> 'array' OR jsonb_array_length(v) = 0 THEN
    PERFORM cms.alg_fail(format('%s of a %s criterion must be a non-empty array.', member, c->>'type'));
  END IF;
  SELECT array_agg(CASE
      WHEN jsonb_typeof(x) = 'string' AND kind IN ('string', 'id') THEN x #>> '{}'
      WHEN jsonb_typeof(x) = 'number' AND kind IN ('integer', 'id') AND x::text ~ '^-?[0-9]{1,9}$' THEN x::text
    END ORDER BY n)
  INTO out FROM jsonb_array_elements(v) WITH ORDINALITY AS a(x, n);
  IF array_position(out, NULL) IS NOT NULL THEN
    PERFORM cms.alg_fail(format('%s of a %s criterion must hold %s.', member, c->>'type',
      CASE kind WHEN 'string' THEN 'strings' WHEN 'integer' THEN 'integers' ELSE 'strings or integers' END));
  END IF;
  RETURN out;
END $$;

-- One criterion → a boolean SQL expression over the group `g` (literals quoted by format %L).
CREATE FUNCTION cms.alg_criterion(c jsonb, depth integer DEFAULT 0) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  t text;
  op text;
  at timestamptz;
  parts text[];
  x jsonb;
BEGIN
  IF depth > 32 THEN PERFORM cms.alg_fail('criteria are nested too deeply.'); END IF;
  IF jsonb_typeof(c) IS DISTINCT FROM 'object' THEN PERFORM cms.alg_fail('a criterion must be an object.'); END IF;
  IF jsonb_typeof(c->'type') IS DISTINCT FROM 'string' THEN PERFORM cms.alg_fail('a criterion needs a type (a string).'); END IF;
  t := c->>'type';
  CASE t
    WHEN 'action' THEN
      PERFORM cms.alg_only(c, ARRAY['type', 'value'], 'an action criterion');
      RETURN format('EXISTS (SELECT FROM cms.activity_log_entries e WHERE e.group_id = g.id AND e.action = ANY (%L::text[]))',
        cms.alg_strings(c, 'value', 'string', true));
    WHEN 'object_class' THEN
      PERFORM cms.alg_only(c, ARRAY['type', 'class', 'ids'], 'an object_class criterion');
      IF jsonb_typeof(c->'class') IS DISTINCT FROM 'string' THEN PERFORM cms.alg_fail('an object_class criterion needs class (a string).'); END IF;
      RETURN format('EXISTS (SELECT FROM cms.activity_log_entries e WHERE e.group_id = g.id AND e.object_class = %L%s)',
        c->>'class', CASE WHEN c ? 'ids' THEN format(' AND e.object_id = ANY (%L::text[])', cms.alg_strings(c, 'ids', 'id', false)) ELSE '' END);
    WHEN 'user' THEN
      PERFORM cms.alg_only(c, ARRAY['type', 'value'], 'a user criterion');
      RETURN format('g.user_id = ANY (%L::integer[])', cms.alg_strings(c, 'value', 'integer', true));
    WHEN 'logged_at' THEN
      PERFORM cms.alg_only(c, ARRAY['type', 'value', 'operator'], 'a logged_at criterion');
      IF jsonb_typeof(c->'value') IS DISTINCT FROM 'string' THEN PERFORM cms.alg_fail('a logged_at criterion needs value (a date expression).'); END IF;
      op := coalesce(c->>'operator', '=');
      IF c ? 'operator' AND (jsonb_typeof(c->'operator') <> 'string' OR op <> ALL (ARRAY['=', '<>', '<', '<=', '>', '>='])) THEN
        PERFORM cms.alg_fail(format('unknown operator %s (use =, <>, <, <=, >, >=).', c->'operator'));
      END IF;
      at := cms.parse_date_expr(c->>'value');
      IF at IS NULL THEN PERFORM cms.alg_fail(format('%s is not a date expression.', c->'value')); END IF;
      RETURN format('floor(extract(epoch FROM g.logged_at)) %s %s', op, floor(extract(epoch FROM at))::bigint);
    WHEN 'and', 'or' THEN
      PERFORM cms.alg_only(c, ARRAY['type', 'criteria'], format('an %s criterion', t));
      IF jsonb_typeof(c->'criteria') IS DISTINCT FROM 'array' THEN PERFORM cms.alg_fail(format('an %s criterion needs criteria (an array).', t)); END IF;
      FOR x IN SELECT value FROM jsonb_array_elements(c->'criteria') LOOP
        parts := parts || ('(' || cms.alg_criterion(x, depth + 1) || ')');
      END LOOP;
      IF parts IS NULL THEN RETURN CASE t WHEN 'and' THEN 'true' ELSE 'false' END; END IF;
      RETURN array_to_string(parts, CASE t WHEN 'and' THEN ' AND ' ELSE ' OR ' END);
    WHEN 'not' THEN
      PERFORM cms.alg_only(c, ARRAY['type', 'criterion'], 'a not criterion');
      IF NOT c ? 'criterion' THEN PERFORM cms.alg_fail('a not criterion needs criterion (one criterion).'); END IF;
      RETURN 'NOT (' || cms.alg_criterion(c->'criterion', depth + 1) || ')';
    ELSE
      PERFORM cms.alg_fail(format('unknown criterion type %s (use action, object_class, user, logged_at, and, or, not).', c->'type'));
  END CASE;
  RETURN NULL;
END $$;

-- offset/limit of the input: a JSON integer or a digit string, within [lo, hi].
CREATE FUNCTION cms.alg_int(v jsonb, name text, dflt integer, lo integer, hi integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE s text;
BEGIN
  IF v IS NULL THEN RETURN dflt; END IF;
  s := CASE WHEN jsonb_typeof(v) = 'number' THEN v::text WHEN jsonb_typeof(v) = 'string' THEN v #>> '{}' END;
  IF s IS NULL OR s !~ '^[0-9]{1,9}$' OR s::integer < lo OR (hi IS NOT NULL AND s::integer > hi) THEN
    PERFORM cms.alg_fail(format('%s must be an integer %s.', name, CASE WHEN hi IS NULL THEN format('≥ %s', lo) ELSE format('from %s to %s', lo, hi) END));
  END IF;
  RETURN s::integer;
END $$;

-- ---- XML input → the JSON shape --------------------------------------------------------------------

CREATE FUNCTION cms.xml_name(x xml) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT (xpath('name(/*)', x))[1]::text $$;
CREATE FUNCTION cms.xml_text(x xml) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT cms.xml_unescape((xpath('string(/*)', x))[1]::text) $$;
CREATE FUNCTION cms.xml_children(x xml) RETURNS SETOF xml LANGUAGE sql IMMUTABLE AS $$ SELECT unnest(xpath('/*/*', x)) $$;
CREATE FUNCTION cms.xml_attr(x xml, name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT cms.xml_unescape((xpath('/*/@' || name, x))[1]::text)
$$;

-- Set a member once; a repeated element is a 400.
CREATE FUNCTION cms.alg_put(obj jsonb, key text, value jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  IF obj ? key THEN PERFORM cms.alg_fail(format('<%s> appears more than once.', key)); END IF;
  RETURN obj || jsonb_build_object(key, value);
END $$;

-- <criterion type="…">…</criterion> → {"type": …, …}.
CREATE FUNCTION cms.alg_xml_criterion(x xml) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  t text := cms.xml_attr(x, 'type');
  c jsonb := CASE WHEN t IS NULL THEN '{}' ELSE jsonb_build_object('type', t) END;
  k xml;
  n text;
  v text;
  vals jsonb := '[]';
  subs jsonb := '[]';
BEGIN
  IF cms.xml_name(x) <> 'criterion' THEN PERFORM cms.alg_fail(format('<%s> where a <criterion> belongs.', cms.xml_name(x))); END IF;
  FOR k IN SELECT cms.xml_children(x) LOOP
    n := cms.xml_name(k);
    v := trim(cms.xml_text(k));
    IF n = 'value' THEN
      vals := vals || CASE WHEN t = 'user' AND v ~ '^-?[0-9]{1,9}$' THEN to_jsonb(v::integer) ELSE to_jsonb(v) END;
    ELSIF n = 'criterion' THEN
      subs := subs || jsonb_build_array(cms.alg_xml_criterion(k));
    ELSIF n = 'ids' THEN
      c := cms.alg_put(c, 'ids', coalesce((SELECT jsonb_agg(CASE WHEN cms.xml_name(i) = 'id' THEN to_jsonb(trim(cms.xml_text(i))) END)
                                           FROM cms.xml_children(k) i), '[]'));
    ELSE
      c := cms.alg_put(c, n, to_jsonb(v));
    END IF;
  END LOOP;
  IF jsonb_array_length(vals) > 0 THEN
    c := c || jsonb_build_object('value', CASE WHEN t = 'logged_at' AND jsonb_array_length(vals) = 1 THEN vals->0 ELSE vals END);
  END IF;
  IF t = 'not' THEN
    IF jsonb_array_length(subs) > 1 THEN PERFORM cms.alg_fail('a not criterion takes one <criterion>.'); END IF;
    IF jsonb_array_length(subs) = 1 THEN c := c || jsonb_build_object('criterion', subs->0); END IF;
  ELSIF jsonb_array_length(subs) > 0 OR t IN ('and', 'or') THEN
    c := c || jsonb_build_object('criteria', subs);
  END IF;
  RETURN c;
END $$;

-- <ActivityLogListInput> or <ActivityLogGroupListInput> → the JSON input object.
CREATE FUNCTION cms.alg_from_xml(doc xml) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  input jsonb := '{}';
  k xml;
  n text;
BEGIN
  IF cms.xml_name(doc) NOT IN ('ActivityLogListInput', 'ActivityLogGroupListInput') THEN
    PERFORM cms.alg_fail(format('the root element must be ActivityLogListInput or ActivityLogGroupListInput, not %s.', cms.xml_name(doc)));
  END IF;
  FOR k IN SELECT cms.xml_children(doc) LOOP
    n := cms.xml_name(k);
    IF n = 'criteria' THEN
      input := cms.alg_put(input, n, coalesce((SELECT jsonb_agg(cms.alg_xml_criterion(c)) FROM cms.xml_children(k) c), '[]'));
    ELSIF n = 'sortClauses' THEN
      input := cms.alg_put(input, n, coalesce((SELECT jsonb_agg(CASE WHEN cms.xml_name(c) = 'sortClause'
          THEN jsonb_strip_nulls(jsonb_build_object('type', cms.xml_attr(c, 'type'), 'direction', coalesce(nullif(trim(cms.xml_text(c)), ''), 'ASC')))
          ELSE to_jsonb(cms.xml_name(c)) END) FROM cms.xml_children(k) c), '[]'));
    ELSE
      input := cms.alg_put(input, n, to_jsonb(trim(cms.xml_text(k))));
    END IF;
  END LOOP;
  RETURN input;
END $$;

-- ---- the list --------------------------------------------------------------------------------------

-- The groups matching `where_sql` visible to the user of policy `pol`, in `order_sql`, paged.
CREATE FUNCTION cms.alg_list(pol jsonb, where_sql text, order_sql text, v_offset bigint, v_limit bigint, p_media text)
RETURNS cms."*/*" LANGUAGE plpgsql STABLE AS $$
DECLARE groups json;
BEGIN
  EXECUTE format($q$
    SELECT coalesce(json_agg(json_build_object(
        '_media-type', cms.media_type('ActivityLogGroup'),
        'user_id', g.user_id,
        'logged_at', floor(extract(epoch FROM g.logged_at))::bigint,
        'ActivityLogEntries', (SELECT coalesce(json_agg(json_build_object(
            '_media-type', cms.media_type('ActivityLog'), 'object_id', e.object_id, 'object_class', e.object_class,
            'action', e.action, 'data', e.data::json) ORDER BY e.id), '[]')
          FROM cms.activity_log_entries e WHERE e.group_id = g.id)) ORDER BY %2$s), '[]')
    FROM (SELECT * FROM cms.activity_log_groups g WHERE %1$s ORDER BY %2$s OFFSET %3$s LIMIT %4$s) g
  $q$,
    CASE WHEN pol->>'scope' = 'all' THEN '' ELSE format('g.user_id = %s AND ', (pol->>'user_id')::integer) END || '(' || where_sql || ')',
    order_sql, v_offset, v_limit)
  INTO groups;
  RETURN cms.respond('ActivityLogGroupList', json_build_object(
    '_media-type', cms.media_type('ActivityLogGroupList'),
    '_href', cms.base() || '/activity-log-group/list',
    'ActivityLogGroups', groups), p_media);
END $$;

-- GET /activity-log-group/list (§7.2): newest first.
CREATE FUNCTION cms.activity_log_list(p_query jsonb, p_media text) RETURNS cms."*/*"
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE
  cfg cms.settings;
  pol jsonb := cms.require_policy('activity_log', 'read', 'read the activity log');
BEGIN
  SELECT * INTO cfg FROM cms.settings;
  RETURN cms.alg_list(pol, 'true', 'g.logged_at DESC, g.id DESC',
    cms.int_param(p_query, 'offset', 0, 0, NULL),
    cms.int_param(p_query, 'limit', cfg.default_limit, 1, cfg.max_limit), p_media);
END $$;

-- POST /activity-log-group/list (§7.3): criteria, sort clauses, offset/limit; oldest first by default.
CREATE FUNCTION cms.activity_log_search(p_body text, p_content_type text, p_media text) RETURNS cms."*/*"
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE
  cfg cms.settings;
  pol jsonb := cms.require_policy('activity_log', 'read', 'read the activity log');
  input jsonb := '{}';
  j jsonb;
  where_parts text[];
  order_parts text[];
  dir text := 'ASC';
  x jsonb;
BEGIN
  SELECT * INTO cfg FROM cms.settings;
  IF coalesce(trim(p_body), '') <> '' THEN
    IF cms.body_format(p_content_type, 'ActivityLogGroupListInput') = 'json' THEN
      j := cms.parse_json(p_body);
      IF jsonb_typeof(j) <> 'object' THEN
        PERFORM cms.alg_fail('the body must be an object with the single key ActivityLogGroupListInput.');
      END IF;
      IF (SELECT array_agg(k) FROM jsonb_object_keys(j) k) IS DISTINCT FROM ARRAY['ActivityLogGroupListInput'] THEN
        PERFORM cms.alg_fail('the body must be an object with the single key ActivityLogGroupListInput.');
      END IF;
      input := j->'ActivityLogGroupListInput';
      IF jsonb_typeof(input) <> 'object' THEN PERFORM cms.alg_fail('ActivityLogGroupListInput must be an object.'); END IF;
    ELSE
      input := cms.alg_from_xml(cms.parse_xml(p_body));
    END IF;
  END IF;
  PERFORM cms.alg_only(input, ARRAY['offset', 'limit', 'criteria', 'sortClauses'], 'ActivityLogGroupListInput');
  IF input ? 'criteria' THEN
    IF jsonb_typeof(input->'criteria') <> 'array' THEN PERFORM cms.alg_fail('criteria must be an array.'); END IF;
    FOR x IN SELECT value FROM jsonb_array_elements(input->'criteria') LOOP
      where_parts := where_parts || ('(' || cms.alg_criterion(x) || ')');
    END LOOP;
  END IF;
  IF input ? 'sortClauses' THEN
    IF jsonb_typeof(input->'sortClauses') <> 'array' THEN PERFORM cms.alg_fail('sortClauses must be an array.'); END IF;
    FOR x IN SELECT value FROM jsonb_array_elements(input->'sortClauses') LOOP
      IF jsonb_typeof(x) <> 'object' THEN PERFORM cms.alg_fail('a sort clause must be an object.'); END IF;
      PERFORM cms.alg_only(x, ARRAY['type', 'direction'], 'a sort clause');
      IF x->'type' IS DISTINCT FROM '"logged_at"' THEN
        PERFORM cms.alg_fail(format('unknown sort clause type %s (use logged_at).', coalesce(x->'type', '(none)')));
      END IF;
      IF x ? 'direction' AND x->'direction' NOT IN ('"ASC"', '"DESC"') THEN
        PERFORM cms.alg_fail(format('sort direction %s must be ASC or DESC.', x->'direction'));
      END IF;
      dir := coalesce(x->>'direction', 'ASC');
      order_parts := order_parts || ('g.logged_at ' || dir);
    END LOOP;
  END IF;
  RETURN cms.alg_list(pol,
    coalesce(array_to_string(where_parts, ' AND '), 'true'),
    array_to_string(order_parts || ('g.id ' || dir), ', '),
    cms.alg_int(input->'offset', 'offset', 0, 0, NULL),
    cms.alg_int(input->'limit', 'limit', cfg.default_limit, 1, cfg.max_limit), p_media);
END $$;
