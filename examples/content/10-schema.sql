-- Public content API (/api/v2), modelled on Wagtail's API v2: the tables. Loaded once, as a
-- superuser, before 20-api.sql and 30-seed.sql (psql -v ON_ERROR_STOP=1 -f each file in name order).
-- No BEGIN/COMMIT of its own: the embedded default loads all files in one transaction, `psql -1` in one each.
-- Everything lives in schema `content`; the tables stay private: requests run as web_anon, which may
-- only execute the SECURITY DEFINER functions of 20-api.sql (spec: ../shared/spec/content-api.md).

-- Roles are cluster-wide: tolerate another database creating it at the same moment.
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'web_anon') THEN CREATE ROLE web_anon NOLOGIN; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;

-- Owner of the endpoints (SECURITY DEFINER, 20-api.sql): no login, no superuser, allowed to read the
-- tables and call the helpers only, so a mistake in an endpoint is never a superuser's.
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'content_owner') THEN CREATE ROLE content_owner NOLOGIN; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;

-- Search: words are lowercased and stripped of accents (spec §6.9). unaccent goes in a schema of its
-- own that no API exposes (shared with the CMS example's pgcrypto): in `public`, the embedded default
-- would serve unaccent() as /rpc/unaccent to anyone. Where it already lives elsewhere (a database of
-- your own), it stays there: the functions below are built with its schema's name.
CREATE SCHEMA IF NOT EXISTS extensions;
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA extensions;

CREATE SCHEMA IF NOT EXISTS content;

-- Settings (§3.1): one row.
CREATE TABLE IF NOT EXISTS content.settings (
  one            boolean PRIMARY KEY DEFAULT true CHECK (one),
  api_base_url   text    NOT NULL,
  media_url      text    NOT NULL,
  limit_max      integer CHECK (limit_max >= 0),         -- NULL: no maximum
  i18n_enabled   boolean NOT NULL DEFAULT true,
  search_enabled boolean NOT NULL DEFAULT true
);

CREATE TABLE IF NOT EXISTS content.locales (
  id            integer PRIMARY KEY,
  language_code text NOT NULL UNIQUE
);

CREATE TABLE IF NOT EXISTS content.collections (
  id         integer PRIMARY KEY,
  name       text NOT NULL,
  restricted boolean NOT NULL DEFAULT false
);

-- Page types and their exported custom fields, in order (§3.3): fields = [{"name","kind"}, …],
-- kind one of text, date, integer, image, document.
CREATE TABLE IF NOT EXISTS content.page_types (
  type   text PRIMARY KEY CHECK (type ~ '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+$'),
  fields jsonb NOT NULL DEFAULT '[]'
);

-- The page tree (§3.3). `path`: 4 characters per level, COLLATE "C" so that a prefix LIKE uses the
-- btree index (tree filters, visibility per site). `in_private`: the page or an ancestor is private,
-- kept by a statement trigger. `search_words`: the words of the searched texts (§6.9), kept by a trigger.
CREATE TABLE IF NOT EXISTS content.pages (
  id                 integer PRIMARY KEY,
  type               text NOT NULL REFERENCES content.page_types,
  parent             integer REFERENCES content.pages DEFERRABLE INITIALLY DEFERRED,
  path               text COLLATE "C" NOT NULL UNIQUE CHECK (length(path) % 4 = 0 AND length(path) > 0),
  depth              integer NOT NULL CHECK (depth = length(path) / 4),
  title              text NOT NULL,
  slug               text NOT NULL,
  locale_id          integer NOT NULL REFERENCES content.locales,
  translation_key    text NOT NULL,
  live               boolean NOT NULL DEFAULT true,
  private            boolean NOT NULL DEFAULT false,
  first_published_at timestamptz,
  expire_at          timestamptz,
  show_in_menus      boolean NOT NULL DEFAULT false,
  seo_title          text NOT NULL DEFAULT '',
  search_description text NOT NULL DEFAULT '',
  alias_of           integer REFERENCES content.pages DEFERRABLE INITIALLY DEFERRED,
  fields             jsonb NOT NULL DEFAULT '{}',
  in_private         boolean NOT NULL DEFAULT false,
  search_words       tsvector NOT NULL DEFAULT ''
);
-- The slugs below depth 2 (where every site root and its translations are), each followed by '/':
-- html_url's path without a query per ancestor. Kept by a statement trigger, as in_private.
ALTER TABLE content.pages ADD COLUMN IF NOT EXISTS url_path text NOT NULL DEFAULT '';
-- path (UNIQUE above, COLLATE "C"): prefix tests (visibility, html_url's sites), ancestors (= ANY), tree order.
DROP INDEX IF EXISTS content.pages_path_visible_idx;
DROP INDEX IF EXISTS content.pages_path_cover_idx;   -- replaced by the partial ones below
CREATE INDEX IF NOT EXISTS pages_parent_idx ON content.pages (parent, path);            -- child_of
CREATE INDEX IF NOT EXISTS pages_translation_idx ON content.pages (translation_key);     -- translation_of, site translations
-- Listings: every listing has `live AND NOT in_private` (visibility), so its scans use partial indexes
-- with that predicate: the planner drops both conditions (implied by the predicate) and only the expiry
-- test is left per row. Each index gives one order with `id` at hand (index-only: ORDER BY … LIMIT stops
-- after the page; count(*) of a site, a subtree or a type reads no heap):
-- path (default order, descendant_of), type + path (type=), title both ways + path (order=title, -title).
DROP INDEX IF EXISTS content.pages_type_idx;
DROP INDEX IF EXISTS content.pages_type_cover_idx;
CREATE INDEX IF NOT EXISTS pages_visible_path_idx ON content.pages (path) INCLUDE (expire_at, id) WHERE live AND NOT in_private;
CREATE INDEX IF NOT EXISTS pages_visible_type_idx ON content.pages (type, path) INCLUDE (expire_at, id) WHERE live AND NOT in_private;
CREATE INDEX IF NOT EXISTS pages_visible_title_idx ON content.pages ((title COLLATE "C"), path) INCLUDE (expire_at, id) WHERE live AND NOT in_private;
CREATE INDEX IF NOT EXISTS pages_visible_title_desc_idx ON content.pages ((title COLLATE "C") DESC, path) INCLUDE (expire_at, id) WHERE live AND NOT in_private;
CREATE INDEX IF NOT EXISTS pages_search_idx ON content.pages USING gin (search_words);  -- search=
CREATE INDEX IF NOT EXISTS pages_private_idx ON content.pages (path) WHERE private;     -- in_private upkeep

CREATE TABLE IF NOT EXISTS content.sites (
  id              integer PRIMARY KEY,
  hostname        text NOT NULL,
  port            integer NOT NULL DEFAULT 80,
  site_name       text NOT NULL DEFAULT '',
  root_page       integer NOT NULL REFERENCES content.pages,
  is_default_site boolean NOT NULL DEFAULT false,
  UNIQUE (hostname, port)
);
CREATE UNIQUE INDEX IF NOT EXISTS sites_one_default ON content.sites (is_default_site) WHERE is_default_site;

CREATE TABLE IF NOT EXISTS content.images (
  id           integer PRIMARY KEY,
  title        text NOT NULL,
  width        integer NOT NULL,
  height       integer NOT NULL,
  file         text NOT NULL,
  collection   integer NOT NULL REFERENCES content.collections,
  tags         text[] NOT NULL DEFAULT '{}',
  search_words tsvector NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS images_search_idx ON content.images USING gin (search_words);
CREATE INDEX IF NOT EXISTS images_tags_idx ON content.images USING gin (tags);

CREATE TABLE IF NOT EXISTS content.documents (
  id           integer PRIMARY KEY,
  title        text NOT NULL,
  file         text NOT NULL,
  collection   integer NOT NULL REFERENCES content.collections,
  tags         text[] NOT NULL DEFAULT '{}',
  search_words tsvector NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS documents_search_idx ON content.documents USING gin (search_words);
CREATE INDEX IF NOT EXISTS documents_tags_idx ON content.documents USING gin (tags);

-- Every foreign key has an index (`dbrest doctor` checks), so deleting or joining from the row it
-- references reads only the matching rows.
CREATE INDEX IF NOT EXISTS pages_type_idx ON content.pages (type);
CREATE INDEX IF NOT EXISTS pages_locale_idx ON content.pages (locale_id);
CREATE INDEX IF NOT EXISTS pages_alias_of_idx ON content.pages (alias_of);
CREATE INDEX IF NOT EXISTS sites_root_page_idx ON content.sites (root_page);
CREATE INDEX IF NOT EXISTS images_collection_idx ON content.images (collection);
CREATE INDEX IF NOT EXISTS documents_collection_idx ON content.documents (collection);

-- Words of a text (§6.9): maximal runs of letters and digits, lowercased, without accents.
-- unaccent() is only STABLE (it reads a dictionary), so the tsvectors are kept by triggers.
-- Letters are Unicode letters whatever the database's locale: under the C locale `[[:alnum:]]` and
-- lower() know ASCII only (Москва would be no word at all), so the text takes a Unicode collation:
-- pg_c_utf8 (PostgreSQL 17+, UTF-8 databases), else ICU's root locale, else the database default.
DO $do$
DECLARE
  coll text := CASE
    WHEN EXISTS (SELECT FROM pg_collation WHERE collname = 'pg_c_utf8' AND collnamespace = 'pg_catalog'::regnamespace)
         AND pg_encoding_to_char((SELECT encoding FROM pg_database WHERE datname = current_database())) = 'UTF8'
      THEN 'pg_catalog.pg_c_utf8'
    WHEN EXISTS (SELECT FROM pg_collation WHERE collname = 'und-x-icu' AND collnamespace = 'pg_catalog'::regnamespace)
      THEN 'pg_catalog."und-x-icu"'
    ELSE 'pg_catalog."default"' END;
  ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent');
BEGIN
  -- the text without accents (unaccent's own dictionary, named: callers pin their search_path)
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION content.unaccent(t text) RETURNS text
    LANGUAGE sql STABLE SET search_path = pg_catalog AS $b$ SELECT %1$s.unaccent(%2$L::regdictionary, t) $b$ $f$,
    ext, ext || '.unaccent');
  -- every run, repeated ones and over-long ones included (the search checks for those)
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION content.word_runs(t text) RETURNS SETOF text
    LANGUAGE sql STABLE SET search_path = pg_catalog AS $b$
      SELECT m[1] FROM regexp_matches(lower(%2$s.unaccent(%3$L::regdictionary, coalesce(t, '')) COLLATE %1$s),
                                      '([[:alnum:]]+)', 'g') AS m
    $b$ $f$, coll, ext, ext || '.unaccent');
  -- The tokens of a `fields` value (§7.1), in one pass: runs of letters, digits and '_' (w), one
  -- whitespace character (s), any other character (o), each with its 0-based position. Letters,
  -- digits and whitespace are Unicode's (Python's isalnum/isspace, as Wagtail's parser) in the same
  -- collation as the words.
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION content.fields_tokens(s text) RETURNS TABLE (tok text, cls text, pos bigint)
    LANGUAGE sql IMMUTABLE AS $b$
      SELECT x.tok, x.cls, sum(length(x.tok)) OVER (ORDER BY x.o) - length(x.tok)
        FROM (SELECT coalesce(m[1], m[2], m[3]) AS tok, CASE WHEN m[1] IS NOT NULL THEN 'w' WHEN m[2] IS NOT NULL THEN 's' ELSE 'o' END AS cls, o
                FROM regexp_matches(coalesce(s, '') COLLATE %1$s, '([[:alnum:]_]+)|([[:space:]])|(.)', 'g') WITH ORDINALITY AS r(m, o)) x
       ORDER BY x.o
    $b$ $f$, coll);
END $do$;

CREATE OR REPLACE FUNCTION content.words(t text) RETURNS text[]
LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(DISTINCT w), '{}') FROM content.word_runs(t) w
  WHERE octet_length(w) <= 2046   -- the longest lexeme a tsvector holds
$$;

CREATE OR REPLACE FUNCTION content.words_vector(t text) RETURNS tsvector
LANGUAGE sql STABLE AS $$ SELECT array_to_tsvector(content.words(t)) $$;

-- The searched words of a page: title, seo_title, search_description and every text custom field of
-- the page's type (the trigger below, and the recomputations when a type's fields or these
-- definitions change).
CREATE OR REPLACE FUNCTION content.page_search_words(title text, seo_title text, search_description text, fields jsonb, ptype text) RETURNS tsvector
LANGUAGE sql STABLE AS $$
  SELECT content.words_vector(concat_ws(' ', title, seo_title, search_description,
    (SELECT string_agg(page_search_words.fields->>(f->>'name'), ' ')   -- the argument, not t.fields
       FROM content.page_types t, jsonb_array_elements(t.fields) f
      WHERE t.type = page_search_words.ptype AND f->>'kind' = 'text')))
$$;

CREATE OR REPLACE FUNCTION content.media_search_words(title text, tags text[]) RETURNS tsvector
LANGUAGE sql STABLE AS $$ SELECT content.words_vector(concat_ws(' ', title, array_to_string(tags, ' '))) $$;

CREATE OR REPLACE FUNCTION content.pages_search_words() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
BEGIN
  NEW.search_words := content.page_search_words(NEW.title, NEW.seo_title, NEW.search_description, NEW.fields, NEW.type);
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS pages_search_words ON content.pages;
CREATE TRIGGER pages_search_words BEFORE INSERT OR UPDATE OF title, seo_title, search_description, fields, type
  ON content.pages FOR EACH ROW EXECUTE FUNCTION content.pages_search_words();

CREATE OR REPLACE FUNCTION content.media_search_words() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
BEGIN
  NEW.search_words := content.media_search_words(NEW.title, NEW.tags);
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS images_search_words ON content.images;
CREATE TRIGGER images_search_words BEFORE INSERT OR UPDATE OF title, tags
  ON content.images FOR EACH ROW EXECUTE FUNCTION content.media_search_words();
DROP TRIGGER IF EXISTS documents_search_words ON content.documents;
CREATE TRIGGER documents_search_words BEFORE INSERT OR UPDATE OF title, tags
  ON content.documents FOR EACH ROW EXECUTE FUNCTION content.media_search_words();

-- A page type's text fields feed its pages' search words: when they change, those pages' words are
-- recomputed (only the rows whose words differ are written).
CREATE OR REPLACE FUNCTION content.page_types_search_words() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
BEGIN
  UPDATE content.pages p SET search_words = x.v
    FROM (SELECT c.id, content.page_search_words(c.title, c.seo_title, c.search_description, c.fields, c.type) AS v
            FROM content.pages c WHERE c.type = NEW.type) x
   WHERE x.id = p.id AND p.search_words IS DISTINCT FROM x.v;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS page_types_search_words ON content.page_types;
CREATE TRIGGER page_types_search_words AFTER UPDATE OF fields ON content.page_types
  FOR EACH ROW WHEN (OLD.fields IS DISTINCT FROM NEW.fields) EXECUTE FUNCTION content.page_types_search_words();

-- Reloading this file with other word definitions (say a new version of the example, or another
-- collation) recomputes the words of the existing rows: the definitions that make them are
-- fingerprinted, and when the fingerprint differs from the one the rows were made with, every row
-- whose words differ is rewritten. An unchanged reload writes nothing.
CREATE TABLE IF NOT EXISTS content.search_words_state (
  one         boolean PRIMARY KEY DEFAULT true CHECK (one),
  fingerprint text NOT NULL
);
DO $do$
DECLARE
  fp text := md5((SELECT string_agg(pg_get_functiondef(p.oid), E'\n' ORDER BY p.oid::regprocedure::text)
                    FROM pg_proc p
                   WHERE p.pronamespace = 'content'::regnamespace
                     AND p.proname IN ('word_runs', 'words', 'words_vector', 'page_search_words', 'media_search_words'))
                 || coalesce((SELECT extversion FROM pg_extension WHERE extname = 'unaccent'), ''));
BEGIN
  IF fp IS DISTINCT FROM (SELECT fingerprint FROM content.search_words_state) THEN
    UPDATE content.pages p SET search_words = x.v
      FROM (SELECT c.id, content.page_search_words(c.title, c.seo_title, c.search_description, c.fields, c.type) AS v FROM content.pages c) x
     WHERE x.id = p.id AND p.search_words IS DISTINCT FROM x.v;
    UPDATE content.images i SET search_words = x.v
      FROM (SELECT c.id, content.media_search_words(c.title, c.tags) AS v FROM content.images c) x
     WHERE x.id = i.id AND i.search_words IS DISTINCT FROM x.v;
    UPDATE content.documents d SET search_words = x.v
      FROM (SELECT c.id, content.media_search_words(c.title, c.tags) AS v FROM content.documents c) x
     WHERE x.id = d.id AND d.search_words IS DISTINCT FROM x.v;
    INSERT INTO content.search_words_state (fingerprint) VALUES (fp)
    ON CONFLICT (one) DO UPDATE SET fingerprint = excluded.fingerprint;
  END IF;
END $do$;

-- The paths of a page's ancestors and itself ('00010002' → {0001, 00010002}).
CREATE OR REPLACE FUNCTION content.path_prefixes(path text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_agg(left(path, 4 * k) ORDER BY k) FROM generate_series(1, length(path) / 4) k
$$;

-- in_private: the page or one of its ancestors is private (§3.4 rule 2), recomputed after each
-- statement that can change it (loading is by statement; a per-row cascade would not be cheaper).
CREATE OR REPLACE FUNCTION content.pages_in_private() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
BEGIN
  UPDATE content.pages p SET in_private = x.v
    FROM (SELECT c.id, EXISTS (SELECT 1 FROM content.pages a
                                WHERE a.private AND a.path = ANY (content.path_prefixes(c.path))) AS v
            FROM content.pages c) x
   WHERE x.id = p.id AND p.in_private IS DISTINCT FROM x.v;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS pages_in_private ON content.pages;
CREATE TRIGGER pages_in_private AFTER INSERT OR DELETE OR UPDATE OF private, path
  ON content.pages FOR EACH STATEMENT EXECUTE FUNCTION content.pages_in_private();

CREATE OR REPLACE FUNCTION content.pages_url_path() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
BEGIN
  UPDATE content.pages p SET url_path = x.v
    FROM (SELECT c.id, coalesce((SELECT string_agg(a.slug || '/', '' ORDER BY a.path) FROM content.pages a
                                  WHERE a.path = ANY (content.path_prefixes(c.path)) AND a.depth > 2), '') AS v
            FROM content.pages c) x
   WHERE x.id = p.id AND p.url_path IS DISTINCT FROM x.v;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS pages_url_path ON content.pages;
CREATE TRIGGER pages_url_path AFTER INSERT OR UPDATE OF slug, path
  ON content.pages FOR EACH STATEMENT EXECUTE FUNCTION content.pages_url_path();
-- pages loaded before the column existed
UPDATE content.pages SET slug = slug WHERE id = (SELECT min(id) FROM content.pages);

-- Exact listing totals (§6.1 total_count) without scanning every match: per subtree (the path of its
-- root) and page type, how many pages in that subtree are listed for good (live, not in a private
-- subtree, no expiry date). A listing filtered only by site, type and descendant_of adds these up for
-- its subtree roots and counts the pages with an expiry date (few, in a small partial index) as they
-- are now. Kept by statement triggers from the transition tables (one upsert per statement), so bulk
-- loads cost one aggregate, and rebuilt whole on every load of this file (self-healing).
CREATE TABLE IF NOT EXISTS content.subtree_counts (
  path text COLLATE "C" NOT NULL,
  type text NOT NULL,
  n    bigint NOT NULL,
  PRIMARY KEY (path, type)
);
CREATE INDEX IF NOT EXISTS pages_expiring_path_idx ON content.pages (path) INCLUDE (expire_at)
  WHERE live AND NOT in_private AND expire_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS pages_expiring_type_idx ON content.pages (type, path) INCLUDE (expire_at)
  WHERE live AND NOT in_private AND expire_at IS NOT NULL;

-- Adds +1 / -1 per (path, type) of pages that start or stop being listed for good, on every prefix of
-- their paths. Counters that fall to 0 stay (a sum over them is unchanged; a load rebuilds the table).
-- Counter rows are written in key order, so two concurrent writers lock them in the same order and
-- wait for each other instead of deadlocking.
CREATE OR REPLACE FUNCTION content.subtree_counts_add(paths text[], types text[], signs integer[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO content.subtree_counts AS t (path, type, n)
  SELECT left(c.path, 4 * k), c.type, sum(c.s)
    FROM unnest(paths, types, signs) AS c(path, type, s), generate_series(1, length(c.path) / 4) k
   GROUP BY 1, 2 HAVING sum(c.s) <> 0
   ORDER BY 1, 2
  ON CONFLICT (path, type) DO UPDATE SET n = t.n + excluded.n
$$;

-- The rows of the statement whose standing changed: an UPDATE's rows with the same path, type and
-- standing before and after are left out first (most updates: url_path, in_private elsewhere).
CREATE OR REPLACE FUNCTION content.pages_counts() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
DECLARE
  p text[]; t text[]; s integer[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM content.subtree_counts;
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.path), array_agg(n.type), array_agg(1) INTO p, t, s
      FROM new_rows n WHERE n.live AND NOT n.in_private AND n.expire_at IS NULL;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.path), array_agg(o.type), array_agg(-1) INTO p, t, s
      FROM old_rows o WHERE o.live AND NOT o.in_private AND o.expire_at IS NULL;
  ELSE
    SELECT array_agg(x.path), array_agg(x.type), array_agg(x.s) INTO p, t, s FROM (
      SELECT o.path, o.type, -1 AS s FROM old_rows o
       WHERE o.live AND NOT o.in_private AND o.expire_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.id = o.id AND n.path = o.path AND n.type = o.type
                                                   AND n.live AND NOT n.in_private AND n.expire_at IS NULL)
      UNION ALL
      SELECT n.path, n.type, 1 FROM new_rows n
       WHERE n.live AND NOT n.in_private AND n.expire_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.id = n.id AND o.path = n.path AND o.type = n.type
                                                   AND o.live AND NOT o.in_private AND o.expire_at IS NULL)) x;
  END IF;
  IF p IS NOT NULL THEN PERFORM content.subtree_counts_add(p, t, s); END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS pages_counts_insert ON content.pages;
DROP TRIGGER IF EXISTS pages_counts_update ON content.pages;
DROP TRIGGER IF EXISTS pages_counts_delete ON content.pages;
DROP TRIGGER IF EXISTS pages_counts_truncate ON content.pages;
CREATE TRIGGER pages_counts_insert AFTER INSERT ON content.pages REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION content.pages_counts();
CREATE TRIGGER pages_counts_update AFTER UPDATE ON content.pages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION content.pages_counts();
CREATE TRIGGER pages_counts_delete AFTER DELETE ON content.pages REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION content.pages_counts();
CREATE TRIGGER pages_counts_truncate AFTER TRUNCATE ON content.pages
  FOR EACH STATEMENT EXECUTE FUNCTION content.pages_counts();
-- rebuilt whole on every load: whatever happened before these triggers existed
DELETE FROM content.subtree_counts;
SELECT content.subtree_counts_add(array_agg(path), array_agg(type), array_agg(1))
  FROM content.pages WHERE live AND NOT in_private AND expire_at IS NULL HAVING count(*) > 0;

-- Exact search totals (§6.9, §6.1 total_count) for a one-word search of a whole site without other
-- filters: how many listed pages (live, not in a private subtree) hold each word, per subtree of the
-- first two levels (the root and the site roots) and expiry date ('infinity': none), so the total is a
-- sum over the site's roots with `expire_at > now()` — no page is read. A common word is in a third of
-- the pages: counting them (and checking each one's visibility) read every page, ~300 ms at 100,000
-- pages; the page of results itself stops early on the path index. Kept, like subtree_counts, by
-- statement triggers from the transition tables and rebuilt whole on every load of this file.
CREATE TABLE IF NOT EXISTS content.search_counts (
  word      text NOT NULL,
  path      text COLLATE "C" NOT NULL,
  expire_at timestamptz NOT NULL,
  n         bigint NOT NULL,
  PRIMARY KEY (word, path, expire_at) INCLUDE (n)
);

-- The counters a set of pages adds (sign 1) or takes away (-1): one per word, level-1 and level-2
-- prefix of the path, and expiry. Written in key order (concurrent writers wait, not deadlock); counters
-- that fall to 0 stay (a sum is unchanged; a load rebuilds the table).
CREATE OR REPLACE FUNCTION content.search_counts_add(paths text[], words tsvector[], expiries timestamptz[], signs integer[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO content.search_counts AS t (word, path, expire_at, n)
  SELECT w, left(c.path, 4 * k), coalesce(c.expire_at, 'infinity'), sum(c.s)
    FROM unnest(paths, words, expiries, signs) AS c(path, words, expire_at, s),
         unnest(tsvector_to_array(c.words)) w, generate_series(1, least(2, length(c.path) / 4)) k
   GROUP BY 1, 2, 3 HAVING sum(c.s) <> 0
   ORDER BY 1, 2, 3
  ON CONFLICT (word, path, expire_at) DO UPDATE SET n = t.n + excluded.n
$$;

-- The rows of the statement whose counted words changed: an UPDATE's rows with the same path, words,
-- expiry and standing before and after are left out (most updates: url_path, other fields).
CREATE OR REPLACE FUNCTION content.pages_search_counts() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, content AS $$
DECLARE
  p text[]; w tsvector[]; e timestamptz[]; s integer[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM content.search_counts;
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.path), array_agg(n.search_words), array_agg(n.expire_at), array_agg(1) INTO p, w, e, s
      FROM new_rows n WHERE n.live AND NOT n.in_private;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.path), array_agg(o.search_words), array_agg(o.expire_at), array_agg(-1) INTO p, w, e, s
      FROM old_rows o WHERE o.live AND NOT o.in_private;
  ELSE
    SELECT array_agg(x.path), array_agg(x.search_words), array_agg(x.expire_at), array_agg(x.s) INTO p, w, e, s FROM (
      SELECT o.path, o.search_words, o.expire_at, -1 AS s FROM old_rows o
       WHERE o.live AND NOT o.in_private
         AND NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.id = o.id AND n.path = o.path AND n.search_words = o.search_words
                           AND n.expire_at IS NOT DISTINCT FROM o.expire_at AND n.live AND NOT n.in_private)
      UNION ALL
      SELECT n.path, n.search_words, n.expire_at, 1 FROM new_rows n
       WHERE n.live AND NOT n.in_private
         AND NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.id = n.id AND o.path = n.path AND o.search_words = n.search_words
                           AND o.expire_at IS NOT DISTINCT FROM n.expire_at AND o.live AND NOT o.in_private)) x;
  END IF;
  IF p IS NOT NULL THEN PERFORM content.search_counts_add(p, w, e, s); END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS pages_search_counts_insert ON content.pages;
DROP TRIGGER IF EXISTS pages_search_counts_update ON content.pages;
DROP TRIGGER IF EXISTS pages_search_counts_delete ON content.pages;
DROP TRIGGER IF EXISTS pages_search_counts_truncate ON content.pages;
CREATE TRIGGER pages_search_counts_insert AFTER INSERT ON content.pages REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION content.pages_search_counts();
CREATE TRIGGER pages_search_counts_update AFTER UPDATE ON content.pages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION content.pages_search_counts();
CREATE TRIGGER pages_search_counts_delete AFTER DELETE ON content.pages REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION content.pages_search_counts();
CREATE TRIGGER pages_search_counts_truncate AFTER TRUNCATE ON content.pages
  FOR EACH STATEMENT EXECUTE FUNCTION content.pages_search_counts();
-- rebuilt whole on every load: whatever happened before these triggers existed
DELETE FROM content.search_counts;
SELECT content.search_counts_add(array_agg(path), array_agg(search_words), array_agg(expire_at), array_agg(1))
  FROM content.pages WHERE live AND NOT in_private HAVING count(*) > 0;
