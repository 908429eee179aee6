// Golden SQL of the media-type bodies (sql/media.ts): what replaces the JSON array when a handler
// or raw output was negotiated. Names go through qualified()/ident(), so hostile catalog names stay
// quoted; nothing of the request reaches the text.
import t from 'tap';
import { compile } from '../../../src/sql/fragment.js';
import { mediaBodySql } from '../../../src/sql/media.js';
import { buildReadStatement } from '../../../src/sql/read.js';
import { planOk } from '../../unit/plan/query.js';

const text = (b: Parameters<typeof mediaBodySql>[0]) => compile(mediaBodySql(b)).text;

t.test('aggregate handlers over the rows', async (t) => {
  const agg = { schema: 'test', name: 'twkb_agg' };
  t.equal(text({ kind: 'aggregate', aggregate: agg, relation: { schema: 'test', name: 'lines' }, scalar: false, binary: true }),
    '"test"."twkb_agg"(_postgrest_t::"test"."lines")', 'a relation\'s: the row cast to its type (PostgREST customFuncF); a bytea domain uncast');
  t.equal(text({ kind: 'aggregate', aggregate: agg, relation: null, scalar: false, binary: false }),
    '("test"."twkb_agg"(_postgrest_t))::text', 'anyelement');
  t.equal(text({ kind: 'aggregate', aggregate: agg, relation: null, scalar: true, binary: false }),
    '("test"."twkb_agg"(_postgrest_t.pgrst_scalar))::text', 'over a scalar call');
  t.equal(text({ kind: 'aggregate', aggregate: { schema: 'x"y', name: 'a"; DROP TABLE t; --' }, relation: { schema: 's', name: 'r"' }, scalar: false, binary: false }),
    '("x""y"."a""; DROP TABLE t; --"(_postgrest_t::"s"."r"""))::text', 'hostile names stay identifiers');
});

t.test('a function\'s own value, raw columns, HEAD', async (t) => {
  t.equal(text({ kind: 'value', binary: true }), '((pg_catalog.array_agg(_postgrest_t.pgrst_scalar))[1])::bytea');
  t.equal(text({ kind: 'raw', column: 'img', output: 'binary', columnIsBytea: true }), 'coalesce(pg_catalog.string_agg(_postgrest_t."img", \'\'::bytea), \'\'::bytea)');
  t.equal(text({ kind: 'raw', column: 'note', output: 'binary', columnIsBytea: false }), 'pg_catalog.convert_to(coalesce(pg_catalog.string_agg((_postgrest_t."note")::text, \'\'), \'\'), \'UTF8\')');
  t.equal(text({ kind: 'raw', column: 'no"te', output: 'text', columnIsBytea: false }), 'coalesce(pg_catalog.string_agg((_postgrest_t."no""te")::text, \'\'), \'\')');
  t.equal(text({ kind: 'raw', column: 'doc', output: 'xml', columnIsBytea: false }), 'coalesce(pg_catalog.textin(pg_catalog.xml_out(pg_catalog.xmlagg((_postgrest_t."doc")::xml))), \'\')');
  t.equal(text({ kind: 'none' }), 'NULL::text');
});

t.test('in a read statement, one round trip: the body column replaces the JSON array', async (t) => {
  const body = mediaBodySql({ kind: 'aggregate', aggregate: { schema: 'test', name: 'tsv_agg' }, relation: { schema: 'test', name: 'projects' }, scalar: false, binary: false });
  const s = compile(buildReadStatement(planOk('projects', 'id=gt.1&order=id&limit=2'), { count: null, maxRows: null, body }));
  t.equal(s.text, [
    'WITH pgrst_source AS (SELECT "projects".* FROM "test"."projects" AS "projects" WHERE "projects"."id" > $1 ORDER BY "projects"."id" LIMIT 2)',
    'SELECT NULL::bigint AS total_count, pg_catalog.count(*) AS page_count, ("test"."tsv_agg"(_postgrest_t::"test"."projects"))::text AS body,',
    'nullif(current_setting(\'response.headers\', true), \'\') AS response_headers, nullif(current_setting(\'response.status\', true), \'\') AS response_status',
    'FROM (SELECT * FROM pgrst_source) AS _postgrest_t',
  ].join(' '));
  t.same(s.values, ['1']);
});
