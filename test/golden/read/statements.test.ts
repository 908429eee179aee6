// Golden SQL for representative reads: the exact text and parameters sql/read.ts compiles.
// A planner or builder change shows up here as SQL to read in review. Regenerate by hand: the
// expected strings are the contract (integration tests prove the same shapes run).
import t from 'tap';
import { compile, sql } from '../../../src/sql/fragment.js';
import { buildPlannedCountStatement, buildReadBody, buildReadRowsStatement, buildReadStatement } from '../../../src/sql/read.js';
import { planOk } from '../../unit/plan/query.js';
import { RESPONSE_CAP_MARK } from '../../../src/sql/response-cap.js';

void sql;

/** The statement is one line; the expectations break it before keywords for reading. */
const lines = (...parts: string[]): string => parts.join(' ');

t.test("a plain read without count", async (t) => {
  const s = compile(buildReadStatement(planOk('projects', 'select=id,name&id=eq.1'), { count: null, maxRows: null }));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT "projects"."id", "projects"."name"',
    'FROM "test"."projects" AS "projects"',
    'WHERE "projects"."id" = $1)',
    'SELECT NULL::bigint AS total_count, pg_catalog.count(*) AS page_count, coalesce(json_agg(_postgrest_t), \'[]\')::text AS body, nullif(current_setting(\'response.headers\', true), \'\') AS response_headers, nullif(current_setting(\'response.status\', true), \'\') AS response_status',
    'FROM (SELECT *',
    'FROM pgrst_source) AS _postgrest_t',
  ));
  t.same(s.values, ["1"]);
});

t.test("three levels of embedding (m2o, o2m, m2m) in ONE statement, exact count", async (t) => {
  const s = compile(buildReadStatement(planOk('projects', 'select=id,name,clients(name),tasks(name,users(name))&id=gt.1&order=name&limit=2'), { count: 'exact', maxRows: null }));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT "projects"."id", "projects"."name", row_to_json("projects_clients_1".*) AS "clients", COALESCE("projects_tasks_1"."projects_tasks_1", \'[]\') AS "tasks"',
    // The page is chosen on projects alone; only its rows are joined to the embeds.
    'FROM (SELECT "projects".*',
    'FROM "test"."projects" AS "projects"',
    'WHERE "projects"."id" > $1',
    'ORDER BY "projects"."name"',
    'LIMIT 2) AS "projects"',
    'LEFT JOIN LATERAL (SELECT "clients_1"."name"',
    'FROM "test"."clients" AS "clients_1"',
    'WHERE "clients_1"."id" = "projects"."client_id") AS "projects_clients_1" ON TRUE',
    'LEFT JOIN LATERAL (SELECT json_agg("projects_tasks_1") AS "projects_tasks_1"',
    'FROM (SELECT "tasks_1"."name", COALESCE("tasks_users_2"."tasks_users_2", \'[]\') AS "users"',
    'FROM "test"."tasks" AS "tasks_1"',
    'LEFT JOIN LATERAL (SELECT json_agg("tasks_users_2") AS "tasks_users_2"',
    'FROM (SELECT "users_2"."name"',
    'FROM "test"."users" AS "users_2", "test"."users_tasks"',
    'WHERE "users_2"."id" = "test"."users_tasks"."user_id" AND "test"."users_tasks"."task_id" = "tasks_1"."id") AS "tasks_users_2") AS "tasks_users_2" ON TRUE',
    'WHERE "tasks_1"."project_id" = "projects"."id") AS "projects_tasks_1") AS "projects_tasks_1" ON TRUE',
    'ORDER BY "projects"."name")',
    'SELECT (SELECT pg_catalog.count(*)',
    'FROM (SELECT 1',
    'FROM "test"."projects" AS "projects"',
    'WHERE "projects"."id" > $2) AS pgrst_count) AS total_count, pg_catalog.count(*) AS page_count, coalesce(json_agg(_postgrest_t), \'[]\')::text AS body, nullif(current_setting(\'response.headers\', true), \'\') AS response_headers, nullif(current_setting(\'response.status\', true), \'\') AS response_status',
    'FROM (SELECT *',
    'FROM pgrst_source) AS _postgrest_t',
  ));
  t.same(s.values, ["1","1"]);
});

t.test("operators: in, like(any), fts with language, JSON paths, is, not, logic trees", async (t) => {
  const s = compile(buildReadRowsStatement(planOk('items', 'select=id&id=in.(1,2)&name=like(any).{a*,*b}&search=fts(english).apple&data->>color=eq.red&data->tags->0=eq.x&active=not.is.true&or=(rating.gt.1,not.and(tags.cs.{a},price_range.adj."[1,2)"))')));
  t.equal(s.text, lines(
    'SELECT "items"."id"',
    'FROM "test"."items" AS "items"',
    'WHERE "items"."id" = ANY($1) AND "items"."name" LIKE ANY($2) AND "items"."search" @@ to_tsquery($3::regconfig, $4) AND "items"."data"->>$5 = $6 AND "items"."data"->$7->$8::integer = $9 AND NOT "items"."active" IS TRUE AND ("items"."rating" > $10 OR NOT ("items"."tags" @> $11 AND "items"."price_range" -|- $12))',
  ));
  t.same(s.values, ["{\"1\",\"2\"}","{\"a%\",\"%b\"}","english","apple","color","red","tags",0,"x","1","{a}","[1,2)"]);
});

t.test("!inner to-many, spread, null-embed filter, related order, estimated count with db-max-rows", async (t) => {
  const s = compile(buildReadStatement(planOk('projects', 'select=name,...clients(client:name),tasks!inner(name)&tasks.name=like.Design*&clients=not.is.null&order=clients(client).desc.nullslast&tasks.order=id&tasks.limit=1', { maxRows: 100 }), { count: 'estimated', maxRows: 100 }));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT "projects"."name", "projects_clients_1".*, COALESCE("projects_tasks_1"."projects_tasks_1", \'[]\') AS "tasks"',
    'FROM "test"."projects" AS "projects"',
    'LEFT JOIN LATERAL (SELECT "clients_1"."name" AS "client"',
    'FROM "test"."clients" AS "clients_1"',
    'WHERE "clients_1"."id" = "projects"."client_id"',
    'LIMIT 100) AS "projects_clients_1" ON TRUE',
    'INNER JOIN LATERAL (SELECT json_agg("projects_tasks_1") AS "projects_tasks_1"',
    'FROM (SELECT "tasks_1"."name"',
    'FROM "test"."tasks" AS "tasks_1"',
    'WHERE "tasks_1"."project_id" = "projects"."id" AND "tasks_1"."name" LIKE $1',
    'ORDER BY "tasks_1"."id"',
    'LIMIT 1) AS "projects_tasks_1") AS "projects_tasks_1" ON "projects_tasks_1"."projects_tasks_1" IS NOT NULL',
    'WHERE "projects_clients_1" IS DISTINCT',
    'FROM NULL',
    'ORDER BY "projects_clients_1"."client" DESC NULLS LAST',
    'LIMIT 100)',
    'SELECT (SELECT pg_catalog.count(*)',
    'FROM (SELECT 1',
    'FROM "test"."projects" AS "projects"',
    'WHERE EXISTS (SELECT 1',
    'FROM "test"."clients" AS "clients_1"',
    'WHERE "clients_1"."id" = "projects"."client_id") AND EXISTS (SELECT 1',
    'FROM "test"."tasks" AS "tasks_1"',
    'WHERE "tasks_1"."project_id" = "projects"."id" AND "tasks_1"."name" LIKE $2)',
    'LIMIT 101) AS pgrst_count) AS total_count, pg_catalog.count(*) AS page_count, coalesce(json_agg(_postgrest_t), \'[]\')::text AS body, nullif(current_setting(\'response.headers\', true), \'\') AS response_headers, nullif(current_setting(\'response.status\', true), \'\') AS response_status',
    'FROM (SELECT *',
    'FROM pgrst_source) AS _postgrest_t',
  ));
  t.same(s.values, ["Design%","Design%"]);
});

t.test("aggregates group by position and by embedded JSON as jsonb", async (t) => {
  const s = compile(buildReadRowsStatement(planOk('project_invoices', 'select=project_id,total:invoice_total.sum()::text,projects(name),pid:project_id::text&order=project_id')));
  t.equal(s.text, lines(
    'SELECT "project_invoices"."project_id", CAST(SUM("project_invoices"."invoice_total") AS text) AS "total", CAST("project_invoices"."project_id" AS text) AS "pid", (row_to_json("project_invoices_projects_1".*))::jsonb AS "projects"',
    'FROM "test"."project_invoices" AS "project_invoices"',
    'LEFT JOIN LATERAL (SELECT "projects_1"."name"',
    'FROM "test"."projects" AS "projects_1"',
    'WHERE "projects_1"."id" = "project_invoices"."project_id") AS "project_invoices_projects_1" ON TRUE',
    'GROUP BY 1, 3, (row_to_json("project_invoices_projects_1".*))::jsonb',
    'ORDER BY 1',
  ));
  t.same(s.values, []);
});

t.test("count() with an embedded array", async (t) => {
  const s = compile(buildReadRowsStatement(planOk('clients', 'select=count(),projects(name)')));
  t.equal(s.text, lines(
    'SELECT COUNT(*) AS "count", (COALESCE("clients_projects_1"."clients_projects_1", \'[]\'))::jsonb AS "projects"',
    'FROM "test"."clients" AS "clients"',
    'LEFT JOIN LATERAL (SELECT json_agg("clients_projects_1") AS "clients_projects_1"',
    'FROM (SELECT "projects_1"."name"',
    'FROM "test"."projects" AS "projects_1"',
    'WHERE "projects_1"."client_id" = "clients"."id") AS "clients_projects_1") AS "clients_projects_1" ON TRUE',
    'GROUP BY (COALESCE("clients_projects_1"."clients_projects_1", \'[]\'))::jsonb',
  ));
  t.same(s.values, []);
});

t.test("planned count: EXPLAIN of the count query, !inner as EXISTS", async (t) => {
  const s = compile(buildPlannedCountStatement(planOk('clients', 'select=name,projects!inner(name)&projects.name=eq.x&id=lt.3')));
  t.equal(s.text, lines(
    'EXPLAIN (FORMAT JSON)',
    'SELECT 1',
    'FROM "test"."clients" AS "clients"',
    'WHERE "clients"."id" < $1 AND EXISTS (SELECT 1',
    'FROM "test"."projects" AS "projects_1"',
    'WHERE "projects_1"."client_id" = "clients"."id" AND "projects_1"."name" = $2)',
  ));
  t.same(s.values, ["3","x"]);
});

t.test("the write seam: select, embeds and the root order over pgrst_source, root filters/range left to the caller", async (t) => {
  // The root order sorts a write's representation (PostgREST: PATCH /t?order=id.desc answers in that order).
  const s = compile(buildReadBody(sql`pgrst_source`, planOk('projects', 'select=name,clients(name)&id=eq.1&order=name&limit=1')));
  t.equal(s.text, lines(
    'SELECT "projects"."name", row_to_json("projects_clients_1".*) AS "clients"',
    'FROM pgrst_source AS "projects"',
    'LEFT JOIN LATERAL (SELECT "clients_1"."name"',
    'FROM "test"."clients" AS "clients_1"',
    'WHERE "clients_1"."id" = "projects"."client_id") AS "projects_clients_1" ON TRUE',
    'ORDER BY "projects"."name"',
  ));
  t.same(s.values, []);
});

t.test("computed relationships call the function with the parent row", async (t) => {
  const s = compile(buildReadRowsStatement(planOk('projects', 'select=name,client_of(name),all_tasks(name)')));
  t.equal(s.text, lines(
    'SELECT "projects"."name", row_to_json("projects_client_of_1".*) AS "client_of", COALESCE("projects_all_tasks_1"."projects_all_tasks_1", \'[]\') AS "all_tasks"',
    'FROM "test"."projects" AS "projects"',
    'LEFT JOIN LATERAL (SELECT "clients_1"."name"',
    'FROM "test"."client_of"("projects"::"test"."projects") AS "clients_1") AS "projects_client_of_1" ON TRUE',
    'LEFT JOIN LATERAL (SELECT json_agg("projects_all_tasks_1") AS "projects_all_tasks_1"',
    'FROM (SELECT "tasks_1"."name"',
    'FROM "test"."all_tasks"("projects"::"test"."projects") AS "tasks_1") AS "projects_all_tasks_1") AS "projects_all_tasks_1" ON TRUE',
  ));
  t.same(s.values, []);
});

t.test("self embed (parent by FK column, children by table name), star and a cast", async (t) => {
  const s = compile(buildReadRowsStatement(planOk('family_tree', 'select=*,parent(name::text),children:family_tree(id)')));
  t.equal(s.text, lines(
    'SELECT "family_tree".*, row_to_json("family_tree_parent_1".*) AS "parent", COALESCE("family_tree_children_1"."family_tree_children_1", \'[]\') AS "children"',
    'FROM "test"."family_tree" AS "family_tree"',
    'LEFT JOIN LATERAL (SELECT CAST("family_tree_1"."name" AS text) AS "name"',
    'FROM "test"."family_tree" AS "family_tree_1"',
    'WHERE "family_tree_1"."id" = "family_tree"."parent") AS "family_tree_parent_1" ON TRUE',
    'LEFT JOIN LATERAL (SELECT json_agg("family_tree_children_1") AS "family_tree_children_1"',
    'FROM (SELECT "family_tree_1"."id"',
    'FROM "test"."family_tree" AS "family_tree_1"',
    'WHERE "family_tree_1"."parent" = "family_tree"."id") AS "family_tree_children_1") AS "family_tree_children_1" ON TRUE',
  ));
  t.same(s.values, []);
});

t.test("one-to-one and a disambiguated embed with offset", async (t) => {
  const s = compile(buildReadRowsStatement(planOk('users', 'select=name,sent:messages!sender(body)&sent.offset=1&sent.order=id.desc')));
  t.equal(s.text, lines(
    'SELECT "users"."name", COALESCE("users_sent_1"."users_sent_1", \'[]\') AS "sent"',
    'FROM "test"."users" AS "users"',
    'LEFT JOIN LATERAL (SELECT json_agg("users_sent_1") AS "users_sent_1"',
    'FROM (SELECT "messages_1"."body"',
    'FROM "test"."messages" AS "messages_1"',
    'WHERE "messages_1"."sender" = "users"."id"',
    'ORDER BY "messages_1"."id" DESC OFFSET 1) AS "users_sent_1") AS "users_sent_1" ON TRUE',
  ));
  t.same(s.values, []);
});

t.test("to-many spread: one json_agg per column in the LATERAL, COALESCE to [] in the parent, a nested to-one spread flattened", async (t) => {
  const s = compile(buildReadRowsStatement(planOk('clients', 'select=name,...projects(project:name,...clients(owner:name))&projects=not.is.null&projects.order=id')));
  t.equal(s.text, lines(
    'SELECT "clients"."name", COALESCE("clients_projects_1"."project", \'[]\') AS "project", COALESCE("clients_projects_1"."owner", \'[]\') AS "owner"',
    'FROM "test"."clients" AS "clients"',
    'LEFT JOIN LATERAL (SELECT json_agg("clients_projects_1"."project") AS "project", json_agg("clients_projects_1"."owner") AS "owner", bool_or(TRUE) AS "clients_projects_1"',
    'FROM (SELECT "projects_1"."name" AS "project", "projects_clients_2".*',
    'FROM "test"."projects" AS "projects_1"',
    'LEFT JOIN LATERAL (SELECT "clients_2"."name" AS "owner"',
    'FROM "test"."clients" AS "clients_2"',
    'WHERE "clients_2"."id" = "projects_1"."client_id") AS "projects_clients_2" ON TRUE',
    'WHERE "projects_1"."client_id" = "clients"."id"',
    'ORDER BY "projects_1"."id") AS "clients_projects_1") AS "clients_projects_1" ON TRUE',
    'WHERE "clients_projects_1"."clients_projects_1" IS NOT NULL',
  ));
  t.same(s.values, []);
});

t.test("aggregates inside a to-one spread: the LATERAL outputs raw values (count() as 1), the parent aggregates and groups", async (t) => {
  const s = compile(buildReadRowsStatement(planOk('projects', 'select=id,...clients(client:name,n:id.count()::text,count())&order=id')));
  t.equal(s.text, lines(
    'SELECT "projects"."id", "projects_clients_1"."client", CAST(COUNT("projects_clients_1"."n") AS text) AS "n", COUNT("projects_clients_1"."count") AS "count"',
    'FROM "test"."projects" AS "projects"',
    'LEFT JOIN LATERAL (SELECT "clients_1"."name" AS "client", "clients_1"."id" AS "n", 1 AS "count"',
    'FROM "test"."clients" AS "clients_1"',
    'WHERE "clients_1"."id" = "projects"."client_id") AS "projects_clients_1" ON TRUE',
    'GROUP BY 1, 2',
    'ORDER BY 1',
  ));
  t.same(s.values, []);
});

t.test('server-max-response-bytes: the envelope is a subquery and the cap measures its body column (built once)', async (t) => {
  const s = compile(buildReadStatement(planOk('projects', 'select=id&id=eq.1'), { count: null, maxRows: null, maxResponseBytes: 1000 }));
  t.equal(s.text, lines(
    'WITH pgrst_source AS (SELECT "projects"."id"',
    'FROM "test"."projects" AS "projects"',
    'WHERE "projects"."id" = $1)',
    'SELECT pgrst_envelope.*, CASE WHEN pg_catalog.octet_length(pgrst_envelope.body) > $2::bigint THEN ($3::text || (pg_catalog.octet_length(pgrst_envelope.body))::text)::integer END AS response_cap',
    'FROM (SELECT NULL::bigint AS total_count, pg_catalog.count(*) AS page_count, coalesce(json_agg(_postgrest_t), \'[]\')::text AS body, nullif(current_setting(\'response.headers\', true), \'\') AS response_headers, nullif(current_setting(\'response.status\', true), \'\') AS response_status',
    'FROM (SELECT *',
    'FROM pgrst_source) AS _postgrest_t) AS pgrst_envelope',
  ));
  t.same(s.values, ['1', 1000, `${RESPONSE_CAP_MARK} 1000 `]);
});
