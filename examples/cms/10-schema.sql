-- CMS API (/api/cms/v2): schema `cms`. Tables are private to their owner; requests run as web_anon and
-- reach the data only through the SECURITY DEFINER functions of 20-functions.sql (mounted by routes.json),
-- which run as cms_owner (90-grants.sql). Load the files in name order as a superuser (README.md).

-- Roles are cluster-wide: two loads at the same moment (tests) may both find none; the second CREATE
-- then fails with a unique violation on pg_authid, which is as good as "exists".
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'web_anon') THEN CREATE ROLE web_anon NOLOGIN; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
-- Owner of the SECURITY DEFINER functions: no login, no superuser, only the grants of 90-grants.sql,
-- so a mistake in one of those functions is never a superuser's.
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cms_owner') THEN CREATE ROLE cms_owner NOLOGIN; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;

-- crypt()/gen_salt() for passwords, hmac() for the session JWT, gen_random_bytes() for tokens. In a
-- schema of its own that no API exposes (as Supabase does): in `public`, the embedded default would
-- serve gen_salt, armor, crypt, … as /rpc/ functions to anyone.
CREATE SCHEMA IF NOT EXISTS extensions;
CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA extensions;

CREATE SCHEMA cms;
GRANT USAGE ON SCHEMA cms TO web_anon;

-- pgcrypto may already live elsewhere (public, …) in a database of your own: cms.<name> wrappers call
-- it where it is, so the rest of the example does not depend on the search_path it is loaded or run with.
DO $$
DECLARE s text := (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pgcrypto');
BEGIN
  EXECUTE format('CREATE FUNCTION cms.gen_random_bytes(integer) RETURNS bytea LANGUAGE sql VOLATILE STRICT AS $f$ SELECT %s.gen_random_bytes($1) $f$', s);
  EXECUTE format('CREATE FUNCTION cms.gen_salt(text, integer) RETURNS text LANGUAGE sql VOLATILE STRICT AS $f$ SELECT %s.gen_salt($1, $2) $f$', s);
  EXECUTE format('CREATE FUNCTION cms.crypt(text, text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $f$ SELECT %s.crypt($1, $2) $f$', s);
  EXECUTE format('CREATE FUNCTION cms.hmac(bytea, bytea, text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $f$ SELECT %s.hmac($1, $2, $3) $f$', s);
END $$;

-- Every password hash the example makes: bcrypt at cost 10, 16 times the work of gen_salt('bf')'s default 6.
CREATE FUNCTION cms.hash_password(password text) RETURNS text LANGUAGE sql VOLATILE STRICT AS $$
  SELECT cms.crypt(password, cms.gen_salt('bf', 10))
$$;

-- One row. The JWT secret is generated here, at load time (the embedded default has no place for
-- app.settings.cms_jwt_secret); when that setting is present it wins (see cms.jwt_secret()).
CREATE TABLE cms.settings (
  id                     boolean PRIMARY KEY DEFAULT true CHECK (id),
  base_path              text    NOT NULL DEFAULT '/api/cms/v2',
  session_cookie         text    NOT NULL DEFAULT 'CMSSESSID',
  session_ttl_seconds    integer NOT NULL DEFAULT 28800,
  default_limit          integer NOT NULL DEFAULT 25,
  max_limit              integer NOT NULL DEFAULT 100,
  calendar_default_count integer NOT NULL DEFAULT 10,
  calendar_max_count     integer NOT NULL DEFAULT 100,
  jwt_secret             bytea   NOT NULL DEFAULT cms.gen_random_bytes(32),
  -- Failed logins per login name (cms.login_throttle): this many within the window lock the name out.
  login_max_failures     integer NOT NULL DEFAULT 5,
  login_window_seconds   integer NOT NULL DEFAULT 900,
  login_lockout_seconds  integer NOT NULL DEFAULT 900,
  -- A hash of a random password, at the cost of real ones: an unknown login is compared against it, so
  -- it takes as long to refuse as a known one (§4.1: logins cannot be probed).
  dummy_password_hash    text    NOT NULL DEFAULT cms.hash_password(encode(cms.gen_random_bytes(16), 'hex'))
);
INSERT INTO cms.settings DEFAULT VALUES;

CREATE TABLE cms.languages (code text PRIMARY KEY, name text NOT NULL);
CREATE TABLE cms.sections (id integer PRIMARY KEY, identifier text NOT NULL UNIQUE, name text NOT NULL);
CREATE TABLE cms.content_types (id integer PRIMARY KEY, identifier text NOT NULL UNIQUE);

-- policies: [{"module": "content", "function": "read", "subtrees": null | ["/1/2/"]},
--            {"module": "activity_log", "function": "read", "scope": "all" | "own"},
--            {"module": "calendar", "function": "read"}]
CREATE TABLE cms.users (
  id            integer PRIMARY KEY,
  login         text    NOT NULL UNIQUE,
  password_hash text    NOT NULL,
  email         text    NOT NULL,
  enabled       boolean NOT NULL DEFAULT true,
  policies      jsonb   NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(policies) = 'array')
);

CREATE TABLE cms.contents (
  id               integer PRIMARY KEY,
  content_type     integer NOT NULL REFERENCES cms.content_types,
  name             text    NOT NULL,
  remote_id        text    NOT NULL UNIQUE,
  section          integer NOT NULL REFERENCES cms.sections,
  owner            integer NOT NULL REFERENCES cms.users,
  main_language    text    NOT NULL REFERENCES cms.languages,
  current_version  integer NOT NULL,
  always_available boolean NOT NULL,
  is_hidden        boolean NOT NULL,
  status           text    NOT NULL CHECK (status IN ('DRAFT', 'PUBLISHED', 'TRASHED')),
  published        timestamptz,
  modified         timestamptz
);

CREATE TABLE cms.locations (
  id                integer PRIMARY KEY,
  parent            integer REFERENCES cms.locations,
  path_string       text    NOT NULL UNIQUE CHECK (path_string ~ '^/([0-9]+/)+$'),
  depth             integer NOT NULL,
  priority          integer NOT NULL DEFAULT 0,
  hidden            boolean NOT NULL DEFAULT false,
  invisible         boolean NOT NULL DEFAULT false,
  explicitly_hidden boolean NOT NULL DEFAULT false,
  remote_id         text    NOT NULL UNIQUE,
  sort_field        text    NOT NULL CHECK (sort_field IN ('PATH', 'PUBLISHED', 'MODIFIED', 'SECTION', 'DEPTH',
                      'CLASS_IDENTIFIER', 'CLASS_NAME', 'PRIORITY', 'NAME', 'NODE_ID', 'CONTENTOBJECT_ID')),
  sort_order        text    NOT NULL CHECK (sort_order IN ('ASC', 'DESC')),
  content           integer NOT NULL REFERENCES cms.contents
);
CREATE INDEX ON cms.locations (parent);

-- The unique constraint is what makes simultaneous POST /bookmark/{id} give one 201 and 409s.
CREATE TABLE cms.bookmarks (
  id          integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES cms.users,
  location_id integer NOT NULL REFERENCES cms.locations ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, location_id)
);

CREATE TABLE cms.activity_log_groups (
  id        integer PRIMARY KEY,
  user_id   integer NOT NULL REFERENCES cms.users,
  logged_at timestamptz NOT NULL
);
CREATE INDEX ON cms.activity_log_groups (logged_at, id);

CREATE TABLE cms.activity_log_entries (
  id           integer PRIMARY KEY,
  group_id     integer NOT NULL REFERENCES cms.activity_log_groups ON DELETE CASCADE,
  object_class text    NOT NULL,
  object_id    text    NOT NULL,
  action       text    NOT NULL,
  data         jsonb   NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(data) = 'object')
);
CREATE INDEX ON cms.activity_log_entries (group_id, id);

CREATE TABLE cms.calendar_events (
  id         integer PRIMARY KEY,
  type       text    NOT NULL CHECK (type IN ('future_publication', 'future_hide', 'reminder')),
  name       text    NOT NULL,
  date_time  timestamptz NOT NULL,
  language   text    NOT NULL REFERENCES cms.languages,
  content_id integer NOT NULL REFERENCES cms.contents,
  owner_id   integer NOT NULL REFERENCES cms.users
);
CREATE INDEX ON cms.calendar_events (date_time, id);

-- Server-side sessions, so that logging out takes effect before the cookie's exp.
CREATE TABLE cms.sessions (
  identifier text PRIMARY KEY,
  user_id    integer NOT NULL REFERENCES cms.users,
  csrf_token text    NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);

-- Failed logins per login name, known or not (so a lockout tells nothing about which logins exist).
-- Keyed by the name's SHA-256: any length fits the index, and strangers' guesses are not kept in clear.
-- Never exposed: only cms.session_create (as cms_owner) reads and writes it.
CREATE TABLE cms.login_throttle (
  login_key    bytea       PRIMARY KEY,
  failures     integer     NOT NULL,
  window_start timestamptz NOT NULL,
  locked_until timestamptz
);
CREATE INDEX ON cms.login_throttle (window_start);

-- Every foreign key has an index (`dbrest doctor` checks): deleting a user, content or location, and
-- joining from one to its rows, then reads only the matching rows.
CREATE INDEX ON cms.contents (content_type);
CREATE INDEX ON cms.contents (section);
CREATE INDEX ON cms.contents (owner);
CREATE INDEX ON cms.contents (main_language);
CREATE INDEX ON cms.locations (content);
CREATE INDEX ON cms.bookmarks (location_id);
CREATE INDEX ON cms.activity_log_groups (user_id);
CREATE INDEX ON cms.calendar_events (language);
CREATE INDEX ON cms.calendar_events (content_id);
CREATE INDEX ON cms.calendar_events (owner_id);
CREATE INDEX ON cms.sessions (user_id);

-- Raw responses: the functions set their own Content-Type (vnd.cms.api.<Type>+json or +xml).
CREATE DOMAIN cms."*/*" AS bytea;
