-- CMS API functions: representations (JSON, and XML derived from it by the spec's §2.3 mapping), errors,
-- sessions (JWT cookie + CSRF), and one function per route of routes.json. Every function a request can
-- reach is SECURITY DEFINER with a fixed search_path (cms, pg_temp) and owned by cms_owner (90-grants.sql),
-- so web_anon needs no grant on the tables. Errors are raised as PT<status> with the description as the
-- message, and cms.error_message renders them; a failed log-in is answered instead (cms.error_answer).

-- ---- representations ---------------------------------------------------------------------------------

CREATE FUNCTION cms.xml_escape(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT replace(replace(replace(replace(t, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;')
$$;

CREATE FUNCTION cms.xml_unescape(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT replace(replace(replace(replace(replace(t, '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&apos;', ''''), '&amp;', '&')
$$;

-- The element name of one item of a JSON list member (§2.3).
CREATE FUNCTION cms.xml_item_name(list text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE list WHEN 'ActivityLogGroups' THEN 'ActivityLogGroup' WHEN 'ActivityLogEntries' THEN 'ActivityLog'
                   WHEN 'items' THEN 'Bookmark' WHEN 'events' THEN 'Event' ELSE list END
$$;

-- A JSON value as the XML element `name` (§2.3): `_x` members become attributes (`__href` → `_href`,
-- media types get the +xml suffix), scalars child elements, lists repeated elements, `{}` an empty element.
CREATE FUNCTION cms.xml_of(name text, j json) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  attrs text := '';
  kids  text := '';
  k text;
  v json;
  item json;
  s text;
BEGIN
  CASE json_typeof(j)
    WHEN 'object' THEN
      FOR k, v IN SELECT key, value FROM json_each(j) LOOP
        IF left(k, 1) = '_' THEN
          s := v #>> '{}';
          IF k = '_media-type' THEN s := regexp_replace(s, '\+json$', '+xml'); END IF;
          attrs := attrs || ' ' || CASE WHEN k = '__href' THEN '_href' ELSE substr(k, 2) END || '="' || cms.xml_escape(coalesce(s, '')) || '"';
        ELSIF json_typeof(v) = 'array' THEN
          FOR item IN SELECT value FROM json_array_elements(v) LOOP
            kids := kids || cms.xml_of(cms.xml_item_name(k), item);
          END LOOP;
        ELSIF json_typeof(v) IN ('string', 'number', 'boolean') THEN
          -- A scalar member inline (the common case; no recursive call).
          s := CASE json_typeof(v) WHEN 'string' THEN cms.xml_escape(v #>> '{}') ELSE v::text END;
          kids := kids || CASE WHEN s = '' THEN '<' || k || '/>' ELSE '<' || k || '>' || s || '</' || k || '>' END;
        ELSE
          kids := kids || cms.xml_of(k, v);
        END IF;
      END LOOP;
    WHEN 'string' THEN kids := cms.xml_escape(j #>> '{}');
    WHEN 'null' THEN kids := '';
    ELSE kids := j::text;
  END CASE;
  IF kids = '' THEN RETURN '<' || name || attrs || '/>'; END IF;
  RETURN '<' || name || attrs || '>' || kids || '</' || name || '>';
END $$;

CREATE FUNCTION cms.is_xml(media text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(media IN ('application/xml', 'text/xml'), false)
$$;

-- The response body `{"<TypeName>": body}` or `<TypeName …>`, with its Content-Type and `extra` headers.
CREATE FUNCTION cms.respond(type_name text, body json, media text, extra jsonb DEFAULT '[]') RETURNS cms."*/*"
LANGUAGE plpgsql AS $$
DECLARE xml boolean := cms.is_xml(media);
BEGIN
  PERFORM set_config('response.headers', (extra || jsonb_build_array(jsonb_build_object('Content-Type',
    'application/vnd.cms.api.' || type_name || CASE WHEN xml THEN '+xml' ELSE '+json' END)))::text, true);
  IF xml THEN
    RETURN convert_to('<?xml version="1.0" encoding="UTF-8"?>' || E'\n' || cms.xml_of(type_name, body), 'UTF8');
  END IF;
  RETURN convert_to(json_build_object(type_name, body)::text, 'UTF8');
END $$;

-- A response without a body (and so without a Content-Type), whatever the client accepts.
CREATE FUNCTION cms.no_body(status integer) RETURNS cms."*/*" LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('response.status', status::text, true);
  RETURN NULL;
END $$;

CREATE FUNCTION cms.media_type(type_name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'application/vnd.cms.api.' || type_name || '+json'
$$;

CREATE FUNCTION cms.link(type_name text, href text) RETURNS json LANGUAGE sql IMMUTABLE AS $$
  SELECT json_build_object('_media-type', cms.media_type(type_name), '_href', href)
$$;

-- plpgsql, so that its plan is cached per connection (a SQL function with FROM is planned per call).
CREATE FUNCTION cms.base() RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT base_path FROM cms.settings);
END $$;

-- ---- errors ------------------------------------------------------------------------------------------

-- Raise an error the API answers with `status` and `description` (PostgREST's PT<status>).
CREATE FUNCTION cms.fail(status integer, description text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'PT' || status::text, MESSAGE = description;
END $$;

CREATE FUNCTION cms.reason(status integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE status WHEN 400 THEN 'Bad Request' WHEN 401 THEN 'Unauthorized' WHEN 403 THEN 'Forbidden'
    WHEN 404 THEN 'Not Found' WHEN 405 THEN 'Method Not Allowed' WHEN 406 THEN 'Not Acceptable'
    WHEN 409 THEN 'Conflict' WHEN 413 THEN 'Payload Too Large' WHEN 415 THEN 'Unsupported Media Type'
    WHEN 429 THEN 'Too Many Requests' WHEN 500 THEN 'Internal Server Error' WHEN 503 THEN 'Service Unavailable' WHEN 504 THEN 'Gateway Timeout' END
$$;

-- The ErrorMessage object of an error (§2.4). `reason` is used for a status cms.reason does not name.
CREATE FUNCTION cms.error_json(status integer, description text, reason text DEFAULT NULL) RETURNS json LANGUAGE sql IMMUTABLE AS $$
  SELECT json_build_object(
    '_media-type', cms.media_type('ErrorMessage'),
    'errorCode', status,
    'errorMessage', coalesce(cms.reason(status), reason),
    'errorDescription', CASE WHEN status >= 500 THEN 'The server could not answer this request; it has been logged.'
                             ELSE coalesce(description, reason) END)
$$;

-- The group's error handler: every error of /api/cms/v2 (the engine's 404/405/406/413/415, the
-- pre-request's 401, the functions' raises) as an ErrorMessage in the negotiated format (§2.4).
CREATE FUNCTION cms.error_message(e jsonb) RETURNS cms."*/*"
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = cms, pg_temp AS $$
  SELECT cms.respond('ErrorMessage', cms.error_json((e->>'status')::integer, e->>'message', e->>'reason'), e->>'media')
$$;

-- An error answered instead of raised: the same ErrorMessage, but the request's transaction commits.
-- For failures whose writes must last (a failed login's count): a raise rolls the whole request back.
CREATE FUNCTION cms.error_answer(status integer, description text, media text, extra jsonb DEFAULT '[]') RETURNS cms."*/*"
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('response.status', status::text, true);
  RETURN cms.respond('ErrorMessage', cms.error_json(status, description), media, extra);
END $$;

-- ---- query parameters ------------------------------------------------------------------------------

-- A paging parameter: absent → dflt; digits within [lo, hi] → its value; anything else → 400.
CREATE FUNCTION cms.int_param(q jsonb, name text, dflt bigint, lo bigint, hi bigint) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v jsonb := q -> name; s text; n bigint;
BEGIN
  IF v IS NULL THEN RETURN dflt; END IF;
  s := CASE WHEN jsonb_typeof(v) = 'string' THEN v #>> '{}' END;
  IF s IS NULL OR s !~ '^[0-9]{1,12}$' THEN
    PERFORM cms.fail(400, format('Query parameter %s must be given once, as decimal digits%s.', name,
      CASE WHEN hi IS NULL THEN '' ELSE format(' from %s to %s', lo, hi) END));
  END IF;
  n := s::bigint;
  IF n < lo OR (hi IS NOT NULL AND n > hi) THEN
    PERFORM cms.fail(400, format('Query parameter %s must be %s.', name,
      CASE WHEN hi IS NULL THEN format('at least %s', lo) ELSE format('from %s to %s', lo, hi) END));
  END IF;
  RETURN n;
END $$;

-- ---- sessions: JWT (HS256) in an HttpOnly cookie ---------------------------------------------------

CREATE FUNCTION cms.b64url(b bytea) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT rtrim(translate(replace(encode(b, 'base64'), E'\n', ''), '+/', '-_'), '=')
$$;

-- NULL when `t` is not base64url.
CREATE FUNCTION cms.b64url_decode(t text) RETURNS bytea LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
  IF t !~ '^[A-Za-z0-9_-]*$' OR length(t) % 4 = 1 THEN RETURN NULL; END IF;
  RETURN decode(translate(t, '-_', '+/') || repeat('=', (4 - length(t) % 4) % 4), 'base64');
EXCEPTION WHEN others THEN RETURN NULL;
END $$;

CREATE FUNCTION cms.jwt_secret() RETURNS bytea LANGUAGE sql STABLE AS $$
  SELECT coalesce(convert_to(nullif(current_setting('app.settings.cms_jwt_secret', true), ''), 'UTF8'),
                  (SELECT jwt_secret FROM cms.settings))
$$;

CREATE FUNCTION cms.hmac_b64(msg text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT cms.b64url(cms.hmac(convert_to(msg, 'UTF8'), cms.jwt_secret(), 'sha256'))
$$;

CREATE FUNCTION cms.jwt_sign(claims jsonb) RETURNS text LANGUAGE sql STABLE AS $$
  WITH p AS (SELECT cms.b64url(convert_to('{"alg":"HS256","typ":"JWT"}', 'UTF8')) || '.' || cms.b64url(convert_to(claims::text, 'UTF8')) AS signed)
  SELECT signed || '.' || cms.hmac_b64(signed) FROM p
$$;

-- The claims of a well-signed, unexpired HS256 token; NULL for anything else (never an error).
CREATE FUNCTION cms.jwt_verify(token text) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE parts text[] := string_to_array(token, '.'); header jsonb; claims jsonb;
BEGIN
  IF array_length(parts, 1) IS DISTINCT FROM 3 THEN RETURN NULL; END IF;
  IF cms.hmac_b64(parts[1] || '.' || parts[2]) IS DISTINCT FROM parts[3] THEN RETURN NULL; END IF;
  header := convert_from(cms.b64url_decode(parts[1]), 'UTF8')::jsonb;
  IF header->>'alg' IS DISTINCT FROM 'HS256' THEN RETURN NULL; END IF;
  claims := convert_from(cms.b64url_decode(parts[2]), 'UTF8')::jsonb;
  IF jsonb_typeof(claims->'exp') IS DISTINCT FROM 'number' OR (claims->>'exp')::numeric <= extract(epoch FROM now()) THEN RETURN NULL; END IF;
  RETURN claims;
EXCEPTION WHEN others THEN RETURN NULL;
END $$;

-- The live session (not revoked, not expired, user enabled) named by claims `sub` and `sid`.
CREATE FUNCTION cms.live_session(claims jsonb) RETURNS cms.sessions LANGUAGE sql STABLE AS $$
  SELECT s.* FROM cms.sessions s JOIN cms.users u ON u.id = s.user_id
  WHERE s.identifier = claims->>'sid' AND s.user_id::text = claims->>'sub'
    AND s.revoked_at IS NULL AND s.expires_at > now() AND u.enabled
$$;

-- The group's pre-request (§4.2): publish the session's user, check CSRF on unsafe methods.
CREATE FUNCTION cms.pre_request() RETURNS void LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE
  method  text := upper(coalesce(current_setting('request.method', true), ''));
  path    text := coalesce(current_setting('request.path', true), '');
  cookies jsonb := nullif(current_setting('request.cookies', true), '')::jsonb;
  jwt     jsonb := nullif(current_setting('request.jwt.claims', true), '')::jsonb;
  token   text;
  claims  jsonb;
  s       cms.sessions;
  by_cookie boolean := false;
BEGIN
  PERFORM set_config('cms.user_id', '', true);
  PERFORM set_config('cms.session_id', '', true);
  token := cookies ->> (SELECT session_cookie FROM cms.settings);
  IF token IS NOT NULL THEN
    claims := cms.jwt_verify(token);
    IF claims IS NOT NULL THEN
      s := cms.live_session(claims);
      by_cookie := s.identifier IS NOT NULL;
    END IF;
  END IF;
  -- §4.5: a Bearer token the engine verified counts only when it names a live session (no CSRF check).
  IF s.identifier IS NULL AND jwt ? 'sid' AND jwt ? 'sub' THEN
    s := cms.live_session(jwt);
  END IF;
  IF s.identifier IS NULL THEN RETURN; END IF;
  PERFORM set_config('cms.user_id', s.user_id::text, true);
  PERFORM set_config('cms.session_id', s.identifier, true);
  IF by_cookie AND method IN ('POST', 'PUT', 'PATCH', 'DELETE')
     AND NOT (method = 'POST' AND rtrim(path, '/') = cms.base() || '/user/sessions') THEN
    IF (current_setting('request.headers', true)::jsonb ->> 'x-csrf-token') IS DISTINCT FROM s.csrf_token THEN
      RAISE SQLSTATE 'PT401' USING MESSAGE = 'Missing or invalid CSRF token';
    END IF;
  END IF;
END $$;

-- ---- the current user and policies (§5) ------------------------------------------------------------

CREATE FUNCTION cms.session_user_id() RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('cms.user_id', true), '')::integer
$$;

-- The session's user, or 401.
CREATE FUNCTION cms.require_user() RETURNS cms.users LANGUAGE plpgsql STABLE AS $$
DECLARE u cms.users;
BEGIN
  SELECT * INTO u FROM cms.users WHERE id = cms.session_user_id();
  IF NOT FOUND THEN
    PERFORM cms.fail(401, 'This request needs a session: log in with POST ' || cms.base() || '/user/sessions.');
  END IF;
  RETURN u;
END $$;

-- The user's policy module/function, or NULL.
CREATE FUNCTION cms.policy(u cms.users, module text, fn text) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT p FROM jsonb_array_elements(u.policies) p WHERE p->>'module' = module AND p->>'function' = fn LIMIT 1
$$;

-- The user with policy module/function, or 401.
CREATE FUNCTION cms.require_policy(module text, fn text, what text) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE u cms.users := cms.require_user(); p jsonb := cms.policy(u, module, fn);
BEGIN
  IF p IS NULL THEN PERFORM cms.fail(401, format('User %s may not %s (needs the %s/%s policy).', u.login, what, module, fn)); END IF;
  RETURN p || jsonb_build_object('user_id', u.id, 'login', u.login);
END $$;

CREATE FUNCTION cms.can_read(content_policy jsonb, path_string text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT content_policy IS NOT NULL AND (
    jsonb_typeof(content_policy->'subtrees') IS DISTINCT FROM 'array'
    OR EXISTS (SELECT FROM jsonb_array_elements_text(content_policy->'subtrees') t WHERE starts_with(path_string, t)))
$$;

-- ---- sessions: routes (§4) -------------------------------------------------------------------------

CREATE FUNCTION cms.session_json(s cms.sessions) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    '_media-type', cms.media_type('Session'),
    '_href', cms.base() || '/user/sessions/' || s.identifier,
    'name', (SELECT session_cookie FROM cms.settings),
    'identifier', s.identifier,
    'csrfToken', s.csrf_token,
    'User', cms.link('User', cms.base() || '/user/users/' || s.user_id))
$$;

-- The text of the single element at `path` of a document (NULL when absent, 400 when repeated).
CREATE FUNCTION cms.xml_field(doc xml, path text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE found xml[] := xpath(path, doc);
BEGIN
  IF cardinality(found) = 0 THEN RETURN NULL; END IF;
  IF cardinality(found) > 1 THEN PERFORM cms.fail(400, format('%s must appear once.', path)); END IF;
  RETURN cms.xml_unescape((xpath('string(/*)', found[1]))[1]::text);
END $$;

-- A request body as an XML document, or 400.
CREATE FUNCTION cms.parse_xml(body text) RETURNS xml LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN xmlparse(DOCUMENT body);
EXCEPTION WHEN others THEN
  PERFORM cms.fail(400, 'The request body is not well-formed XML.');
  RETURN NULL;
END $$;

-- A request body as JSON, or 400.
CREATE FUNCTION cms.parse_json(body text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN body::jsonb;
EXCEPTION WHEN others THEN
  PERFORM cms.fail(400, 'The request body is not valid JSON.');
  RETURN NULL;
END $$;

-- `json`, `xml`, or 415 for a body of another type. `type_name` is the input type (SessionInput, …).
CREATE FUNCTION cms.body_format(content_type text, type_name text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE ct text := lower(trim(split_part(coalesce(content_type, ''), ';', 1)));
BEGIN
  IF ct IN ('application/json', lower('application/vnd.cms.api.' || type_name || '+json')) THEN RETURN 'json'; END IF;
  IF ct IN ('application/xml', 'text/xml', lower('application/vnd.cms.api.' || type_name || '+xml')) THEN RETURN 'xml'; END IF;
  PERFORM cms.fail(415, format('A %s body must be application/vnd.cms.api.%s+json or +xml (or application/json, application/xml), not %s.',
    type_name, type_name, coalesce(nullif(ct, ''), 'without a Content-Type')));
  RETURN NULL;
END $$;

-- Count a failed login for the name with SHA-256 `key`: the first failure opens a window of
-- login_window_seconds; the login_max_failures-th within it locks the name for login_lockout_seconds.
-- A lock is never extended (attempts while locked are refused before they are counted), and a name's
-- count starts afresh once its window or lock is over: a stranger can hold a name locked only by
-- failing again after each lock, never for good. A successful login deletes the row. Expired rows of
-- other names go at the same time, so the table holds only the current window's names.
-- Called from a request that then answers 401 (cms.error_answer): the transaction commits, the count stays.
CREATE FUNCTION cms.count_failed_login(key bytea, cfg cms.settings) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  window_len interval := make_interval(secs => cfg.login_window_seconds);
  n integer;
BEGIN
  DELETE FROM cms.login_throttle
  WHERE window_start < now() - window_len AND coalesce(locked_until, '-infinity') <= now() AND login_key <> key;
  INSERT INTO cms.login_throttle AS t (login_key, failures, window_start) VALUES (key, 1, now())
  ON CONFLICT (login_key) DO UPDATE SET
    failures     = CASE WHEN t.window_start < now() - window_len OR t.locked_until <= now() THEN 1 ELSE t.failures + 1 END,
    window_start = CASE WHEN t.window_start < now() - window_len OR t.locked_until <= now() THEN now() ELSE t.window_start END,
    locked_until = NULL
  RETURNING failures INTO n;
  IF n >= cfg.login_max_failures THEN
    UPDATE cms.login_throttle SET locked_until = now() + make_interval(secs => cfg.login_lockout_seconds) WHERE login_key = key;
  END IF;
END $$;

-- POST /user/sessions: log in (§4.1). A failed login is answered (cms.error_answer), not raised: a raise
-- would roll back the request's transaction, and with it the failure just counted. PostgreSQL has no
-- autonomous transactions (dblink would need a second connection and its credentials), so the 401 and
-- 429 are set through response.status and the transaction commits the count. Nothing else is written
-- on those paths: the session is inserted only after the password matched.
CREATE FUNCTION cms.session_create(p_body text, p_content_type text, p_media text) RETURNS cms."*/*"
LANGUAGE plpgsql SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE
  cfg cms.settings;
  j jsonb;
  doc xml;
  v_login text;
  v_password text;
  u cms.users;
  s cms.sessions;
  throttle cms.login_throttle;
  key bytea;
  hash text;
  iat bigint := floor(extract(epoch FROM now()));
BEGIN
  SELECT * INTO cfg FROM cms.settings;
  IF coalesce(trim(p_body), '') = '' THEN
    PERFORM cms.fail(400, 'Log in with a SessionInput body holding login and password.');
  END IF;
  IF cms.body_format(p_content_type, 'SessionInput') = 'json' THEN
    j := cms.parse_json(p_body);
    IF jsonb_typeof(j) <> 'object' THEN
      PERFORM cms.fail(400, 'The body must be an object with the single key SessionInput.');
    END IF;
    IF (SELECT array_agg(k) FROM jsonb_object_keys(j) k) IS DISTINCT FROM ARRAY['SessionInput'] OR jsonb_typeof(j->'SessionInput') <> 'object' THEN
      PERFORM cms.fail(400, 'The body must be an object with the single key SessionInput.');
    END IF;
    IF jsonb_typeof(j->'SessionInput'->'login') IS DISTINCT FROM 'string' OR jsonb_typeof(j->'SessionInput'->'password') IS DISTINCT FROM 'string' THEN
      PERFORM cms.fail(400, 'SessionInput needs login and password, both strings.');
    END IF;
    v_login := j->'SessionInput'->>'login';
    v_password := j->'SessionInput'->>'password';
  ELSE
    doc := cms.parse_xml(p_body);
    IF (xpath('name(/*)', doc))[1]::text <> 'SessionInput' THEN
      PERFORM cms.fail(400, 'The root element must be SessionInput.');
    END IF;
    v_login := cms.xml_field(doc, '/SessionInput/login');
    v_password := cms.xml_field(doc, '/SessionInput/password');
    IF v_login IS NULL OR v_password IS NULL THEN
      PERFORM cms.fail(400, 'SessionInput needs login and password.');
    END IF;
  END IF;
  key := sha256(convert_to(v_login, 'UTF8'));
  -- Attempts on one login name wait for each other, so a burst of them cannot all pass the
  -- throttle before the first failure is counted.
  PERFORM pg_advisory_xact_lock(hashtext('cms.login_throttle'), hashtext(v_login));
  SELECT * INTO throttle FROM cms.login_throttle WHERE login_key = key;
  IF throttle.locked_until > now() THEN
    RETURN cms.error_answer(429, 'Too many failed logins for this login name: try again later.', p_media,
      jsonb_build_array(jsonb_build_object('Retry-After', ceil(extract(epoch FROM throttle.locked_until - now()))::bigint::text)));
  END IF;
  -- One bcrypt comparison whatever the login: against the user's hash, or against a dummy hash of the
  -- same cost for an unknown login, so that the time taken does not tell which logins exist (§4.1).
  SELECT * INTO u FROM cms.users WHERE login = v_login;
  hash := coalesce(u.password_hash, cfg.dummy_password_hash);
  IF cms.crypt(v_password, hash) IS DISTINCT FROM hash OR u.id IS NULL OR NOT u.enabled THEN
    PERFORM cms.count_failed_login(key, cfg);
    RETURN cms.error_answer(401, 'Invalid login or password.', p_media);
  END IF;
  DELETE FROM cms.login_throttle WHERE login_key = key;
  INSERT INTO cms.sessions (identifier, user_id, csrf_token, expires_at)
  VALUES (cms.b64url(cms.gen_random_bytes(12)), u.id, cms.b64url(cms.gen_random_bytes(32)), to_timestamp(iat + cfg.session_ttl_seconds))
  RETURNING * INTO s;
  PERFORM set_config('response.status', '201', true);
  RETURN cms.respond('Session', cms.session_json(s), p_media, jsonb_build_array(
    jsonb_build_object('Location', cfg.base_path || '/user/sessions/' || s.identifier),
    jsonb_build_object('Set-Cookie', format('%s=%s; Path=/; HttpOnly; SameSite=Lax; Max-Age=%s', cfg.session_cookie,
      cms.jwt_sign(jsonb_build_object('sub', u.id::text, 'sid', s.identifier, 'csrf', s.csrf_token, 'iat', iat,
                                      'exp', iat + cfg.session_ttl_seconds)), cfg.session_ttl_seconds))));
END $$;

-- GET /user/sessions/current (§4.3).
CREATE FUNCTION cms.session_current(p_media text) RETURNS cms."*/*"
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE s cms.sessions;
BEGIN
  SELECT * INTO s FROM cms.sessions WHERE identifier = nullif(current_setting('cms.session_id', true), '');
  IF NOT FOUND THEN PERFORM cms.fail(404, 'There is no current session.'); END IF;
  RETURN cms.respond('Session', cms.session_json(s), p_media);
END $$;

-- DELETE /user/sessions/{identifier}: log out (§4.4).
CREATE FUNCTION cms.session_delete(p_identifier text) RETURNS cms."*/*"
LANGUAGE plpgsql SECURITY DEFINER SET search_path = cms, pg_temp AS $$
BEGIN
  UPDATE cms.sessions SET revoked_at = now()
  WHERE identifier = p_identifier AND identifier = nullif(current_setting('cms.session_id', true), '') AND revoked_at IS NULL;
  IF NOT FOUND THEN PERFORM cms.fail(404, format('Session %s does not exist.', p_identifier)); END IF;
  PERFORM set_config('response.headers', jsonb_build_array(jsonb_build_object('Set-Cookie',
    (SELECT session_cookie FROM cms.settings) || '=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0'))::text, true);
  RETURN cms.no_body(204);
END $$;

-- ---- bookmarks (§6) --------------------------------------------------------------------------------

CREATE FUNCTION cms.to_iso(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"')
$$;

CREATE FUNCTION cms.location_json(l cms.locations) RETURNS json LANGUAGE plpgsql STABLE AS $$
DECLARE
  base text := cms.base();
  href text := base || '/content/locations' || rtrim(l.path_string, '/');
  obj text := base || '/content/objects/' || l.content;
  c cms.contents;
  parent_path text;
  children bigint;
BEGIN
  SELECT * INTO c FROM cms.contents WHERE id = l.content;
  SELECT path_string INTO parent_path FROM cms.locations WHERE id = l.parent;
  SELECT count(*) INTO children FROM cms.locations k WHERE k.parent = l.id;
  RETURN json_build_object(
    '_media-type', cms.media_type('Location'), '_href', href,
    'id', l.id, 'priority', l.priority, 'hidden', l.hidden, 'invisible', l.invisible, 'explicitlyHidden', l.explicitly_hidden,
    'ParentLocation', cms.link('Location', base || '/content/locations' || rtrim(coalesce(parent_path, l.path_string), '/')),
    'pathString', l.path_string, 'depth', l.depth,
    'childCount', children,
    'remoteId', l.remote_id,
    'Children', cms.link('LocationList', href || '/children'),
    'Content', cms.link('Content', obj),
    'sortField', l.sort_field, 'sortOrder', l.sort_order,
    'UrlAliases', cms.link('UrlAliasRefList', href || '/urlaliases'),
    'ContentInfo', json_build_object('_media-type', cms.media_type('ContentInfo'), '_href', obj,
      'Content', json_build_object('_media-type', cms.media_type('ContentInfo'), '_href', obj,
        '_remoteId', c.remote_id, '_id', c.id,
        'ContentType', cms.link('ContentType', base || '/content/types/' || c.content_type),
        'Name', c.name, 'TranslatedName', c.name,
        'Versions', cms.link('VersionList', obj || '/versions'),
        'CurrentVersion', cms.link('Version', obj || '/currentversion'),
        'Section', cms.link('Section', base || '/content/sections/' || c.section),
        'Locations', cms.link('LocationList', obj || '/locations'),
        'Owner', cms.link('User', base || '/user/users/' || c.owner),
        'lastModificationDate', cms.to_iso(c.modified), 'publishedDate', cms.to_iso(c.published),
        'mainLanguageCode', c.main_language, 'currentVersionNo', c.current_version,
        'alwaysAvailable', c.always_available, 'isHidden', c.is_hidden, 'status', c.status,
        'ObjectStates', cms.link('ContentObjectStates', obj || '/objectstates'))));
END $$;

-- GET /bookmark (§6.1).
CREATE FUNCTION cms.bookmark_list(p_query jsonb, p_media text) RETURNS cms."*/*"
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE
  cfg cms.settings;
  pol jsonb := cms.require_policy('content', 'read', 'list bookmarks');
  uid integer := (pol->>'user_id')::integer;
  v_offset bigint;
  v_limit bigint;
  body json;
BEGIN
  SELECT * INTO cfg FROM cms.settings;
  v_offset := cms.int_param(p_query, 'offset', 0, 0, NULL);
  v_limit := cms.int_param(p_query, 'limit', cfg.default_limit, 1, cfg.max_limit);
  SELECT json_build_object('_media-type', cms.media_type('BookmarkList'),
    'count', (SELECT count(*) FROM cms.bookmarks WHERE user_id = uid),
    'items', coalesce(json_agg(json_build_object('_media-type', cms.media_type('Bookmark'),
       '__href', cfg.base_path || '/bookmark/' || l.id, 'Location', cms.location_json(l)) ORDER BY b.id DESC), '[]'))
  INTO body
  FROM (SELECT * FROM cms.bookmarks WHERE user_id = uid ORDER BY id DESC OFFSET v_offset LIMIT v_limit) b
  JOIN cms.locations l ON l.id = b.location_id;
  RETURN cms.respond('BookmarkList', body, p_media);
END $$;

-- The location of /bookmark/{locationId}, in the spec's order: 401 without a session, 404 when it does
-- not exist, 401 when the user may not read it (§5, §6.2).
CREATE FUNCTION cms.bookmark_location(p_location_id text) RETURNS cms.locations LANGUAGE plpgsql STABLE AS $$
DECLARE u cms.users := cms.require_user(); l cms.locations;
BEGIN
  IF p_location_id ~ '^[0-9]{1,9}$' THEN
    SELECT * INTO l FROM cms.locations WHERE id = p_location_id::integer;
  END IF;
  IF l.id IS NULL THEN PERFORM cms.fail(404, format('Location %s does not exist.', p_location_id)); END IF;
  IF NOT cms.can_read(cms.policy(u, 'content', 'read'), l.path_string) THEN
    PERFORM cms.fail(401, format('User %s may not read location %s.', u.login, l.id));
  END IF;
  RETURN l;
END $$;

-- GET/HEAD /bookmark/{locationId}: 200 without a body, or 404.
CREATE FUNCTION cms.bookmark_check(p_location_id text) RETURNS cms."*/*"
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE l cms.locations := cms.bookmark_location(p_location_id);
BEGIN
  IF NOT EXISTS (SELECT FROM cms.bookmarks WHERE user_id = cms.session_user_id() AND location_id = l.id) THEN
    PERFORM cms.fail(404, format('Location %s is not bookmarked.', l.id));
  END IF;
  RETURN cms.no_body(200);
END $$;

-- POST /bookmark/{locationId}: 201 + Location, or 409. The unique (user_id, location_id) constraint
-- settles simultaneous requests: the losers' ON CONFLICT DO NOTHING inserts nothing.
CREATE FUNCTION cms.bookmark_create(p_location_id text) RETURNS cms."*/*"
LANGUAGE plpgsql SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE l cms.locations := cms.bookmark_location(p_location_id); new_id integer;
BEGIN
  INSERT INTO cms.bookmarks (user_id, location_id) VALUES (cms.session_user_id(), l.id)
  ON CONFLICT (user_id, location_id) DO NOTHING RETURNING id INTO new_id;
  IF new_id IS NULL THEN PERFORM cms.fail(409, 'Location is already bookmarked.'); END IF;
  PERFORM set_config('response.headers', jsonb_build_array(jsonb_build_object('Location', cms.base() || '/bookmark/' || l.id))::text, true);
  RETURN cms.no_body(201);
END $$;

-- DELETE /bookmark/{locationId}: 204, or 404.
CREATE FUNCTION cms.bookmark_delete(p_location_id text) RETURNS cms."*/*"
LANGUAGE plpgsql SECURITY DEFINER SET search_path = cms, pg_temp AS $$
DECLARE l cms.locations := cms.bookmark_location(p_location_id);
BEGIN
  DELETE FROM cms.bookmarks WHERE user_id = cms.session_user_id() AND location_id = l.id;
  IF NOT FOUND THEN PERFORM cms.fail(404, format('Location %s is not bookmarked.', l.id)); END IF;
  RETURN cms.no_body(204);
END $$;
