-- CMS API calendar (§8): GET /calendar/event — events in [start, end) of the given types and
-- languages, by dateTime then id, `count` per page, paged by an opaque cursor the server signs
-- (base64url of "<unix dateTime>:<id>:<hmac>"), so that a cursor it did not issue is a 400.

CREATE FUNCTION cms.calendar_cursor(at timestamptz, id integer) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT cms.b64url(convert_to(p || ':' || left(cms.hmac_b64('calendar:' || p), 16), 'UTF8'))
  FROM (SELECT floor(extract(epoch FROM at))::bigint || ':' || id AS p) x
$$;

-- (dateTime, id) of a cursor this server issued, or 400.
CREATE FUNCTION cms.calendar_cursor_position(cursor text, OUT at timestamptz, OUT id integer) LANGUAGE plpgsql STABLE AS $$
DECLARE raw text; m text[];
BEGIN
  BEGIN
    raw := convert_from(cms.b64url_decode(cursor), 'UTF8');
  EXCEPTION WHEN others THEN raw := NULL;
  END;
  m := regexp_match(coalesce(raw, ''), '^([0-9]{1,12}):([0-9]{1,9}):([A-Za-z0-9_-]{16})$');
  IF m IS NULL OR left(cms.hmac_b64('calendar:' || m[1] || ':' || m[2]), 16) <> m[3] THEN
    PERFORM cms.fail(400, 'Query parameter cursor is not a cursor this server issued; take it from _nextPage.');
  END IF;
  at := to_timestamp(m[1]::bigint);
  id := m[2]::integer;
END $$;

-- A comma list parameter whose items must all be in `known`; NULL when absent.
CREATE FUNCTION cms.list_param(q jsonb, name text, known text[]) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v jsonb := q -> name; items text[]; bad text;
BEGIN
  IF v IS NULL THEN RETURN NULL; END IF;
  IF jsonb_typeof(v) <> 'string' THEN PERFORM cms.fail(400, format('Query parameter %s must be given once.', name)); END IF;
  items := string_to_array(v #>> '{}', ',');
  SELECT x INTO bad FROM unnest(items) x WHERE x <> ALL (known) LIMIT 1;
  IF bad IS NOT NULL OR cardinality(items) = 0 THEN
    PERFORM cms.fail(400, format('Query parameter %s takes a comma list of %s; %s is not one of them.', name,
      array_to_string(known, ', '), coalesce(quote_literal(bad), 'an empty list')));
  END IF;
  RETURN items;
END $$;

CREATE FUNCTION cms.calendar_event_list(p_query jsonb, p_media text) RETURNS cms."*/*"
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE
  cfg cms.settings;
  pol jsonb := cms.require_policy('calendar', 'read', 'read the calendar');
  v_start bigint;
  v_end bigint;
  v_count bigint;
  v_types text[];
  v_languages text[];
  pos_at timestamptz;
  pos_id integer;
  current_url text;
  page_url text;
  total bigint;
  events json;
  n integer;
  last_at timestamptz;
  last_id integer;
  more boolean;
BEGIN
  SELECT * INTO cfg FROM cms.settings;
  v_start := cms.int_param(p_query, 'start', floor(extract(epoch FROM now()))::bigint, 0, 253402300799);
  v_end := cms.int_param(p_query, 'end', v_start + 2592000, 0, 253402300799);
  IF v_end <= v_start THEN PERFORM cms.fail(400, format('Query parameter end (%s) must be greater than start (%s).', v_end, v_start)); END IF;
  v_count := cms.int_param(p_query, 'count', cfg.calendar_default_count, 1, cfg.calendar_max_count);
  v_types := cms.list_param(p_query, 'types', ARRAY['future_publication', 'future_hide', 'reminder']);
  v_languages := cms.list_param(p_query, 'languages', (SELECT array_agg(code ORDER BY code) FROM cms.languages));
  IF p_query ? 'cursor' THEN
    IF jsonb_typeof(p_query->'cursor') <> 'string' THEN PERFORM cms.fail(400, 'Query parameter cursor must be given once.'); END IF;
    SELECT * INTO pos_at, pos_id FROM cms.calendar_cursor_position(p_query->>'cursor');
  END IF;
  page_url := format('%s/calendar/event?start=%s&end=%s&count=%s', cfg.base_path, v_start, v_end, v_count)
    || coalesce('&types=' || (p_query->>'types'), '') || coalesce('&languages=' || (p_query->>'languages'), '');

  SELECT count(*) INTO total FROM cms.calendar_events e
  WHERE e.date_time >= to_timestamp(v_start) AND e.date_time < to_timestamp(v_end)
    AND (v_types IS NULL OR e.type = ANY (v_types)) AND (v_languages IS NULL OR e.language = ANY (v_languages));

  SELECT coalesce(json_agg(json_build_object(
      '_media-type', cms.media_type('Event'), 'id', e.id, 'type', e.type, 'name', e.name,
      'dateTime', floor(extract(epoch FROM e.date_time))::bigint, 'language', e.language,
      'Content', cms.link('Content', cfg.base_path || '/content/objects/' || e.content_id),
      'Owner', cms.link('User', cfg.base_path || '/user/users/' || e.owner_id)) ORDER BY e.date_time, e.id) FILTER (WHERE e.rn <= v_count), '[]'),
    count(*), max(e.date_time) FILTER (WHERE e.rn = v_count), max(e.id) FILTER (WHERE e.rn = v_count)
  INTO events, n, last_at, last_id
  FROM (SELECT e.*, row_number() OVER (ORDER BY e.date_time, e.id) AS rn
        FROM cms.calendar_events e
        WHERE e.date_time >= to_timestamp(v_start) AND e.date_time < to_timestamp(v_end)
          AND (v_types IS NULL OR e.type = ANY (v_types)) AND (v_languages IS NULL OR e.language = ANY (v_languages))
          AND (pos_id IS NULL OR (e.date_time, e.id) > (pos_at, pos_id))
        ORDER BY e.date_time, e.id
        LIMIT v_count + 1) e;
  more := n > v_count;

  current_url := page_url || coalesce('&cursor=' || (p_query->>'cursor'), '');
  IF more THEN
    RETURN cms.respond('EventList', json_build_object('_media-type', cms.media_type('EventList'),
      '_currentPage', current_url, '_nextPage', page_url || '&cursor=' || cms.calendar_cursor(last_at, last_id),
      'totalCount', total, 'events', events), p_media);
  END IF;
  RETURN cms.respond('EventList', json_build_object('_media-type', cms.media_type('EventList'),
    '_currentPage', current_url, 'totalCount', total, 'events', events), p_media);
END $$;
