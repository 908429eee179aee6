// Golden SQL for writes and calls: the exact statement each request compiles to, planned against
// the write.sql schema cache (loaded from a fresh database). A planner or builder change shows up
// here as SQL to read in review. Regenerate: build, then run dist/test/golden/write/print.js with
// DBREST_TEST_DB_URI set and paste its output below the bulk test; the expected strings are the
// contract (test/integration/write and test/integration/rpc prove the same shapes run).
import t from 'tap';
import { POSTCONDITION_MARK } from '../../../src/sql/mutate.js';
import { callStatement, mutateStatement, request, writeCache } from './cases.js';

/** The statement is one line; the expectations break it before keywords for reading. */
const lines = (...parts: string[]): string => parts.join(' ');

const { cache, drop } = await writeCache();
t.teardown(drop);

t.test('a bulk insert of 10,000 rows is ONE statement with ONE json parameter', async (t) => {
  const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: i + 1, name: `row ${i + 1}` }));
  const big = mutateStatement(cache, request(cache, 'POST', '/items', {}, rows));
  const small = mutateStatement(cache, request(cache, 'POST', '/items', {}, rows.slice(0, 2)));
  t.equal(big.values.length, 1, 'one parameter');
  t.equal(big.values[0], JSON.stringify(rows), 'the body itself, unchanged');
  t.equal(big.text, small.text, 'the SQL text does not grow with the rows (one prepared statement)');
  t.match(big.text, /FROM pg_catalog\.json_to_recordset\(\$1::json\) AS pgrst_body\("id" integer, "name" text\)/);
  t.notMatch(big.text, /\$2/);
});

t.test('CSV is converted once to the same JSON parameter', async (t) => {
  const s = mutateStatement(cache, request(cache, 'POST', '/items', { 'Content-Type': 'text/csv' }, 'id,name\n1,a\n2,NULL\n'));
  t.same(s.values, ['[{"id":"1","name":"a"},{"id":"2","name":null}]']);
});

t.test('hostile names and values stay quoted or bound', async (t) => {
  const s = mutateStatement(cache, request(cache, 'PATCH', `/items?name=eq.${encodeURIComponent("x'); DROP TABLE items; --")}`, {}, { name: 'y' }));
  t.match(s.text, /"items"\."name" = \$2/);
  t.same(s.values, ['{"name":"y"}', "x'); DROP TABLE items; --"]);
});

t.test("POST one object: json_to_record, RETURNING 1", async (t) => {
  const s = mutateStatement(cache, request(cache, 'POST', '/items', {}, { id: 1, name: 'a' }));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (INSERT INTO "public"."items" AS "items" ("id", "name")',
    'SELECT pgrst_body."id", pgrst_body."name"',
    'FROM pg_catalog.json_to_record($1::json) AS pgrst_body("id" integer, "name" text)',
    'RETURNING 1)',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_mutation) AS _postgrest_t',
  ));
  t.same(s.values, ["{\"id\":1,\"name\":\"a\"}"]);
});

t.test("POST an array: json_to_recordset", async (t) => {
  const s = mutateStatement(cache, request(cache, 'POST', '/items', {}, [{ id: 1, name: 'a' }, { id: 2, name: 'b' }]));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (INSERT INTO "public"."items" AS "items" ("id", "name")',
    'SELECT pgrst_body."id", pgrst_body."name"',
    'FROM pg_catalog.json_to_recordset($1::json) AS pgrst_body("id" integer, "name" text)',
    'RETURNING 1)',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_mutation) AS _postgrest_t',
  ));
  t.same(s.values, ["[{\"id\":1,\"name\":\"a\"},{\"id\":2,\"name\":\"b\"}]"]);
});

t.test("POST return=representation with select= and an embed over the written rows", async (t) => {
  const s = mutateStatement(cache, request(cache, 'POST', '/projects?select=id,name,clients(name)', { Prefer: 'return=representation' }, { name: 'a', client_id: 1 }));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (INSERT INTO "public"."projects" AS "projects" ("name", "client_id")',
    'SELECT pgrst_body."name", pgrst_body."client_id"',
    'FROM pg_catalog.json_to_record($1::json) AS pgrst_body("name" text, "client_id" integer)',
    'RETURNING "projects"."id", "projects"."name", "projects"."client_id"), pgrst_source AS (SELECT "projects"."id", "projects"."name", row_to_json("projects_clients_1".*) AS "clients"',
    'FROM pgrst_mutation AS "projects"',
    'LEFT JOIN',
    'LATERAL (SELECT "clients_1"."name"',
    'FROM "public"."clients" AS "clients_1"',
    'WHERE "clients_1"."id" = "projects"."client_id") AS "projects_clients_1" ON TRUE)',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t), '[]')::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_source) AS _postgrest_t',
  ));
  t.same(s.values, ["{\"name\":\"a\",\"client_id\":1}"]);
});

t.test("POST merge-duplicates on_conflict, headers-only: counted inserts, Location", async (t) => {
  const s = mutateStatement(cache, request(cache, 'POST', '/employees?on_conflict=name', { Prefer: 'resolution=merge-duplicates, return=headers-only' }, [{ id: 1, name: 'a' }]));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (INSERT INTO "public"."employees" AS "employees" ("id", "name")',
    'SELECT pgrst_body."id", pgrst_body."name"',
    'FROM pg_catalog.json_to_recordset($1::json) AS pgrst_body("id" integer, "name" text)',
    `WHERE pg_catalog.set_config('dbrest.inserted', (coalesce(nullif(pg_catalog.current_setting('dbrest.inserted', true), '')::integer, 0) + 1)::text, true) <> '0'`,
    'ON CONFLICT ("name")',
    'DO UPDATE SET "id" = EXCLUDED."id", "name" = EXCLUDED."name"',
    `WHERE pg_catalog.set_config('dbrest.inserted', (coalesce(nullif(pg_catalog.current_setting('dbrest.inserted', true), '')::integer, 0) - 1)::text, true) <> '-1'`,
    'RETURNING "employees"."id")',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, CASE WHEN pg_catalog.count(_postgrest_t) = 1 THEN (pg_catalog.json_agg(_postgrest_t) -> 0)::text END AS location, nullif(pg_catalog.current_setting('dbrest.inserted', true), '')::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_mutation) AS _postgrest_t',
  ));
  t.same(s.values, ["[{\"id\":1,\"name\":\"a\"}]"]);
});

t.test("POST ignore-duplicates", async (t) => {
  const s = mutateStatement(cache, request(cache, 'POST', '/employees', { Prefer: 'resolution=ignore-duplicates' }, [{ id: 1, name: 'a' }]));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (INSERT INTO "public"."employees" AS "employees" ("id", "name")',
    'SELECT pgrst_body."id", pgrst_body."name"',
    'FROM pg_catalog.json_to_recordset($1::json) AS pgrst_body("id" integer, "name" text)',
    'ON CONFLICT ("id") DO NOTHING',
    'RETURNING 1)',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_mutation) AS _postgrest_t',
  ));
  t.same(s.values, ["[{\"id\":1,\"name\":\"a\"}]"]);
});

t.test("POST missing=default: each element laid over its columns' defaults", async (t) => {
  const s = mutateStatement(cache, request(cache, 'POST', '/defaults?columns=label,n', { Prefer: 'missing=default' }, [{ label: 'x' }]));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (INSERT INTO "public"."defaults" AS "defaults" ("label", "n")',
    'SELECT pgrst_body."label", pgrst_body."n"',
    'FROM (SELECT $1::jsonb AS json_data) pgrst_payload,',
    `LATERAL (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object($2::text, 'none'::text, $3::text, 42) || elem) AS val`,
    'FROM pg_catalog.jsonb_array_elements(pgrst_payload.json_data) AS elem) pgrst_json_defs,',
    'LATERAL (SELECT "label", "n"',
    'FROM pg_catalog.jsonb_to_recordset(pgrst_json_defs.val) AS _("label" text, "n" integer)) pgrst_body',
    'RETURNING 1)',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_mutation) AS _postgrest_t',
  ));
  t.same(s.values, ["[{\"label\":\"x\"}]","label","n"]);
});

t.test("PATCH with filters and strict max-affected: the postcondition", async (t) => {
  const s = mutateStatement(cache, request(cache, 'PATCH', '/items?id=gt.1&name=like.a*', { Prefer: 'handling=strict, max-affected=5' }, { qty: 3 }));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (UPDATE "public"."items" AS "items" SET "qty" = pgrst_body."qty"',
    'FROM pg_catalog.json_to_record($1::json) AS pgrst_body("qty" integer)',
    'WHERE "items"."id" > $2 AND "items"."name" LIKE $3',
    'RETURNING 1)',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, CASE WHEN pg_catalog.count(_postgrest_t) > $4::bigint THEN ($5::text || (pg_catalog.count(_postgrest_t))::text)::integer END AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_mutation) AS _postgrest_t',
  ));
  t.same(s.values, ["{\"qty\":3}","1","a%",5,`${POSTCONDITION_MARK} DBRST124 `]);
});

t.test("PATCH limited by order and limit: rows chosen first, matched by ctid", async (t) => {
  const s = mutateStatement(cache, request(cache, 'PATCH', '/items?qty=gt.1&order=id.desc&limit=2', {}, { qty: 3 }));
  t.equal(s.text, lines(
    'WITH pgrst_affected_rows AS (SELECT "items".tableoid AS pgrst_tableoid, "items".ctid AS pgrst_ctid',
    'FROM "public"."items" AS "items"',
    'WHERE "items"."qty" > $1',
    'ORDER BY "items"."id" DESC',
    'LIMIT 2), pgrst_mutation AS (UPDATE "public"."items" AS "items" SET "qty" = pgrst_body."qty"',
    'FROM pg_catalog.json_to_record($2::json) AS pgrst_body("qty" integer), pgrst_affected_rows',
    'WHERE "items".tableoid = pgrst_affected_rows.pgrst_tableoid AND "items".ctid = pgrst_affected_rows.pgrst_ctid',
    'RETURNING 1)',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, CASE WHEN pg_catalog.count(_postgrest_t) > $3::bigint THEN ($4::text || (pg_catalog.count(_postgrest_t))::text)::integer END AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_mutation) AS _postgrest_t',
  ));
  t.same(s.values, ["1","{\"qty\":3}",2,`${POSTCONDITION_MARK} DBRST110 `]);
});

t.test("PATCH with an empty body changes nothing", async (t) => {
  const s = mutateStatement(cache, request(cache, 'PATCH', '/items?id=eq.1', { Prefer: 'return=representation' }, {}));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (SELECT "items".*',
    'FROM "public"."items" AS "items"',
    'WHERE false), pgrst_source AS (SELECT "items".*',
    'FROM pgrst_mutation AS "items")',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t), '[]')::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_source) AS _postgrest_t',
  ));
  t.same(s.values, []);
});

t.test("DELETE with representation, singular", async (t) => {
  const s = mutateStatement(cache, request(cache, 'DELETE', '/items?id=eq.1', { Prefer: 'return=representation' }), true);
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (DELETE',
    'FROM "public"."items" AS "items"',
    'WHERE "items"."id" = $1',
    'RETURNING "items".*), pgrst_source AS (SELECT "items".*',
    'FROM pgrst_mutation AS "items")',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t), '[]')::text AS body, NULL::text AS location, NULL::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, CASE WHEN pg_catalog.count(_postgrest_t) <> 1 THEN ($2::text || (pg_catalog.count(_postgrest_t))::text)::integer END AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_source) AS _postgrest_t',
  ));
  t.same(s.values, ["1",`${POSTCONDITION_MARK} DBRST116 `]);
});

t.test("PUT: the URL key filters the payload row, exactly one row or DBRST115", async (t) => {
  const s = mutateStatement(cache, request(cache, 'PUT', '/employees?id=eq.4', {}, { id: 4, name: 'x', salary: 1 }));
  t.equal(s.text, lines(
    'WITH pgrst_mutation AS (INSERT INTO "public"."employees" AS "employees" ("id", "name", "salary")',
    'SELECT pgrst_body."id", pgrst_body."name", pgrst_body."salary"',
    'FROM pg_catalog.json_to_record($1::json) AS pgrst_body("id" integer, "name" text, "salary" integer)',
    `WHERE pg_catalog.set_config('dbrest.inserted', (coalesce(nullif(pg_catalog.current_setting('dbrest.inserted', true), '')::integer, 0) + 1)::text, true) <> '0' AND "pgrst_body"."id" = $2`,
    'ON CONFLICT ("id")',
    'DO UPDATE SET "id" = EXCLUDED."id", "name" = EXCLUDED."name", "salary" = EXCLUDED."salary"',
    `WHERE pg_catalog.set_config('dbrest.inserted', (coalesce(nullif(pg_catalog.current_setting('dbrest.inserted', true), '')::integer, 0) - 1)::text, true) <> '-1'`,
    'RETURNING 1)',
    `SELECT pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, NULL::text AS location, nullif(pg_catalog.current_setting('dbrest.inserted', true), '')::integer AS inserted, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, CASE WHEN pg_catalog.count(_postgrest_t) <> 1 THEN ($3::text || (pg_catalog.count(_postgrest_t))::text)::integer END AS postcondition`,
    'FROM (SELECT *',
    'FROM pgrst_mutation) AS _postgrest_t',
  ));
  t.same(s.values, ["{\"id\":4,\"name\":\"x\",\"salary\":1}","4",`${POSTCONDITION_MARK} DBRST115 `]);
});

t.test("GET /rpc: typed arguments, a scalar", async (t) => {
  const s = callStatement(cache, request(cache, 'GET', '/rpc/add?a=1&b=2'));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT pgrst_call.pgrst_scalar',
    'FROM (SELECT "public"."add"("a" := $1::integer, "b" := $2::integer) AS pgrst_scalar OFFSET 0) pgrst_call)',
    `SELECT NULL::bigint AS total_count, pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t.pgrst_scalar) -> 0, 'null')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT "pgrst_call".*',
    'FROM pgrst_source AS "pgrst_call") AS _postgrest_t',
  ));
  t.same(s.values, ["1","2"]);
});

t.test("POST /rpc: the JSON body as one parameter unpacked by json_to_record", async (t) => {
  const s = callStatement(cache, request(cache, 'POST', '/rpc/add', {}, { a: 1, b: 2 }));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT pgrst_call.pgrst_scalar',
    'FROM pg_catalog.json_to_record($1::json) AS pgrst_body("a" integer, "b" integer),',
    'LATERAL (SELECT "public"."add"("a" := pgrst_body."a", "b" := pgrst_body."b") AS pgrst_scalar OFFSET 0) pgrst_call)',
    `SELECT NULL::bigint AS total_count, pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t.pgrst_scalar) -> 0, 'null')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT "pgrst_call".*',
    'FROM pgrst_source AS "pgrst_call") AS _postgrest_t',
  ));
  t.same(s.values, ["{\"a\":1,\"b\":2}"]);
});

t.test("VARIADIC: repeated arguments as one array parameter", async (t) => {
  const s = callStatement(cache, request(cache, 'GET', '/rpc/vsum?xs=1&xs=2'));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT pgrst_call.pgrst_scalar',
    'FROM (SELECT "public"."vsum"(VARIADIC "xs" := $1::integer[]) AS pgrst_scalar OFFSET 0) pgrst_call)',
    `SELECT NULL::bigint AS total_count, pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t.pgrst_scalar) -> 0, 'null')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT "pgrst_call".*',
    'FROM pgrst_source AS "pgrst_call") AS _postgrest_t',
  ));
  t.same(s.values, [["1","2"]]);
});

t.test("a single unnamed json parameter takes the body", async (t) => {
  const s = callStatement(cache, request(cache, 'POST', '/rpc/echo_json', {}, { x: 1 }));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT pgrst_call.pgrst_scalar',
    'FROM (SELECT "public"."echo_json"($1::json) AS pgrst_scalar OFFSET 0) pgrst_call)',
    `SELECT NULL::bigint AS total_count, pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t.pgrst_scalar) -> 0, 'null')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT "pgrst_call".*',
    'FROM pgrst_source AS "pgrst_call") AS _postgrest_t',
  ));
  t.same(s.values, ["{\"x\":1}"]);
});

t.test("SETOF a table: select, filters, order, limit and an exact count over the call", async (t) => {
  const s = callStatement(cache, request(cache, 'GET', '/rpc/all_items?select=id,name&qty=gt.1&order=id&limit=2'), 'json', true);
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT pgrst_call.*',
    'FROM "public"."all_items"() pgrst_call)',
    'SELECT (SELECT pg_catalog.count(*)',
    'FROM (SELECT 1',
    'FROM pgrst_source AS "items"',
    `WHERE "items"."qty" > $1) AS pgrst_count) AS total_count, pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT "items"."id", "items"."name"',
    'FROM pgrst_source AS "items"',
    'WHERE "items"."qty" > $2',
    'ORDER BY "items"."id"',
    'LIMIT 2) AS _postgrest_t',
  ));
  t.same(s.values, ["1","1"]);
});

t.test("RETURNS TABLE", async (t) => {
  const s = callStatement(cache, request(cache, 'GET', '/rpc/item_names?min_qty=1'));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT pgrst_call.*',
    'FROM "public"."item_names"("min_qty" := $1::integer) pgrst_call)',
    `SELECT NULL::bigint AS total_count, pg_catalog.count(_postgrest_t) AS page_count, coalesce(pg_catalog.json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT "pgrst_call".*',
    'FROM pgrst_source AS "pgrst_call") AS _postgrest_t',
  ));
  t.same(s.values, ["1"]);
});

t.test("void", async (t) => {
  const s = callStatement(cache, request(cache, 'POST', '/rpc/write_audit', {}, { note: 'x' }));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT pgrst_call.pgrst_scalar',
    'FROM pg_catalog.json_to_record($1::json) AS pgrst_body("note" text),',
    'LATERAL (SELECT "public"."write_audit"("note" := pgrst_body."note") AS pgrst_scalar OFFSET 0) pgrst_call)',
    `SELECT NULL::bigint AS total_count, pg_catalog.count(_postgrest_t) AS page_count, NULL::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, NULL::integer AS postcondition`,
    'FROM (SELECT "pgrst_call".*',
    'FROM pgrst_source AS "pgrst_call") AS _postgrest_t',
  ));
  t.same(s.values, ["{\"note\":\"x\"}"]);
});

