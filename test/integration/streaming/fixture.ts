// Shared SQL for the streaming suites: values of every kind PostgreSQL prints its own way, a
// table large enough to stream, set-returning functions, one that fails part-way, a slow one.
import { nologinRolesSql } from '../../helpers/db.js';

export const STREAM_SQL = `
${nologinRolesSql('stream_anon', 'stream_user')}
GRANT stream_anon, stream_user TO CURRENT_USER;
CREATE SCHEMA stream;
GRANT USAGE ON SCHEMA stream TO stream_anon, stream_user;
CREATE TYPE stream.pair AS (a int, b text);
CREATE TABLE stream.vals (
  id int PRIMARY KEY, arr int[], tarr text[], rng int4range, tsv tsvector, js json, jb jsonb,
  comp stream.pair, txt text, n numeric, b bool, ts timestamptz, bytes bytea);
INSERT INTO stream.vals VALUES
  (1, '{1,2}', '{"a b","c,d",NULL}', '[1,5)', 'a fat cat', '{"a": [1, 2]}', '{"b": "x, y"}', ROW(1, 'x "y"'), 'plain', 1.50, true, '2024-01-02 03:04:05+00', '\\xdeadbeef'),
  (2, NULL, '{}', 'empty', '', 'null', '[]', NULL, E'comma, "quote"\\nnewline\\\\back', NULL, false, NULL, ''),
  (3, '{}', NULL, NULL, NULL, NULL, NULL, ROW(NULL, ''), '', -0.0, NULL, 'infinity', NULL),
  (4, '{{1,2},{3,4}}', '{"(x)"}', '(,10]', 'b:1A c', '"s"', '{"k": null}', ROW(2, '(p)'), ' lead', 1e10, true, NULL, '\\x00');
CREATE TABLE stream.big (id int PRIMARY KEY, name text, tags text[], owner text);
INSERT INTO stream.big SELECT g, 'row ' || g, ARRAY['t' || g, 'x,y'], CASE WHEN g % 2 = 0 THEN 'stream_user' END FROM generate_series(1, 3000) g;
ALTER TABLE stream.big ENABLE ROW LEVEL SECURITY;
CREATE POLICY anon_all ON stream.big TO stream_anon USING (true);
CREATE POLICY user_own ON stream.big TO stream_user USING (owner = current_user);
GRANT SELECT ON stream.vals, stream.big TO stream_anon, stream_user;
GRANT INSERT ON stream.big TO stream_anon;
CREATE VIEW stream.boom AS SELECT id, CASE WHEN id > 2500 THEN 1 / (id - id) ELSE id END AS v FROM stream.big;
GRANT SELECT ON stream.boom TO stream_anon;
-- 9 million rows, produced lazily (a nested loop): only a cursor can serve it in bounded memory.
CREATE VIEW stream.huge AS SELECT a.id::bigint * 10000 + b.id AS id, 'some text to make the row longer' AS pad FROM stream.big a CROSS JOIN stream.big b;
GRANT SELECT ON stream.huge TO stream_anon;
CREATE FUNCTION stream.big_rows(n int) RETURNS SETOF stream.big LANGUAGE sql STABLE AS $$ SELECT * FROM stream.big WHERE id <= n ORDER BY id $$;
CREATE FUNCTION stream.nums(n int) RETURNS SETOF int LANGUAGE sql STABLE AS $$ SELECT g FROM generate_series(1, n) g $$;
CREATE FUNCTION stream.arrs(n int) RETURNS SETOF int[] LANGUAGE sql STABLE AS $$ SELECT ARRAY[g, g] FROM generate_series(1, n) g $$;
CREATE FUNCTION stream.sleepy(s float8) RETURNS SETOF int LANGUAGE sql STABLE AS $$ SELECT 1 FROM pg_sleep(s) $$;
CREATE FUNCTION stream.who(n int) RETURNS TABLE (i int, usr text, claim text) LANGUAGE sql STABLE AS $$
  SELECT g, current_user::text, current_setting('request.jwt.claims', true)::json->>'sub' FROM generate_series(1, n) g $$;
CREATE FUNCTION stream.tag_response(n int) RETURNS SETOF int LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM set_config('response.headers', '[{"X-Rows": "' || n || '"}]', true);
  RETURN QUERY SELECT g FROM generate_series(1, n) g;
END $$;
CREATE FUNCTION stream.pre() RETURNS void LANGUAGE sql AS $$
  SELECT set_config('response.headers', '[{"X-Pre": "' || current_user || '"}]', true) $$;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA stream TO stream_anon, stream_user;
`;
