-- Public content API (/api/v2): the functions that ARE the endpoints (one per route, bound by
-- routes.json), the helpers they share, and the error renderer. Spec: content-api.md (section numbers
-- below are its). Endpoint functions are SECURITY DEFINER with a pinned search_path so that web_anon
-- reads through them only; every input error is raised as PT400 / PT404 with the exact text of §9 and
-- rendered by content.render_error as {"message": …}.
--
-- A listing is planned in PL/pgSQL (validation in the order of §6.3) and answered by statements built
-- from fixed SQL fragments and quoted literals (format %L): one json_agg over the LIMITed rows (so
-- nothing per row is computed for rows that are not returned) and, when that page does not show the
-- total, a count (for site/type/descendant_of alone: per-subtree counters, 10-schema.sql).

-- ── errors ──────────────────────────────────────────────────────────────────────────────────────
CREATE OR REPLACE FUNCTION content.bad_request(msg text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RAISE SQLSTATE 'PT400' USING MESSAGE = msg; END $$;

CREATE OR REPLACE FUNCTION content.not_found(msg text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RAISE SQLSTATE 'PT404' USING MESSAGE = msg; END $$;

-- The group's error handler: every error of /api/v2 (the engine's 404/405/406 and the raises above)
-- becomes {"message": text}; the engine keeps the status and the Allow header.
CREATE OR REPLACE FUNCTION content.render_error(e jsonb) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('message', CASE
    WHEN (e->>'status') = '405' THEN format('Method "%s" not allowed.', coalesce(current_setting('request.method', true), ''))
    ELSE coalesce(e->>'message', e->>'reason', 'error') END)
$$;

-- ── small helpers ───────────────────────────────────────────────────────────────────────────────
-- The marker a NUL character of the query string is turned into (PostgreSQL text cannot hold NUL).
CREATE OR REPLACE FUNCTION content.nul() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT chr(65535) $$;

-- The query string as the engine binds it (json, keys in request order, repeated keys as arrays),
-- with every \u0000 escape replaced by the NUL marker.
CREATE OR REPLACE FUNCTION content.query_sanitize(query json) RETURNS json
LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(regexp_replace(coalesce(query::text, '{}'),
    '((?:^|[^\\])(?:\\\\)*)\\u0000', '\1\\uffff', 'g'),
    '((?:^|[^\\])(?:\\\\)*)\\u0000', '\1\\uffff', 'g')::json
$$;

-- name → value; a repeated parameter counts with its last value (Django's QueryDict).
CREATE OR REPLACE FUNCTION content.query_last(query json) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(k, CASE WHEN json_typeof(v) = 'array' THEN v->>(json_array_length(v) - 1) ELSE v #>> '{}' END), '{}')
  FROM json_each(content.query_sanitize(query)) AS x(k, v)
$$;

-- (name, value) in request order, repeated parameters once per value (for find's Location): the
-- engine binds the keys in the order of their first occurrence, a repeated one's values in order.
CREATE OR REPLACE FUNCTION content.query_pairs(query json) RETURNS TABLE (n bigint, name text, value text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT row_number() OVER (ORDER BY o, i), k, val
  FROM json_each(content.query_sanitize(query)) WITH ORDINALITY AS x(k, v, o)
  CROSS JOIN LATERAL (SELECT e #>> '{}' AS val, i FROM json_array_elements(CASE WHEN json_typeof(v) = 'array' THEN v ELSE json_build_array(v) END) WITH ORDINALITY AS y(e, i)) y
  ORDER BY o, i
$$;

-- application/x-www-form-urlencoded, as Python's urlencode (quote_plus): unreserved kept, space '+'.
CREATE OR REPLACE FUNCTION content.form_encode(t text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT replace(coalesce(string_agg(CASE
      WHEN b = 32 THEN '+'
      WHEN b BETWEEN 48 AND 57 OR b BETWEEN 65 AND 90 OR b BETWEEN 97 AND 122 OR b IN (45, 46, 95, 126) THEN chr(b)
      ELSE '%' || upper(lpad(to_hex(b), 2, '0')) END, '' ORDER BY i), ''), '%EF%BF%BF', '%00')
  FROM (SELECT ('x' || h[1])::bit(8)::integer AS b, i
          FROM regexp_matches(encode(convert_to(t, 'UTF8'), 'hex'), '..', 'g') WITH ORDINALITY AS m(h, i)) x
$$;

-- A decimal string as an integer, or NULL when it does not fit (no such id).
CREATE OR REPLACE FUNCTION content.to_int(v text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v ~ '^[+-]?[0-9]+$' AND v::numeric BETWEEN -2147483648 AND 2147483647 THEN v::integer END
$$;

CREATE OR REPLACE FUNCTION content.try_date(v text) RETURNS date
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN v::date;
EXCEPTION WHEN others THEN RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION content.try_timestamptz(v text) RETURNS timestamptz
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN v::timestamptz;
EXCEPTION WHEN others THEN RETURN NULL;
END $$;

-- UTC, YYYY-MM-DDTHH:MM:SSZ (§3.5). STABLE as to_char is: an IMMUTABLE wrapper around a STABLE body is
-- never inlined, and the call per value costs more than the expression.
CREATE OR REPLACE FUNCTION content.iso(ts timestamptz) RETURNS text
LANGUAGE sql STABLE AS $$ SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') $$;

CREATE OR REPLACE FUNCTION content.sorted_tags(tags text[]) RETURNS json
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(json_agg(t ORDER BY t COLLATE "C"), '[]'::json) FROM unnest(tags) t $$;

CREATE OR REPLACE FUNCTION content.cfg() RETURNS content.settings
LANGUAGE sql STABLE AS $$ SELECT * FROM content.settings LIMIT 1 $$;

-- ── derived configuration ──────────────────────────────────────────────────────────────────────
-- What every request would otherwise compute again from the sites, their trees and the locales: the
-- html_url expression (content.html_url_sql for alias `a`), and per site the root paths of its trees
-- and its visibility condition for alias `a` (content.site_roots, content.visible_sql). Rewritten
-- whole by statement triggers on every table they are computed from (content.cache_refresh, at the
-- end of this file), so they cannot go stale; a missing row is computed instead.
CREATE TABLE IF NOT EXISTS content.url_cache (
  one        boolean PRIMARY KEY DEFAULT true CHECK (one),
  html_url_a text NOT NULL
);
-- the trees of every site (content.site_trees) with what html_url takes from their site: its root URL,
-- its root page's locale, whether it is the default site (content.page_html_url)
CREATE TABLE IF NOT EXISTS content.tree_cache (
  site_id         integer NOT NULL,
  path            text COLLATE "C" NOT NULL,
  depth           integer NOT NULL,
  root_url        text NOT NULL,
  root_locale     integer NOT NULL,
  is_default_site boolean NOT NULL
);
-- every resource's fields (content.field_defs): ptype '' for those of every page (or image, document),
-- a page type's name for its own
CREATE TABLE IF NOT EXISTS content.field_cache (
  resource text NOT NULL, ptype text NOT NULL,
  ord integer NOT NULL, name text NOT NULL, place text NOT NULL, kind text NOT NULL, detail_only boolean NOT NULL,
  filterable boolean NOT NULL, orderable boolean NOT NULL, expr text NOT NULL, db_expr text,
  PRIMARY KEY (resource, ptype, ord)
);
CREATE TABLE IF NOT EXISTS content.site_cache (
  site_id   integer PRIMARY KEY,
  roots     text[] NOT NULL,
  visible_a text NOT NULL
);

-- ── sites (§5) and visibility (§3.4) ────────────────────────────────────────────────────────────
-- The trees of each site: its root page, and with i18n the translations of that root (depth 2).
CREATE OR REPLACE VIEW content.site_trees AS
  SELECT s.id AS site_id, r.id AS root_id, r.path, r.depth, false AS translation
  FROM content.sites s JOIN content.pages r ON r.id = s.root_page
  UNION ALL
  SELECT s.id, t.id, t.path, t.depth, true
  FROM content.sites s JOIN content.pages r ON r.id = s.root_page
  JOIN content.pages t ON t.translation_key = r.translation_key AND t.depth = 2 AND t.id <> r.id
  WHERE (SELECT i18n_enabled FROM content.settings LIMIT 1);

-- The request's site from its Host header: same hostname and port (80 when absent), else the only
-- site with that hostname, else the default site.
CREATE OR REPLACE FUNCTION content.host_site(host text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  h text := lower(coalesce(host, ''));
  want_port integer := 80;
  found integer;
BEGIN
  IF h ~ ':[0-9]{1,5}$' THEN
    want_port := substring(h from ':([0-9]+)$')::integer;
    h := regexp_replace(h, ':[0-9]+$', '');
  END IF;
  h := regexp_replace(h, '\.$', '');   -- one trailing dot, as Django reads the host
  SELECT id INTO found FROM content.sites WHERE hostname = h AND port = want_port;
  IF found IS NULL AND (SELECT count(*) FROM content.sites WHERE hostname = h) = 1 THEN
    SELECT id INTO found FROM content.sites WHERE hostname = h;
  END IF;
  IF found IS NULL THEN SELECT id INTO found FROM content.sites WHERE is_default_site; END IF;
  RETURN found;
END $$;

-- `site=<hostname>` or `site=<hostname>:<port>` (§5.2).
CREATE OR REPLACE FUNCTION content.param_site(v text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  h text := lower(v);
  p text;
  found integer;
  n integer;
BEGIN
  IF strpos(h, ':') > 0 THEN
    p := substr(h, strpos(h, ':') + 1);
    h := left(h, strpos(h, ':') - 1);
    IF p ~ '^[0-9]{1,9}$' THEN
      SELECT id INTO found FROM content.sites WHERE hostname = h AND port = p::integer;
    END IF;
  ELSE
    SELECT count(*), min(id) INTO n, found FROM content.sites WHERE hostname = h;
    IF n > 1 THEN
      PERFORM content.bad_request('Your query returned multiple sites. Try adding a port number to your site filter.');
    END IF;
  END IF;
  IF found IS NULL THEN PERFORM content.not_found('No Site matches the given query.'); END IF;
  RETURN found;
END $$;

-- The root paths of a site's trees, from content.site_cache (kept by triggers, below); computed
-- when it holds no row for the site.
CREATE OR REPLACE FUNCTION content.site_roots_build(site integer) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(path ORDER BY path), '{}') FROM content.site_trees WHERE site_id = site);
END $$;

CREATE OR REPLACE FUNCTION content.site_roots(site integer) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT c.roots FROM content.site_cache c WHERE c.site_id = site), content.site_roots_build(site));
END $$;

CREATE OR REPLACE FUNCTION content.site_root_page(site integer) RETURNS integer
LANGUAGE sql STABLE AS $$ SELECT root_page FROM content.sites WHERE id = site $$;

-- SQL condition: page alias `a` is visible in the site whose tree root paths are `roots`.
-- The range from the first root to just past the last (byte order, path is COLLATE "C") is implied
-- by the prefix tests; spelled out, it is an index condition on path even with several roots. When no
-- page lies between the roots' subtrees (site A and its translations are neighbours), the range alone
-- is the same condition and the per-row prefix tests are left out.
CREATE OR REPLACE FUNCTION content.path_after(prefix text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT left(prefix, -1) || chr(ascii(right(prefix, 1)) + 1) $$;

-- content.visible_sql: for alias `a` and the roots of a site, content.site_cache holds it.
CREATE OR REPLACE FUNCTION content.visible_sql(a text, roots text[]) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF a = 'a' THEN
    RETURN coalesce((SELECT c.visible_a FROM content.site_cache c WHERE c.roots = visible_sql.roots LIMIT 1),
                    content.visible_sql_build(a, roots));
  END IF;
  RETURN content.visible_sql_build(a, roots);
END $$;

CREATE OR REPLACE FUNCTION content.visible_sql_build(a text, roots text[]) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT format('(%1$s.live AND NOT %1$s.in_private AND (%1$s.expire_at IS NULL OR %1$s.expire_at > now()) AND %2$s)', a,
    CASE WHEN coalesce(cardinality(roots), 0) = 0 THEN 'false'
         WHEN '' = ANY (roots) THEN 'true'
         ELSE format('%1$s.path >= %2$L AND %1$s.path < %3$L', a, (SELECT min(r COLLATE "C") FROM unnest(roots) r),
                     content.path_after((SELECT max(r COLLATE "C") FROM unnest(roots) r)))
           -- per gap, the first page at or after its start (an ordered probe of the path index)
           || CASE WHEN NOT EXISTS (SELECT 1
                                      FROM (SELECT content.path_after(r) AS lo, lead(r) OVER (ORDER BY r COLLATE "C") AS hi FROM unnest(roots) r) g,
                                      LATERAL (SELECT p.path FROM content.pages p WHERE p.path >= g.lo ORDER BY p.path LIMIT 1) n
                                     WHERE n.path < g.hi)
                   THEN ''
                   ELSE ' AND (' || (SELECT string_agg(format('%s.path LIKE %L', a, r || '%'), ' OR ') FROM unnest(roots) r) || ')' END
    END));
END $$;

CREATE OR REPLACE FUNCTION content.page_visible(p content.pages, roots text[]) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT p.live AND NOT p.in_private AND (p.expire_at IS NULL OR p.expire_at > now())
     AND EXISTS (SELECT 1 FROM unnest(roots) r WHERE p.path LIKE r || '%')
$$;

-- The visible page with this id (decimal string), or NULL.
CREATE OR REPLACE FUNCTION content.visible_page(v text, roots text[]) RETURNS content.pages
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT p FROM content.pages p WHERE p.id = content.to_int(v) AND content.page_visible(p, roots));
END $$;

-- STABLE as text || integer is: so that it is inlined.
CREATE OR REPLACE FUNCTION content.root_url(hostname text, port integer) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE port WHEN 80 THEN 'http://' || hostname WHEN 443 THEN 'https://' || hostname
                   ELSE 'http://' || hostname || ':' || port END
$$;

-- html_url (§3.5): the site whose tree holds the page, a locale prefix when the page's locale is not
-- the site root's, then the slugs below the tree root. The trees from content.tree_cache (a few rows):
-- the join of content.site_trees, planned with the page's path as a constant, could walk thousands of
-- pages of the primary key looking for the roots (~4 ms for a page outside the first site).
DROP FUNCTION IF EXISTS content.page_html_url(text, integer, integer);
CREATE OR REPLACE FUNCTION content.page_html_url(p_path text, p_depth integer, p_locale integer, p_url_path text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT t.root_url
      || CASE WHEN p_locale = t.root_locale THEN '' ELSE '/' || (SELECT language_code FROM content.locales WHERE id = p_locale) END
      || CASE WHEN p_depth <= t.depth THEN '/'
              WHEN t.depth = 2 THEN '/' || p_url_path   -- the stored slugs below depth 2
              ELSE '/' || (SELECT string_agg(a.slug, '/' ORDER BY a.depth) FROM content.pages a
                            WHERE a.path = ANY (content.path_prefixes(p_path)) AND a.depth > t.depth) || '/' END
  FROM content.tree_cache t
  WHERE p_path LIKE t.path || '%'
  ORDER BY length(t.path) DESC, t.is_default_site DESC, t.site_id
  LIMIT 1
$$;

-- The same html_url as an SQL expression over page alias `a`, for a request's items: the site trees
-- (a handful of rows) are read once and spelled out as one CASE, longest tree path first, so each row
-- costs a few prefix tests instead of a call that plans and joins the sites again. PL/pgSQL, as the
-- other helpers called per request: it keeps its query's plan for the session (an SQL function would
-- plan it on every call).
CREATE OR REPLACE FUNCTION content.html_url_sql(a text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF a = 'a' THEN   -- the requests' alias: content.url_cache holds it (kept by triggers, below)
    RETURN coalesce((SELECT c.html_url_a FROM content.url_cache c), content.html_url_sql_build(a));
  END IF;
  RETURN content.html_url_sql_build(a);
END $$;

CREATE OR REPLACE FUNCTION content.html_url_sql_build(a text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  loc text;
  compact text;
BEGIN
  -- Usually every tree is a depth-2 subtree (the site roots and their translations): then the tree's
  -- path and the page's locale give the site's URL and the locale prefix as one string, looked up in
  -- one jsonb literal (for each key the first tree in the order below, as a CASE would take), and the
  -- stored url_path gives the rest. A short expression: the request's statement, built and planned per
  -- request, parses and plans it in a fraction of the time of the general form below (and of a CASE
  -- with a WHEN per tree and locale: ~0.3 ms more per request for 4 sites and 3 locales).
  SELECT CASE WHEN bool_and(w.depth = 2) THEN
      format('(%2$L::jsonb ->> (left(%1$s.path, 8) || '':'' || %1$s.locale_id)) || CASE WHEN %1$s.depth <= 2 THEN ''/'' ELSE ''/'' || %1$s.url_path END',
        a, jsonb_object_agg(w.k, w.v) FILTER (WHERE w.first)) END
    INTO compact
  FROM (SELECT t.depth, t.path || ':' || l.id AS k,
               content.root_url(s.hostname, s.port) || CASE WHEN l.id = r.locale_id THEN '' ELSE '/' || l.language_code END AS v,
               row_number() OVER (PARTITION BY t.path, l.id ORDER BY length(t.path) DESC, s.is_default_site DESC, s.id) = 1 AS first
          FROM content.site_trees t
          JOIN content.sites s ON s.id = t.site_id
          JOIN content.pages r ON r.id = s.root_page
          CROSS JOIN content.locales l) w;
  IF compact IS NOT NULL THEN RETURN compact; END IF;
  loc := content.locale_code_sql(a);
  RETURN (SELECT coalesce('CASE ' || string_agg(format(
      'WHEN %1$s.path LIKE %2$L THEN %3$L || CASE WHEN %1$s.locale_id = %4$s THEN '''' ELSE ''/'' || %7$s END'
      || ' || CASE WHEN %1$s.depth <= %5$s THEN ''/'' ELSE ''/'' || %6$s END',
      a, t.path || '%', content.root_url(s.hostname, s.port), r.locale_id, t.depth,
      CASE WHEN t.depth = 2 THEN a || '.url_path'   -- the stored slugs below depth 2
           ELSE format('(SELECT string_agg(hu.slug, ''/'' ORDER BY hu.depth) FROM content.pages hu WHERE hu.path = ANY (content.path_prefixes(%1$s.path)) AND hu.depth > %2$s) || ''/''', a, t.depth) END,
      loc),
      ' ' ORDER BY length(t.path) DESC, s.is_default_site DESC, s.id) || ' END', 'NULL::text')
  FROM content.site_trees t
  JOIN content.sites s ON s.id = t.site_id
  JOIN content.pages r ON r.id = s.root_page);
END $$;

-- The language code of page alias `a` as an SQL expression: the locales (a handful) spelled out as one
-- CASE, so that a request's statement plans no subquery per use (html_url has one per site tree).
CREATE OR REPLACE FUNCTION content.locale_code_sql(a text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(format('CASE %s.locale_id ', a) || string_agg(format('WHEN %s THEN %L', id, language_code), ' ' ORDER BY id) || ' END', 'NULL::text')
    FROM content.locales);
END $$;

-- The fixed shape of meta.parent and meta.alias_of (§7.4), or null when not visible.
CREATE OR REPLACE FUNCTION content.page_small(pid integer, roots text[]) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT json_build_object('id', p.id,
    'meta', json_build_object('type', p.type,
      'detail_url', (SELECT api_base_url FROM content.settings LIMIT 1) || '/api/v2/pages/' || p.id || '/',
      'html_url', content.page_html_url(p.path, p.depth, p.locale_id, p.url_path)),
    'title', p.title)
  FROM content.pages p WHERE p.id = pid AND content.page_visible(p, roots));
END $$;

-- ── fields (§4) ─────────────────────────────────────────────────────────────────────────────────
-- Every field of a resource (pages: of the single type `ptype`, NULL for base fields only), in
-- canonical order. `expr` renders it and `db_expr` filters and orders by it ($a: the row's alias,
-- $r: the SQL literal of the request's site roots; `$h` alone: content.html_url_sql, `$l` alone: content.locale_code_sql); `kind` drives
-- filter parsing and nesting.
-- Read from content.field_cache (every resource's fields, a page type's own under its name; kept by the
-- triggers of the derived configuration, below): a listing asks 3 times, a detail 4, and building
-- them costs ~0.15 ms a call where reading them costs ~0.05. Built when the cache holds none.
CREATE OR REPLACE FUNCTION content.field_defs(resource text, ptype text)
RETURNS TABLE (ord integer, name text, place text, kind text, detail_only boolean, filterable boolean, orderable boolean, expr text, db_expr text)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
  SELECT c.ord, c.name, c.place, c.kind, c.detail_only, c.filterable, c.orderable, c.expr, c.db_expr FROM content.field_cache c
   WHERE c.resource = field_defs.resource AND (c.ptype = '' OR c.ptype = field_defs.ptype)
   ORDER BY c.ord;
  IF NOT FOUND THEN
    RETURN QUERY SELECT * FROM content.field_defs_build(resource, ptype);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION content.field_defs_build(resource text, ptype text)
RETURNS TABLE (ord integer, name text, place text, kind text, detail_only boolean, filterable boolean, orderable boolean, expr text, db_expr text)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
  WITH cfg AS (SELECT * FROM content.settings LIMIT 1)
  SELECT v.* FROM cfg, (VALUES
    (0,   'id',                 'body', 'integer',  false, true,  true,  '$a.id', '$a.id'),
    (101, 'type',               'meta', 'computed', false, false, false, '$a.type', NULL),
    (102, 'detail_url',         'meta', 'computed', false, false, false, '$b || ''/api/v2/pages/'' || $a.id || ''/''', NULL),
    (103, 'html_url',           'meta', 'computed', false, false, false, '$h', NULL),  -- content.html_url_sql
    (104, 'slug',               'meta', 'text',     false, true,  true,  '$a.slug', '$a.slug'),
    (105, 'show_in_menus',      'meta', 'boolean',  false, true,  true,  '$a.show_in_menus', '$a.show_in_menus'),
    (106, 'seo_title',          'meta', 'text',     false, true,  true,  '$a.seo_title', '$a.seo_title'),
    (107, 'search_description', 'meta', 'text',     false, true,  true,  '$a.search_description', '$a.search_description'),
    (108, 'first_published_at', 'meta', 'datetime', false, true,  true,  'content.iso($a.first_published_at)', '$a.first_published_at'),
    (109, 'expires_at',         'meta', 'datetime', false, true,  true,  'content.iso($a.expire_at)', '$a.expire_at'),
    (110, 'alias_of',           'meta', 'page',     false, true,  true,  'CASE WHEN $a.alias_of IS NOT NULL THEN content.page_small($a.alias_of, $r) END', '$a.alias_of'),  -- most pages: no call
    (111, 'parent',             'meta', 'computed', true,  false, false, 'content.page_small($a.parent, $r)', NULL),
    (112, 'locale',             'meta', 'locale',   false, false, true,  '$l', '$l'),  -- content.locale_code_sql
    (200, 'title',              'body', 'text',     false, true,  true,  '$a.title', '$a.title')
  ) AS v(ord, name, place, kind, detail_only, filterable, orderable, expr, db_expr)
  WHERE field_defs_build.resource = 'pages' AND (v.name <> 'locale' OR cfg.i18n_enabled)
  UNION ALL
  SELECT 300 + n::integer, f->>'name', 'body', f->>'kind', false, true, true,
         format('$a.fields->%L', f->>'name'),
         CASE f->>'kind' WHEN 'text' THEN format('($a.fields->>%L)', f->>'name')
                         WHEN 'date' THEN format('($a.fields->>%L)::date', f->>'name')
                         ELSE format('($a.fields->>%L)::integer', f->>'name') END
  FROM content.page_types t, jsonb_array_elements(t.fields) WITH ORDINALITY AS x(f, n)
  WHERE field_defs_build.resource = 'pages' AND t.type = field_defs_build.ptype
  UNION ALL
  SELECT v.* FROM (VALUES
    (0,   'id',           'body', 'integer',  false, true,  true,  '$a.id', '$a.id'),
    (101, 'type',         'meta', 'computed', false, false, false, '''wagtailimages.Image''', NULL),
    (102, 'detail_url',   'meta', 'computed', false, false, false, '$b || ''/api/v2/images/'' || $a.id || ''/''', NULL),
    (103, 'tags',         'meta', 'tags',     false, true,  false, 'content.sorted_tags($a.tags)', '$a.tags'),
    (104, 'download_url', 'meta', 'computed', false, false, false, '$m || $a.file', NULL),
    (200, 'title',        'body', 'text',     false, true,  true,  '$a.title', '$a.title'),
    (201, 'width',        'body', 'integer',  false, true,  true,  '$a.width', '$a.width'),
    (202, 'height',       'body', 'integer',  false, true,  true,  '$a.height', '$a.height')
  ) AS v(ord, name, place, kind, detail_only, filterable, orderable, expr, db_expr)
  WHERE field_defs_build.resource = 'images'
  UNION ALL
  SELECT v.* FROM (VALUES
    (0,   'id',           'body', 'integer',  false, true,  true,  '$a.id', '$a.id'),
    (101, 'type',         'meta', 'computed', false, false, false, '''wagtaildocs.Document''', NULL),
    (102, 'detail_url',   'meta', 'computed', false, false, false, '$b || ''/api/v2/documents/'' || $a.id || ''/''', NULL),
    (103, 'tags',         'meta', 'tags',     false, true,  false, 'content.sorted_tags($a.tags)', '$a.tags'),
    (104, 'download_url', 'meta', 'computed', false, false, false, '$b || ''/documents/'' || $a.id || ''/'' || $a.file', NULL),
    (200, 'title',        'body', 'text',     false, true,  true,  '$a.title', '$a.title')
  ) AS v(ord, name, place, kind, detail_only, filterable, orderable, expr, db_expr)
  WHERE field_defs_build.resource = 'documents'
  ORDER BY 1;
END $$;

-- Default field sets (§4): view is listing, detail or nested; `names`: every field, in canonical order.
DROP FUNCTION IF EXISTS content.default_fields(text, text, text);
CREATE OR REPLACE FUNCTION content.default_fields(resource text, view text, names text[]) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN CASE
    WHEN view = 'detail' OR (resource = 'documents' AND view = 'listing') THEN names
    WHEN resource = 'pages' AND view = 'listing' THEN
      ARRAY(SELECT n FROM unnest(names) WITH ORDINALITY AS x(n, o)
             WHERE n IN ('id', 'type', 'detail_url', 'html_url', 'slug', 'first_published_at', 'locale', 'title') ORDER BY o)
    WHEN resource = 'pages' THEN ARRAY['id', 'type', 'detail_url', 'title']
    WHEN view = 'listing' THEN ARRAY['id', 'type', 'detail_url', 'tags', 'download_url', 'title']
    ELSE ARRAY['id', 'type', 'detail_url', 'download_url', 'title'] END;
END $$;

CREATE OR REPLACE FUNCTION content.fields_fail(msg text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RAISE SQLSTATE 'PT400' USING MESSAGE = 'fields error: ' || msg; END $$;

-- The `fields` grammar (§7.1), a port of Wagtail's parse_fields_parameter. Linear in the value's
-- length, whatever it holds (a query string is up to 64 kB): the value is cut into tokens in one
-- regular-expression pass (content.fields_tokens), each token is looked at once, and the items go into
-- flat arrays (an element assignment, not a copy of what was built so far). Iterative, with an explicit
-- stack of open brackets, so that no nesting depth can exhaust the server's stack. The result is flat
-- too, item k in element k of each array: its name, whether it is negated, the item whose sub-list
-- holds it (0: the top list), whether it has a sub-list. (Arrays, not a jsonb array of objects:
-- jsonb_agg of 30,000 small objects alone takes a second.)
DO $$ BEGIN
  CREATE TYPE content.parsed_fields AS (n text[], neg boolean[], p integer[], sub boolean[]);
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
DROP FUNCTION IF EXISTS content.fields_parse(text);
CREATE OR REPLACE FUNCTION content.fields_parse(s text) RETURNS content.parsed_fields
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  tk text[];
  tc text[];
  tp bigint[];
  n integer;
  i integer := 1;
  c text;
  ident text;
  negated boolean;
  first_char boolean;
  is_first boolean := true;
  first_ident text;
  parent integer := 0;          -- the item whose sub-list is being parsed (0: the top list)
  -- the items
  k integer := 0;
  it_n text[] := '{}';
  it_neg boolean[] := '{}';
  it_p integer[] := '{}';
  it_sub boolean[] := '{}';
  -- the enclosing lists: their item and first identifier, by nesting level
  level integer := 0;
  st_parent integer[] := '{}';
  st_first_ident text[] := '{}';
BEGIN
  IF coalesce(s, '') = '' THEN   -- no `fields` (most requests): no items
    RETURN ROW(it_n, it_neg, it_p, it_sub)::content.parsed_fields;
  END IF;
  SELECT coalesce(array_agg(t.tok ORDER BY t.pos), '{}'), coalesce(array_agg(t.cls ORDER BY t.pos), '{}'), coalesce(array_agg(t.pos ORDER BY t.pos), '{}')
    INTO tk, tc, tp FROM content.fields_tokens(s) t;
  n := cardinality(tk);
  LOOP
    EXIT WHEN i > n;
    -- an identifier: ['-'] then '*' or a run of letters, digits and '_' ('*' then a run starting
    -- with '_' is one name, as in Wagtail)
    ident := '';
    negated := false;
    first_char := true;
    WHILE i <= n LOOP
      c := tk[i];
      IF c IN ('(', ')', ',') THEN
        IF ident = '' OR (ident IN ('*', '_') AND c = '(') THEN
          PERFORM content.fields_fail(format('unexpected char ''%s'' at position %s', c, tp[i]));
        END IF;
        EXIT;
      ELSIF c = '-' THEN
        IF NOT first_char THEN PERFORM content.fields_fail(format('unexpected char ''%s'' at position %s', c, tp[i])); END IF;
        negated := true;
      ELSIF c = '*' THEN
        IF ident <> '' THEN PERFORM content.fields_fail(format('unexpected char ''%s'' at position %s', c, tp[i])); END IF;
        ident := c;
      ELSIF tc[i] = 'w' THEN
        IF ident = '*' AND left(c, 1) <> '_' THEN
          PERFORM content.fields_fail(format('unexpected char ''%s'' at position %s', left(c, 1), tp[i]));
        END IF;
        ident := ident || c;
      ELSIF tc[i] = 's' THEN
        PERFORM content.fields_fail(format('unexpected whitespace at position %s', tp[i]));
      ELSE
        PERFORM content.fields_fail(format('unexpected char ''%s'' at position %s', c, tp[i]));
      END IF;
      first_char := false;
      i := i + 1;
    END LOOP;

    IF ident IN ('*', '_') THEN
      IF NOT is_first THEN PERFORM content.fields_fail(format('''%s'' must be in the first position', ident)); END IF;
      IF negated THEN PERFORM content.fields_fail(format('''%s'' cannot be negated', ident)); END IF;
    END IF;
    IF is_first THEN first_ident := ident; END IF;
    IF i <= n AND tk[i] = '(' THEN
      IF negated THEN PERFORM content.fields_fail(format('unexpected char ''('' at position %s', tp[i])); END IF;
      -- an item with a sub-list (never refused by the checks below: it is not negated and has one)
      k := k + 1; it_n[k] := ident; it_neg[k] := false; it_p[k] := parent; it_sub[k] := true;
      level := level + 1;
      st_parent[level] := parent; st_first_ident[level] := first_ident;
      parent := k; is_first := true; first_ident := NULL;
      i := i + 1;
      CONTINUE;
    END IF;
    IF NOT is_first THEN
      IF first_ident = '_' AND negated THEN PERFORM content.fields_fail('negated fields with ''_'' doesn''t make sense'); END IF;
      IF first_ident = '*' AND NOT negated THEN PERFORM content.fields_fail('additional fields with ''*'' doesn''t make sense'); END IF;
    END IF;
    k := k + 1; it_n[k] := ident; it_neg[k] := negated; it_p[k] := parent; it_sub[k] := false;
    -- every ')' right after closes a sub-list: back to the list of the item it belongs to
    WHILE i <= n AND tk[i] = ')' LOOP
      IF level = 0 THEN PERFORM content.fields_fail(format('unexpected char '')'' at position %s', tp[i])); END IF;
      i := i + 1;
      parent := st_parent[level]; first_ident := st_first_ident[level];
      level := level - 1;
    END LOOP;
    IF i <= n AND tk[i] = ',' THEN
      i := i + 1;
      IF i > n THEN PERFORM content.fields_fail(format('unexpected char '','' at position %s', length(s))); END IF;
    END IF;
    is_first := false;
  END LOOP;
  IF level > 0 THEN PERFORM content.fields_fail('unexpected end of input (did you miss out a close bracket?)'); END IF;
  RETURN ROW(it_n, it_neg, it_p, it_sub)::content.parsed_fields;
END $$;

-- Field selection (§7.2, §7.3) of the list under item `parent` of a parsed value (0: the top list):
-- {"sel": [names], "sub": {relation: selection}} for a view. The unknown names are found in one set
-- operation before anything is selected, so the work per item is bounded by the few fields there are.
DROP FUNCTION IF EXISTS content.fields_resolve(text, text, text, jsonb);
CREATE OR REPLACE FUNCTION content.fields_resolve(resource text, ptype text, view text, parsed content.parsed_fields, parent integer DEFAULT 0) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  all_names text[];
  sel text[];
  it_n text[];
  it_neg boolean[];
  it_i integer[];
  it_sub boolean[];
  start integer := 1;
  subs jsonb := '{}';
  unknown text;
  nested jsonb := '{}';
  names text[];
  kinds text[];
  shown boolean[];
BEGIN
  -- the fields, read once: every name, its kind, and whether this view may show it
  SELECT array_agg(f.name ORDER BY f.ord), array_agg(f.kind ORDER BY f.ord), array_agg(view <> 'listing' OR NOT f.detail_only ORDER BY f.ord)
    INTO names, kinds, shown FROM content.field_defs(resource, ptype) f;
  all_names := ARRAY(SELECT n FROM unnest(names, shown) WITH ORDINALITY AS x(n, ok, o) WHERE ok ORDER BY o);
  -- the items of this list
  SELECT coalesce(array_agg(x.n ORDER BY x.o), '{}'), coalesce(array_agg(x.g ORDER BY x.o), '{}'),
         coalesce(array_agg(x.o::integer ORDER BY x.o), '{}'), coalesce(array_agg(x.b ORDER BY x.o), '{}')
    INTO it_n, it_neg, it_i, it_sub
    FROM unnest(parsed.n, parsed.neg, parsed.p, parsed.sub) WITH ORDINALITY AS x(n, g, p, b, o) WHERE x.p = parent;
  sel := content.default_fields(resource, view, names);
  IF cardinality(it_n) > 0 AND it_n[1] = '*' THEN
    sel := all_names;
    start := 2;
  ELSIF cardinality(it_n) > 0 AND it_n[1] = '_' THEN
    sel := '{}';
    start := 2;
  END IF;
  SELECT string_agg(m, ', ' ORDER BY m COLLATE "C") INTO unknown
    FROM (SELECT DISTINCT m FROM unnest(it_n[start:]) m WHERE NOT (m = ANY (all_names))) x;
  IF unknown IS NOT NULL THEN PERFORM content.bad_request('unknown fields: ' || unknown); END IF;
  FOR j IN start..cardinality(it_n) LOOP
    IF it_neg[j] THEN
      sel := array_remove(sel, it_n[j]);
    ELSE
      IF NOT (it_n[j] = ANY (sel)) THEN sel := sel || it_n[j]; END IF;
      IF it_sub[j] THEN subs := subs || jsonb_build_object(it_n[j], it_i[j]); END IF;   -- the last one counts
    END IF;
  END LOOP;
  FOR j IN 1..cardinality(names) LOOP
    CONTINUE WHEN NOT (names[j] = ANY (sel));
    IF kinds[j] IN ('image', 'document') THEN
      nested := nested || jsonb_build_object(names[j],
        content.fields_resolve(kinds[j] || 's', NULL, 'nested', parsed, coalesce((subs->>names[j])::integer, -1)));
    ELSIF subs ? names[j] THEN
      PERFORM content.bad_request(format('''%s'' does not support nested fields', names[j]));
    END IF;
  END LOOP;
  RETURN jsonb_build_object('sel', to_jsonb(sel), 'sub', nested);
END $$;

-- The SQL expression of one item (json, keys in canonical order: id, meta, body) for alias `a`.
CREATE OR REPLACE FUNCTION content.item_sql(resource text, ptype text, spec jsonb, a text, roots text[]) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  cfg content.settings := content.cfg();
  sel text[] := ARRAY(SELECT jsonb_array_elements_text(spec->'sel'));
  id_part text := '';
  meta text[] := '{}';
  body text[] := '{}';
  d record;
  e text;
  b text := a || 'x';
BEGIN
  FOR d IN SELECT * FROM content.field_defs(resource, ptype) f WHERE f.name = ANY (sel) ORDER BY f.ord LOOP
    IF d.kind IN ('image', 'document') THEN
      e := format('(SELECT %s FROM content.%s %s WHERE %s.id = %s AND %s.collection IN (SELECT id FROM content.collections WHERE NOT restricted))',
        content.item_sql(d.kind || 's', NULL, spec->'sub'->d.name, b, roots), d.kind || 's', b, b, replace(d.db_expr, '$a', a), b);
    ELSE
      e := CASE WHEN d.expr = '$h' THEN content.html_url_sql(a) WHEN d.expr = '$l' THEN content.locale_code_sql(a) ELSE
             replace(replace(replace(replace(d.expr, '$a', a), '$r', quote_literal(roots) || '::text[]'),
                     '$b', quote_literal(cfg.api_base_url)), '$m', quote_literal(cfg.media_url)) END;
    END IF;
    IF d.name = 'id' THEN id_part := format('%L, %s', d.name, e);
    ELSIF d.place = 'meta' THEN meta := meta || format('%L, %s', d.name, e);
    ELSE body := body || format('%L, %s', d.name, e);
    END IF;
  END LOOP;
  RETURN 'json_build_object(' || array_to_string(
    array_remove(ARRAY[id_part] || CASE WHEN cardinality(meta) > 0 THEN ARRAY['''meta'', json_build_object(' || array_to_string(meta, ', ') || ')'] ELSE '{}' END || body, ''),
    ', ') || ')';
END $$;

-- ── filters ─────────────────────────────────────────────────────────────────────────────────────
-- One exact-match filter (§6.5) as an SQL condition on `expr`, or the error of its value.
CREATE OR REPLACE FUNCTION content.filter_sql(kind text, expr text, name text, v text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  bad text := format('field filter error. ''%s'' is not a valid value for %s', v, name);
BEGIN
  IF strpos(v, content.nul()) > 0 THEN
    PERFORM content.bad_request('field filter error. null characters are not allowed for ' || name);
  END IF;
  CASE kind
    WHEN 'boolean' THEN
      IF v IN ('true', '1') THEN RETURN expr || ' = true'; END IF;
      IF v IN ('false', '0') THEN RETURN expr || ' = false'; END IF;
      PERFORM content.bad_request(format('%s (expected ''true'' or ''false'', got ''%s'')', bad, v));
    WHEN 'integer', 'page', 'image', 'document' THEN
      IF v !~ '^[+-]?[0-9]+$' THEN PERFORM content.bad_request(bad || ' (expected an integer)'); END IF;
      RETURN coalesce(expr || ' = ' || content.to_int(v), 'false');
    WHEN 'date' THEN
      IF v !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' OR content.try_date(v) IS NULL THEN
        PERFORM content.bad_request(bad || ' (expected a date, YYYY-MM-DD)');
      END IF;
      RETURN format('%s = %L::date', expr, v);
    WHEN 'datetime' THEN
      IF v !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)$'
         OR content.try_timestamptz(v) IS NULL THEN
        PERFORM content.bad_request(bad || ' (expected an ISO 8601 date-time with a UTC offset)');
      END IF;
      RETURN format('%s = %L::timestamptz', expr, v);
    WHEN 'tags' THEN
      -- as Python's split: '' is one empty name (no item carries it); duplicates dropped
      RETURN format('%s @> %L::text[]', expr, ARRAY(SELECT DISTINCT x FROM unnest(CASE WHEN v = '' THEN ARRAY[''] ELSE string_to_array(v, ',') END) x));
    ELSE
      RETURN format('%s = %L', expr, v);
  END CASE;
  RETURN 'false';
END $$;

-- Whether the object a relation points to is shown (§3.4): a relation to a hidden one is null
-- (§11.9), so it must not be found by its id either.
CREATE OR REPLACE FUNCTION content.related_visible(kind text, rid integer, roots text[]) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT coalesce(CASE kind
    WHEN 'page' THEN (SELECT content.page_visible(p, roots) FROM content.pages p WHERE p.id = rid)
    WHEN 'image' THEN EXISTS (SELECT 1 FROM content.images i JOIN content.collections c ON c.id = i.collection WHERE i.id = rid AND NOT c.restricted)
    WHEN 'document' THEN EXISTS (SELECT 1 FROM content.documents d JOIN content.collections c ON c.id = d.collection WHERE d.id = rid AND NOT c.restricted)
  END, false)
$$;

-- The SQL sort key of an orderable field over alias `a`: a relation sorts by the id of the object
-- it shows, a hidden one as null (with the nulls); text and the locale's code by byte order.
CREATE OR REPLACE FUNCTION content.order_sql(kind text, db_expr text, roots text[]) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  e text := replace(db_expr, '$a', 'a');
BEGIN
  RETURN CASE kind
    WHEN 'text' THEN e || ' COLLATE "C"'
    WHEN 'locale' THEN '(' || content.locale_code_sql('a') || ') COLLATE "C"'
    WHEN 'page' THEN format('(SELECT r.id FROM content.pages r WHERE r.id = %s AND %s)', e, content.visible_sql('r', roots))
    WHEN 'image' THEN format('(SELECT r.id FROM content.images r WHERE r.id = %s AND r.collection IN (SELECT id FROM content.collections WHERE NOT restricted))', e)
    WHEN 'document' THEN format('(SELECT r.id FROM content.documents r WHERE r.id = %s AND r.collection IN (SELECT id FROM content.collections WHERE NOT restricted))', e)
    ELSE e END;
END $$;

-- A tree filter's value: the reference page (visible in the site), or its error (§6.6).
CREATE OR REPLACE FUNCTION content.tree_ref(param text, v text, roots text[], site integer, root_ok boolean, missing text) RETURNS content.pages
LANGUAGE plpgsql STABLE AS $$
DECLARE
  p content.pages;
BEGIN
  IF root_ok AND v = 'root' THEN
    SELECT * INTO p FROM content.pages WHERE id = content.site_root_page(site);
  ELSIF v ~ '^[0-9]+$' THEN
    p := content.visible_page(v, roots);
  ELSE
    PERFORM content.bad_request(param || ' must be a positive integer');
  END IF;
  IF p.id IS NULL THEN PERFORM content.bad_request(missing); END IF;
  RETURN p;
END $$;

-- A page type list (§6.4) → the types, or 'type doesn't exist'.
CREATE OR REPLACE FUNCTION content.parse_types(v text) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  bad boolean;
  out text[];
BEGIN
  -- one statement for the whole list, however many items it has
  SELECT coalesce(bool_or(y.t IS NULL), false), coalesce(array_agg(DISTINCT y.t) FILTER (WHERE y.t IS NOT NULL), '{}') INTO bad, out
    FROM unnest(string_to_array(v, ',')) AS x(item)
    LEFT JOIN LATERAL (SELECT pt.type AS t FROM content.page_types pt
                        WHERE x.item ~ '^[^.]+\.[^.]+$'
                          AND split_part(pt.type, '.', 1) = split_part(x.item, '.', 1)
                          AND lower(split_part(pt.type, '.', 2)) = lower(split_part(x.item, '.', 2))
                        ORDER BY pt.type LIMIT 1) y ON true;
  IF bad THEN PERFORM content.bad_request('type doesn''t exist'); END IF;
  RETURN out;
END $$;

-- ── listing (§6) ────────────────────────────────────────────────────────────────────────────────
CREATE OR REPLACE FUNCTION content.listing(resource text, query json, host text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  cfg content.settings := content.cfg();
  q jsonb := content.query_last(query);
  ptypes text[];
  ptype text;
  site integer;
  roots text[] := '{}';
  conds text[] := '{}';
  known text[] := ARRAY['limit', 'offset', 'fields', 'order', 'search', 'search_operator', 'format', '_'];
  unknown text;
  d record;
  ref content.pages;
  ord_sql text[] := '{}';
  ordered text[] := '{}';
  o_name text[]; o_kind text[]; o_expr text[];
  j integer;
  item text;
  oname text;
  descending boolean;
  words text[];
  too_long boolean;
  op text;
  off bigint := 0;
  lim bigint := least(20, coalesce(cfg.limit_max, 20));
  spec jsonb;
  where_sql text;
  total bigint;
  items json;
  loc integer;
  -- the total from content.subtree_counts: only site, type and descendant_of filter the listing
  by_counts boolean := resource = 'pages';
  count_roots text[];     -- the subtrees whose counters add up to the listing
  count_types text[];     -- NULL: every type
  count_less integer := 0;
  tq tsquery;
  count_word text;        -- the total from content.search_counts: a one-word search of whole sites
  f_kind text[] := '{}'; f_expr text[] := '{}'; f_name text[] := '{}';   -- the query's field filters
BEGIN
  IF resource = 'pages' THEN
    -- 1. type
    IF coalesce(q->>'type', '') <> '' THEN
      ptypes := content.parse_types(q->>'type');
      IF NOT ('wagtailcore.Page' = ANY (ptypes)) THEN
        conds := conds || CASE WHEN cardinality(ptypes) = 1 THEN format('a.type = %L', ptypes[1]) ELSE format('a.type = ANY (%L::text[])', ptypes) END;
        count_types := ptypes;
        IF cardinality(ptypes) = 1 THEN ptype := ptypes[1]; END IF;
      END IF;
    END IF;
    -- 2. site
    site := CASE WHEN q ? 'site' THEN content.param_site(q->>'site') ELSE content.host_site(host) END;
    roots := content.site_roots(site);
    conds := conds || content.visible_sql('a', roots);
    -- the visible pages are the union of the roots' subtrees: the outermost roots, once each
    count_roots := ARRAY(SELECT DISTINCT r FROM unnest(roots) r
                          WHERE NOT EXISTS (SELECT 1 FROM unnest(roots) o WHERE length(o) < length(r) AND left(r, length(o)) = o));
    known := known || ARRAY['type', 'child_of', 'ancestor_of', 'descendant_of', 'site'];
    IF cfg.i18n_enabled THEN known := known || ARRAY['translation_of', 'locale']; END IF;
  ELSE
    conds := conds || 'a.collection IN (SELECT id FROM content.collections WHERE NOT restricted)'::text;
  END IF;

  -- 3. unknown parameters
  -- the filterable fields, read once: names for this check, the ones in the query for step 4
  -- (the filters in the query string's order: with several bad ones, the first is reported, §6.3)
  FOR d IN SELECT f.*, x.o FROM content.field_defs(resource, ptype) f
             LEFT JOIN json_object_keys(content.query_sanitize(query)) WITH ORDINALITY AS x(k, o) ON x.k = f.name
            WHERE f.filterable ORDER BY x.o, f.ord LOOP
    known := known || d.name;
    IF q ? d.name THEN
      f_kind := f_kind || d.kind; f_expr := f_expr || replace(d.db_expr, '$a', 'a'); f_name := f_name || d.name;
    END IF;
  END LOOP;
  SELECT string_agg(k, ', ' ORDER BY k COLLATE "C") INTO unknown FROM jsonb_object_keys(q) k WHERE NOT (k = ANY (known));
  IF unknown IS NOT NULL THEN
    PERFORM content.bad_request('query parameter is not an operation or a recognised field: ' || unknown);
  END IF;

  -- 4. field filters, tree filters, order, translation_of, locale, search
  FOR i IN 1..cardinality(f_name) LOOP
    conds := conds || content.filter_sql(f_kind[i], f_expr[i], f_name[i], q->>f_name[i]);
    -- a relation to a hidden object is null (§11.9): filtering by its id finds nothing
    IF f_kind[i] IN ('page', 'image', 'document') AND NOT content.related_visible(f_kind[i], content.to_int(q->>f_name[i]), roots) THEN
      conds := conds || 'false'::text;
    END IF;
    by_counts := false;
  END LOOP;
  IF resource = 'pages' THEN
    IF q ? 'child_of' THEN
      ref := content.tree_ref('child_of', q->>'child_of', roots, site, true, 'parent page doesn''t exist');
      conds := conds || format('a.parent = %s', ref.id);
      by_counts := false;
    END IF;
    IF q ? 'ancestor_of' THEN
      ref := content.tree_ref('ancestor_of', q->>'ancestor_of', roots, site, false, 'descendant page doesn''t exist');
      conds := conds || format('a.path = ANY (%L::text[]) AND a.path <> %L', content.path_prefixes(ref.path), ref.path);
      by_counts := false;
    END IF;
    IF q ? 'descendant_of' THEN
      IF q ? 'child_of' THEN PERFORM content.bad_request('filtering by descendant_of with child_of is not supported'); END IF;
      ref := content.tree_ref('descendant_of', q->>'descendant_of', roots, site, true, 'ancestor page doesn''t exist');
      -- the subtree without its root as one index range: every descendant's path starts with the
      -- root's and is longer (paths are COLLATE "C", so this is LIKE 'root%' AND <> 'root')
      conds := conds || format('a.path > %L AND a.path < %L', ref.path, content.path_after(ref.path));
      -- a visible page's subtree lies in its site's trees; its counters include the page itself
      count_roots := ARRAY[ref.path];
      count_less := CASE WHEN ref.live AND NOT ref.in_private AND ref.expire_at IS NULL
                          AND (count_types IS NULL OR ref.type = ANY (count_types)) THEN 1 ELSE 0 END;
    END IF;
  END IF;

  IF coalesce(q->>'order', '') <> '' THEN
    IF 'random' = ANY (string_to_array(q->>'order', ',')) THEN
      IF cardinality(string_to_array(q->>'order', ',')) > 1 THEN
        PERFORM content.bad_request('random ordering cannot be combined with other fields');
      END IF;
      IF q ? 'offset' THEN PERFORM content.bad_request('random ordering with offset is not supported'); END IF;
      ord_sql := ARRAY['random()'];
    ELSE
      -- the orderable fields, read once; a name given again adds nothing (ties on it are already
      -- equal), so the statement's ORDER BY has at most one key per field however long `order` is
      SELECT array_agg(f.name), array_agg(f.kind), array_agg(f.db_expr) INTO o_name, o_kind, o_expr
        FROM content.field_defs(resource, ptype) f WHERE f.orderable;
      FOREACH item IN ARRAY string_to_array(q->>'order', ',') LOOP
        descending := left(item, 1) = '-';
        oname := CASE WHEN descending THEN substr(item, 2) ELSE item END;
        j := array_position(o_name, oname);
        IF j IS NULL THEN PERFORM content.bad_request(format('cannot order by ''%s'' (unknown field)', item)); END IF;
        CONTINUE WHEN oname = ANY (ordered);
        ordered := ordered || oname;
        ord_sql := ord_sql || (content.order_sql(o_kind[j], o_expr[j], roots)
                               || CASE WHEN descending THEN ' DESC' ELSE '' END);
      END LOOP;
    END IF;
  END IF;
  IF NOT ('random()' = ANY (ord_sql)) THEN
    ord_sql := ord_sql || CASE WHEN resource = 'pages' THEN 'a.path' ELSE 'a.id' END;
  END IF;

  IF resource = 'pages' AND q ? 'translation_of' THEN
    ref := content.tree_ref('translation_of', q->>'translation_of', roots, site, true, 'translation_of page doesn''t exist');
    conds := conds || format('a.translation_key = %L AND a.id <> %s', ref.translation_key, ref.id);
    by_counts := false;
  END IF;
  IF resource = 'pages' AND q ? 'locale' THEN
    SELECT id INTO loc FROM content.locales WHERE language_code = q->>'locale';
    IF loc IS NULL THEN PERFORM content.not_found('No Locale matches the given query.'); END IF;
    conds := conds || format('a.locale_id = %s', loc);
    by_counts := false;
  END IF;
  IF q ? 'search' THEN
    IF NOT cfg.search_enabled THEN PERFORM content.bad_request('search is disabled'); END IF;
    IF q ? 'tags' THEN PERFORM content.bad_request('filtering by tag with a search query is not supported'); END IF;
    op := lower(coalesce(nullif(q->>'search_operator', ''), 'and'));   -- any letter case (§6.9)
    IF op NOT IN ('and', 'or') THEN PERFORM content.bad_request('search_operator must be ''and'' or ''or'''); END IF;
    -- content.words in the same pass as the check for a word longer than a lexeme can be (2 kB): such
    -- a word matches nothing, so with `and` nothing matches
    SELECT coalesce(array_agg(DISTINCT w) FILTER (WHERE octet_length(w) <= 2046), '{}'), coalesce(bool_or(octet_length(w) > 2046), false)
      INTO words, too_long FROM content.word_runs(replace(q->>'search', content.nul(), ' ')) w;
    IF op = 'and' AND too_long THEN
      words := '{}';
    END IF;
    IF cardinality(words) = 0 THEN
      conds := conds || 'false'::text;
    ELSE
      conds := conds || format('a.search_words @@ %L::tsquery',
        array_to_string(ARRAY(SELECT quote_literal(w) FROM unnest(words) w), CASE op WHEN 'or' THEN ' | ' ELSE ' & ' END));
      -- one word, no filter but the sites': the counters hold the total when the query is that one
      -- word exactly (matches it and nothing else) and the sites' roots are on the counted levels
      IF by_counts AND count_types IS NULL AND NOT q ? 'descendant_of' AND cardinality(words) = 1
         AND NOT EXISTS (SELECT 1 FROM unnest(count_roots) r WHERE length(r) > 8) THEN
        tq := quote_literal(words[1])::tsquery;
        IF numnode(tq) = 1 AND array_to_tsvector(words) @@ tq THEN
          count_word := words[1];
        END IF;
      END IF;
    END IF;
    by_counts := false;
  END IF;

  -- 5. offset, limit
  IF q ? 'offset' THEN
    IF q->>'offset' !~ '^[0-9]+$' THEN PERFORM content.bad_request('offset must be a positive integer'); END IF;
    off := least((q->>'offset')::numeric, 1e15)::bigint;
  END IF;
  IF q ? 'limit' THEN
    IF q->>'limit' !~ '^[0-9]+$' THEN PERFORM content.bad_request('limit must be a positive integer'); END IF;
    IF cfg.limit_max IS NOT NULL AND (q->>'limit')::numeric > cfg.limit_max THEN
      PERFORM content.bad_request(format('limit cannot be higher than %s', cfg.limit_max));
    END IF;
    lim := least((q->>'limit')::numeric, 1e15)::bigint;
  END IF;

  -- 6. fields
  spec := content.fields_resolve(resource, ptype, 'listing', content.fields_parse(q->>'fields'));

  where_sql := array_to_string(conds, ' AND ');
  -- The page of results as JSON, built in the statement that finds it (one plan, and the JSON only for
  -- the LIMITed rows: an inner query picks them, the outer one renders them in that order), then the
  -- exact total only when that page does not show it (a short page that starts at or before the end:
  -- total = offset + rows). Not count(*) OVER () there: the window would read and keep every match
  -- before LIMIT, where ORDER BY … LIMIT alone can stop early on an index in that order (path,
  -- (type, path), title). That holds for a search too: a common word (a third of the pages) is
  -- found in a few dozen rows of the path index, where a window count read and sorted every match
  -- (wide rows, spilled to disk: 1.8 s against 2 ms for the page at 100,000 pages); a rare word's
  -- page and count are both short GIN bitmap scans.
  IF lim > 0 THEN
    EXECUTE format('SELECT count(*), json_agg(%6$s ORDER BY a.n) FROM (SELECT s.*, row_number() OVER () AS n FROM (SELECT a.* FROM content.%1$I a WHERE %2$s ORDER BY %3$s LIMIT %4$s OFFSET %5$s) s) a',
      resource, where_sql, array_to_string(ord_sql, ', '), lim, off,
      content.item_sql(resource, ptype, spec, 'a', roots)) INTO total, items;
    total := coalesce(total, 0);
  END IF;
  IF lim > 0 AND total > 0 AND total < lim THEN
    total := off + total;
  ELSIF lim > 0 AND total = 0 AND off = 0 THEN
    total := 0;
  ELSIF count_word IS NOT NULL THEN
    SELECT coalesce(sum(c.n), 0) INTO total FROM content.search_counts c
     WHERE c.word = count_word AND c.path = ANY (count_roots) AND c.expire_at > now();
  ELSIF by_counts THEN
    -- the pages listed for good from the counters, those with an expiry date counted as they are now
    -- (one statement: one plan)
    EXECUTE format('SELECT (SELECT coalesce(sum(c.n), 0) FROM content.subtree_counts c WHERE c.path = ANY (%L::text[])%s) - %s'
                   ' + (SELECT count(*) FROM content.pages a WHERE %s AND a.expire_at IS NOT NULL)',
      count_roots, CASE WHEN count_types IS NULL THEN '' ELSE format(' AND c.type = ANY (%L::text[])', count_types) END,
      count_less, where_sql) INTO total;
  ELSE
    EXECUTE format('SELECT count(*) FROM content.%I a WHERE %s', resource, where_sql) INTO total;
  END IF;
  items := coalesce(items, '[]');
  RETURN json_build_object('meta', json_build_object('total_count', total), 'items', items);
END $$;

-- ── detail (§8.1) ───────────────────────────────────────────────────────────────────────────────
CREATE OR REPLACE FUNCTION content.detail(resource text, id text, query json, host text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  q jsonb := content.query_last(query);
  roots text[] := '{}';
  p content.pages;
  ptype text;
  found boolean;
  spec jsonb;
  result json;
  what text := CASE resource WHEN 'pages' THEN 'Page' WHEN 'images' THEN 'Image' ELSE 'Document' END;
BEGIN
  IF resource = 'pages' THEN
    roots := content.site_roots(CASE WHEN q ? 'site' THEN content.param_site(q->>'site') ELSE content.host_site(host) END);
    p := CASE WHEN id ~ '^[0-9]+$' THEN content.visible_page(id, roots) END;
    found := p.id IS NOT NULL;
    ptype := p.type;
  ELSE
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM content.%I a WHERE a.id = %s AND a.collection IN (SELECT id FROM content.collections WHERE NOT restricted))',
      resource, coalesce(CASE WHEN id ~ '^[0-9]+$' THEN content.to_int(id) END::text, 'NULL')) INTO found;
  END IF;
  IF NOT found THEN PERFORM content.not_found(format('No %s matches the given query.', what)); END IF;
  spec := content.fields_resolve(resource, ptype, 'detail', content.fields_parse(q->>'fields'));
  EXECUTE format('SELECT %s FROM content.%I a WHERE a.id = %s', content.item_sql(resource, ptype, spec, 'a', roots), resource, content.to_int(id))
    INTO result;
  RETURN result;
END $$;

-- ── find (§8.2, §8.3) ───────────────────────────────────────────────────────────────────────────
-- The page at an html_path of a site: the site root, or with a language-code first part the root's
-- translation in that locale, then the child with each slug; the final page must be visible.
CREATE OR REPLACE FUNCTION content.page_at_path(site integer, roots text[], html_path text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  parts text[] := ARRAY(SELECT x FROM unnest(string_to_array(html_path, '/')) x WHERE x <> '');
  cur integer := content.site_root_page(site);
  tr integer;
  part text;
BEGIN
  IF cur IS NULL THEN RETURN NULL; END IF;
  IF cardinality(parts) > 0 AND (SELECT i18n_enabled FROM content.settings LIMIT 1) THEN
    SELECT t.id INTO tr FROM content.pages r
      JOIN content.pages t ON t.translation_key = r.translation_key AND t.id <> r.id AND t.depth = 2 AND t.locale_id <> r.locale_id
      JOIN content.locales l ON l.id = t.locale_id
     WHERE r.id = cur AND l.language_code = parts[1]
     ORDER BY t.path LIMIT 1;
    IF tr IS NOT NULL THEN
      cur := tr;
      parts := parts[2:];
    END IF;
  END IF;
  FOREACH part IN ARRAY parts LOOP
    SELECT c.id INTO cur FROM content.pages c WHERE c.parent = cur AND c.slug = part ORDER BY c.path LIMIT 1;
    IF cur IS NULL THEN RETURN NULL; END IF;
  END LOOP;
  RETURN (content.visible_page(cur::text, roots)).id;
END $$;

CREATE OR REPLACE FUNCTION content.find(resource text, query json, host text) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
  q jsonb := content.query_last(query);
  site integer;
  roots text[];
  found integer;
  rest text;
BEGIN
  IF resource = 'pages' THEN
    site := CASE WHEN q ? 'site' THEN content.param_site(q->>'site') ELSE content.host_site(host) END;
    roots := content.site_roots(site);
    IF q ? 'html_path' THEN found := content.page_at_path(site, roots, q->>'html_path'); END IF;
    IF found IS NULL AND q->>'id' ~ '^[0-9]+$' THEN found := (content.visible_page(q->>'id', roots)).id; END IF;
  ELSIF q ? 'id' THEN
    EXECUTE format('SELECT a.id FROM content.%I a WHERE a.id = %s AND a.collection IN (SELECT id FROM content.collections WHERE NOT restricted)',
      resource, coalesce(CASE WHEN q->>'id' ~ '^[0-9]+$' THEN content.to_int(q->>'id') END::text, 'NULL')) INTO found;
  END IF;
  IF found IS NULL THEN PERFORM content.not_found('not found'); END IF;
  SELECT string_agg(content.form_encode(name) || '=' || content.form_encode(value), '&' ORDER BY n) INTO rest
    FROM content.query_pairs(query) WHERE name <> 'id' AND (name <> 'html_path' OR resource <> 'pages');   -- html_path is the pages' own
  PERFORM set_config('response.status', '302', true);
  PERFORM set_config('response.headers', json_build_array(json_build_object('Location',
    (SELECT api_base_url FROM content.settings LIMIT 1) || '/api/v2/' || resource || '/' || found || '/' || coalesce('?' || rest, '')))::text, true);
END $$;

-- ── derived configuration upkeep ───────────────────────────────────────────────────────────────
-- Recomputes content.url_cache, field_cache, tree_cache and site_cache after every statement that can change them: any
-- write to sites, locales, settings or page_types, and to pages an insert, delete, truncate or an update of the
-- columns the trees, the URLs or the visibility ranges read (the page's own upkeep — in_private,
-- url_path — does not fire it). Writers take the cache's lock first, so that concurrent writers
-- recompute one after the other, each from what the one before committed.
CREATE OR REPLACE FUNCTION content.cache_refresh_now() RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
BEGIN
  LOCK TABLE content.url_cache IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM content.url_cache;
  INSERT INTO content.url_cache (html_url_a) VALUES (content.html_url_sql_build('a'));
  DELETE FROM content.field_cache;
  INSERT INTO content.field_cache
  SELECT r, '', f.* FROM unnest(ARRAY['pages', 'images', 'documents']) r, content.field_defs_build(r, NULL) f
  UNION ALL
  SELECT 'pages', t.type, f.* FROM content.page_types t, content.field_defs_build('pages', t.type) f WHERE f.ord >= 300;
  DELETE FROM content.tree_cache;
  INSERT INTO content.tree_cache (site_id, path, depth, root_url, root_locale, is_default_site)
  SELECT t.site_id, t.path, t.depth, content.root_url(s.hostname, s.port), r.locale_id, s.is_default_site
    FROM content.site_trees t
    JOIN content.sites s ON s.id = t.site_id
    JOIN content.pages r ON r.id = s.root_page;
  DELETE FROM content.site_cache;
  INSERT INTO content.site_cache (site_id, roots, visible_a)
  SELECT x.id, x.roots, content.visible_sql_build('a', x.roots)
    FROM (SELECT s.id, content.site_roots_build(s.id) AS roots FROM content.sites s) x;
END $$;
CREATE OR REPLACE FUNCTION content.cache_refresh() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
BEGIN
  PERFORM content.cache_refresh_now();
  RETURN NULL;
END $$;
DO $do$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['sites', 'locales', 'settings', 'page_types', 'pages'] LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON content.%I', t || '_cache_refresh', t);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE%s ON content.%I FOR EACH STATEMENT EXECUTE FUNCTION content.cache_refresh()',
      t || '_cache_refresh', CASE WHEN t = 'pages' THEN ' OF id, path, depth, translation_key, locale_id' ELSE '' END, t);
  END LOOP;
END $do$;
-- computed now: whatever was loaded before these triggers existed
DO $$ BEGIN PERFORM content.cache_refresh_now(); END $$;

-- ── the endpoints (routes.json) ─────────────────────────────────────────────────────────────────
-- SECURITY DEFINER: web_anon reads the private tables only through these, with a pinned search_path
-- (pg_catalog first; every name of ours is schema-qualified, unaccent names its dictionary).
CREATE OR REPLACE FUNCTION content.pages_listing(query json, host text) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.listing('pages', query, host) $$;
CREATE OR REPLACE FUNCTION content.images_listing(query json) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.listing('images', query, NULL) $$;
CREATE OR REPLACE FUNCTION content.documents_listing(query json) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.listing('documents', query, NULL) $$;

CREATE OR REPLACE FUNCTION content.pages_detail(id text, query json, host text) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.detail('pages', id, query, host) $$;
CREATE OR REPLACE FUNCTION content.images_detail(id text, query json) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.detail('images', id, query, NULL) $$;
CREATE OR REPLACE FUNCTION content.documents_detail(id text, query json) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.detail('documents', id, query, NULL) $$;

CREATE OR REPLACE FUNCTION content.pages_find(query json, host text) RETURNS void
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.find('pages', query, host) $$;
CREATE OR REPLACE FUNCTION content.images_find(query json) RETURNS void
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.find('images', query, NULL) $$;
CREATE OR REPLACE FUNCTION content.documents_find(query json) RETURNS void
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, content AS $$ SELECT content.find('documents', query, NULL) $$;

COMMENT ON FUNCTION content.pages_listing(json, text) IS 'Pages visible in the request''s site: filters, tree filters, search, order, fields';
COMMENT ON FUNCTION content.images_listing(json) IS 'Images in unrestricted collections';
COMMENT ON FUNCTION content.documents_listing(json) IS 'Documents in unrestricted collections';
COMMENT ON FUNCTION content.pages_detail(text, json, text) IS 'One visible page, every field of its type by default';
COMMENT ON FUNCTION content.images_detail(text, json) IS 'One image';
COMMENT ON FUNCTION content.documents_detail(text, json) IS 'One document';
COMMENT ON FUNCTION content.pages_find(json, text) IS '302 to the page at html_path (or with id), else 404';
COMMENT ON FUNCTION content.images_find(json) IS '302 to the image with id, else 404';
COMMENT ON FUNCTION content.documents_find(json) IS '302 to the document with id, else 404';

-- Only the endpoints and the error handler are for web_anon; the tables stay private.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA content FROM PUBLIC;
GRANT USAGE ON SCHEMA content TO web_anon;
GRANT EXECUTE ON FUNCTION
  content.pages_listing(json, text), content.images_listing(json), content.documents_listing(json),
  content.pages_detail(text, json, text), content.images_detail(text, json), content.documents_detail(text, json),
  content.pages_find(json, text), content.images_find(json), content.documents_find(json),
  content.render_error(jsonb)
TO web_anon;

-- The endpoints run as content_owner (10-schema.sql), not as the superuser who loads the example: it
-- reads the tables and calls the helpers and unaccent, and may write nothing.
GRANT USAGE ON SCHEMA content TO content_owner;
GRANT SELECT ON ALL TABLES IN SCHEMA content TO content_owner;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA content TO content_owner;
DO $$
DECLARE f regprocedure;
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO content_owner',
    (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'));
  -- every SECURITY DEFINER function of the schema, so that one added later cannot be missed here
  FOR f IN SELECT oid::regprocedure FROM pg_proc WHERE pronamespace = 'content'::regnamespace AND prosecdef LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO content_owner', f);
  END LOOP;
END $$;
