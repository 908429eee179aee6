-- Synthetic data for the content API (bench, EXPLAIN): replaces the demo data with N pages (default
-- 100,000) in one deep tree — 4 sites, 3 locales with translation trees, 5 page types — and images and
-- documents in proportion (N/20, N/50). Not loaded by the embedded default (it lives in tools/).
--   psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f examples/content/tools/generate.sql -c 'SELECT content.generate(100000)'
-- or: node examples/content/tools/generate.mjs [N] (DATABASE_URL names the database).
-- Deterministic for a given N and seed (setseed). Run VACUUM ANALYZE content.pages afterwards (generate.mjs
-- does) so that index-only scans need no heap visits.
CREATE OR REPLACE FUNCTION content.generate(n integer DEFAULT 100000, seed double precision DEFAULT 0.42) RETURNS text
LANGUAGE plpgsql AS $gen$
DECLARE
  adj  text[] := ARRAY['Late','Early','Quiet','Wild','Walled','Secret','Northern','Coastal','Forgotten','Golden','Misty','Winter','Summer','Autumn','Spring','Old','New','Hidden','Green','Silver'];
  noun text[] := ARRAY['roses','meadows','glasshouses','orchids','ferries','lighthouses','tides','harbours','beans','tomatoes','seeds','hedges','orchards','bees','lanterns','boats','gardens','bridges','islands','markets','herbs','apples','ferns','wells'];
  verb text[] := ARRAY['Pruning','Planting','Saving','Growing','Mapping','Rowing','Photographing','Harvesting','Restoring','Painting','Cooking','Walking','Sketching','Watering'];
  fr   text[] := ARRAY['Jardins','Rosiers','Prairies','Serres','Phares','Marées','Été','Hiver','Récolte','Économiser','Légumes','Pépinière','Forêt','Château'];
  de   text[] := ARRAY['Gärten','Rosen','Wiesen','Gewächshäuser','Leuchttürme','Gezeiten','Sommer','Winter','Ernte','Brücken','Äpfel','Fähren','Straße','Küste'];
  tagw text[] := ARRAY['roses','harbour','night','meadow','summer','winter','tools','seeds','maps','reports','events','kitchen garden','vegetables','lighthouse','ferries','volunteering','forms','leaflets'];
  n_img integer := greatest(n / 20, 10);
  n_doc integer := greatest(n / 50, 10);
  ids integer[]; parents integer[]; paths text[]; depths integer[]; types text[]; titles text[]; locs integer[]; roots integer[];
  kids integer[];
  i integer; p integer; r double precision; t text; d integer; loc integer; title text; slug text;
  -- kept here rather than left to the statement triggers (url_path, in_private): a second version of
  -- every page right after the insert would double the heap and leave a dead entry in every index
  slugs text[]; urls text[]; privs boolean[];
  site_roots integer[] := '{}';
  k integer;
BEGIN
  PERFORM setseed(seed);
  TRUNCATE content.sites, content.pages, content.images, content.documents, content.collections, content.locales CASCADE;
  INSERT INTO content.locales (id, language_code) VALUES (1, 'en'), (2, 'fr'), (3, 'de');
  INSERT INTO content.collections (id, name, restricted) VALUES (1, 'Root', false), (2, 'Press', false), (3, 'Trustees', true);

  -- images and documents: 1 in 20 in the restricted collection
  INSERT INTO content.images (id, title, width, height, file, collection, tags)
  SELECT g, initcap(adj[1 + (g * 7) % 20]) || ' ' || noun[1 + (g * 13) % 24] || ' ' || g,
         800 + (g * 37) % 1600, 600 + (g * 53) % 1000, 'original_images/img-' || g || '.jpg',
         CASE WHEN g % 20 = 0 THEN 3 WHEN g % 3 = 0 THEN 2 ELSE 1 END,
         ARRAY(SELECT DISTINCT tagw[1 + (g * m) % 18] FROM generate_series(1, g % 4) m)
  FROM generate_series(1, n_img) g;
  INSERT INTO content.documents (id, title, file, collection, tags)
  SELECT g, initcap(noun[1 + (g * 5) % 24]) || ' report ' || (2000 + g % 25) || ' ' || g, 'doc-' || g || '.pdf',
         CASE WHEN g % 20 = 0 THEN 3 ELSE 1 END,
         ARRAY(SELECT DISTINCT tagw[1 + (g * m * 3) % 18] FROM generate_series(1, g % 3) m)
  FROM generate_series(1, n_doc) g;

  -- the tree, built in arrays: page 1 the root; depth 2 the site roots (sites 1 and 2 with fr and de
  -- translations); then each page under a parent picked with a bias towards recent pages (deep chains)
  ids := ARRAY[1]; parents := ARRAY[NULL::integer]; paths := ARRAY['0001']; depths := ARRAY[1];
  types := ARRAY['wagtailcore.Page']; titles := ARRAY['Root']; locs := ARRAY[1]; roots := ARRAY[NULL::integer];
  slugs := ARRAY['home-1']; urls := ARRAY['']; privs := ARRAY[false];
  kids := array_fill(0, ARRAY[n + 16]);
  FOR k IN 1..8 LOOP
    i := k + 1;
    kids[1] := kids[1] + 1;
    ids := ids || i; parents := parents || 1; paths := paths || ('0001' || lpad(kids[1]::text, 4, '0')); depths := depths || 2;
    types := types || 'home.HomePage'::text; roots := roots || i;
    slugs := slugs || ('home-' || i); urls := urls || ''::text; privs := privs || false;
    loc := CASE WHEN k IN (2, 6) THEN 2 WHEN k IN (3, 7) THEN 3 ELSE 1 END;
    locs := locs || loc;
    titles := titles || (ARRAY['Lumenfield Gardens','Jardins de Lumenfield','Lumenfield Gärten','Harbourline Journal','Harbourline Shop',
                               'Journal de Harbourline','Harbourline Tagebuch','Harbourline Docs'])[k];
  END LOOP;
  FOR i IN 10..n LOOP
    r := random();
    -- parent: mostly one of the last 50 pages (deep), sometimes any page, sometimes a site root
    IF r < 0.02 THEN p := 2 + floor(random() * 8)::integer;
    ELSIF r < 0.35 THEN p := 2 + floor(random() * (cardinality(ids) - 1))::integer;
    ELSE p := greatest(2, cardinality(ids) - floor(random() * 50)::integer);
    END IF;
    WHILE depths[p] >= 12 LOOP p := parents[p]; END LOOP;   -- depth at most 12
    kids[p] := kids[p] + 1;
    d := depths[p] + 1;
    r := random();
    t := CASE WHEN r < 0.05 THEN 'blog.BlogIndexPage' WHEN r < 0.40 THEN 'content.StandardPage' ELSE 'blog.BlogPage' END;
    loc := locs[p];
    title := CASE loc
      WHEN 2 THEN fr[1 + floor(random() * 14)::integer] || ' ' || lower(fr[1 + floor(random() * 14)::integer]) || ' et ' || noun[1 + floor(random() * 24)::integer]
      WHEN 3 THEN de[1 + floor(random() * 14)::integer] || ' und ' || de[1 + floor(random() * 14)::integer]
      ELSE CASE floor(random() * 3)::integer
        WHEN 0 THEN verb[1 + floor(random() * 14)::integer] || ' ' || noun[1 + floor(random() * 24)::integer] || ' in ' || lower(adj[1 + floor(random() * 20)::integer]) || ' weather'
        WHEN 1 THEN 'A guide to ' || lower(adj[1 + floor(random() * 20)::integer]) || ' ' || noun[1 + floor(random() * 24)::integer]
        ELSE adj[1 + floor(random() * 20)::integer] || ' ' || noun[1 + floor(random() * 24)::integer] || ' of the ' || noun[1 + floor(random() * 24)::integer] END END;
    ids := ids || i; parents := parents || p; depths := depths || d; types := types || t; locs := locs || loc; roots := roots || roots[p];
    paths := paths || (paths[p] || lpad(upper(to_hex(kids[p])), 4, '0'));
    titles := titles || title;
    -- the slug from the title; url_path: the slugs below depth 2 (content.pages_url_path); in_private:
    -- the page or an ancestor is private (content.pages_in_private)
    slug := trim(both '-' from regexp_replace(lower(content.unaccent(title)), '[^a-z0-9]+', '-', 'g')) || '-' || i;
    slugs := slugs || slug;
    urls := urls || CASE WHEN d > 2 THEN urls[p] || slug || '/' ELSE '' END;
    privs := privs || ((d > 3 AND i % 331 = 0) OR privs[p]);
  END LOOP;
  -- array position = page id
  INSERT INTO content.pages (id, type, parent, path, depth, title, slug, url_path, in_private, locale_id, translation_key, live, private,
                             first_published_at, expire_at, show_in_menus, seo_title, search_description, alias_of, fields)
  SELECT g.id, g.type, g.parent, g.path, g.depth, g.title, g.slug, g.url_path, g.in_private,
         g.loc,
         CASE WHEN g.id IN (2, 3, 4) THEN 'tk-home-a' WHEN g.id IN (5, 7, 8) THEN 'tk-home-b' WHEN g.depth = 2 THEN 'tk-home-' || g.id WHEN g.depth = 1 THEN 'tk-root' ELSE 'tk-' || (g.id % greatest(n / 3, 1)) END,
         g.depth <= 2 OR g.id % 37 <> 0,
         g.depth > 3 AND g.id % 331 = 0,
         CASE WHEN g.depth = 1 THEN NULL ELSE timestamptz '2015-01-01' + (g.id * 7919 % 3650) * interval '1 day' + (g.id % 86400) * interval '1 second' END,
         CASE WHEN g.id % 53 = 0 THEN timestamptz '2020-01-01' WHEN g.id % 29 = 0 THEN timestamptz '2040-01-01' END,
         g.depth = 3,
         CASE WHEN g.id % 5 = 0 THEN g.title || ' | Lumenfield' ELSE '' END,
         CASE WHEN g.id % 3 = 0 THEN 'Notes on ' || lower(g.title) || '.' ELSE '' END,
         CASE WHEN g.depth > 3 AND g.id % 211 = 0 THEN g.id - 1 END,
         CASE g.type
           WHEN 'home.HomePage' THEN jsonb_build_object('intro', 'Welcome to ' || g.title || '.', 'hero_image', 1 + g.id % n_img)
           WHEN 'content.StandardPage' THEN jsonb_build_object('body', g.title || ': ' || noun[1 + g.id % 24] || ' and ' || noun[1 + (g.id / 7) % 24] || ' through the year.',
                                                               'attachment', CASE WHEN g.id % 4 = 0 THEN NULL ELSE 1 + g.id % n_doc END)
           WHEN 'blog.BlogIndexPage' THEN jsonb_build_object('intro', 'Stories about ' || noun[1 + g.id % 24] || '.')
           WHEN 'blog.BlogPage' THEN jsonb_build_object('date', to_char(date '2015-01-01' + (g.id * 7919 % 3650), 'YYYY-MM-DD'),
                                                        'intro', initcap(adj[1 + g.id % 20]) || ' ' || noun[1 + (g.id / 3) % 24] || ' and ' || noun[1 + (g.id / 11) % 24] || '.',
                                                        'body', 'We spent the ' || lower(adj[1 + g.id % 20]) || ' season with the ' || noun[1 + (g.id / 5) % 24] || ' and the ' || noun[1 + (g.id / 13) % 24] || '.',
                                                        'feed_image', CASE WHEN g.id % 6 = 0 THEN NULL ELSE 1 + (g.id * 3) % n_img END,
                                                        'reading_time', 1 + g.id % 20)
           ELSE '{}'::jsonb END
  FROM (SELECT u.id, u.parent, u.path, u.depth, u.type, u.title, u.loc, u.slug, u.url_path, u.in_private
          FROM unnest(ids, parents, paths, depths, types, titles, locs, slugs, urls, privs)
            AS u(id, parent, path, depth, type, title, loc, slug, url_path, in_private)) g;

  INSERT INTO content.sites (id, hostname, port, site_name, root_page, is_default_site) VALUES
    (1, 'www.lumenfield.test', 80, 'Lumenfield Gardens', 2, true),
    (2, 'journal.harbourline.test', 80, 'Harbourline Journal', 5, false),
    (3, 'shop.harbourline.test', 8080, 'Harbourline Shop', 6, false),
    (4, 'docs.harbourline.test', 443, 'Harbourline Docs', 9, false);
  ANALYZE content.pages; ANALYZE content.images; ANALYZE content.documents;
  RETURN format('%s pages (depth up to %s), %s images, %s documents, 4 sites, 3 locales',
    (SELECT count(*) FROM content.pages), (SELECT max(depth) FROM content.pages), n_img, n_doc);
END $gen$;

