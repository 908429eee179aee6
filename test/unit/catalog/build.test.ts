// buildSchemaCache and the catalog lookups without a database: from the recorded RawCatalog of
// test/fixtures/sql/catalog.sql (test/fixtures/catalog/catalog.raw.json, re-recorded by the
// integration test with DBREST_RECORD_CATALOG=1) and from small hand-written catalogs.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { buildSchemaCache, parseViewTargets } from '../../../src/catalog/build.js';
import { findColumn, findRelation, findRoutines, relationshipsFrom, suggest } from '../../../src/catalog/lookup.js';
import type { RawCatalog, RawColumn, RawForeignKeyRow, RawRelationRow, RawRoutineRow, RawViewSourceRow } from '../../../src/catalog/raw.js';
import type { ForeignKeyRelationship, SchemaCache } from '../../../src/catalog/types.js';
import { fixture } from '../../helpers/db.js';

const recorded = JSON.parse(readFileSync(fixture('catalog', 'catalog.raw.json'), 'utf8')) as RawCatalog;

function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) deepFreeze(v);
  }
  return x;
}

const fkSummary = (cache: SchemaCache, from: string, to: string) =>
  cache.relationships
    .filter((r): r is ForeignKeyRelationship => r.kind === 'fk' && `${r.from.schema}.${r.from.name}` === from && `${r.to.schema}.${r.to.name}` === to)
    .map((r) => `${r.cardinality} ${r.constraintName} ${r.columns.map(([a, b]) => `${a}=${b}`).join(',')}${r.junction ? ` via ${r.junction.table.name}` : ''}`);

// ---------------------------------------------------------------------------------------------
// hand-written catalogs

const column = (name: string, position: number, type = 'integer'): RawColumn =>
  [name, position, type, type === 'integer' ? 'int4' : type, true, null, null, null, [], false];

let nextOid = 1000;
const table = (schema: string, name: string, cols: string[], pk: string[], kind: RawRelationRow['kind'] = 'r'): RawRelationRow => ({
  oid: nextOid++, schema, name, kind, description: null, insertable: true, updatable: true, deletable: true,
  primary_key: pk, columns: cols.map((c, i) => column(c, i + 1)),
});
const fk = (from: string, to: string, name: string, columns: Array<[string, string]>, oneToOne = false): RawForeignKeyRow => {
  const [schema, tableName] = from.split('.') as [string, string];
  const [fs, ft] = to.split('.') as [string, string];
  return { oid: nextOid++, schema, table: tableName, foreign_schema: fs, foreign_table: ft, name, columns, one_to_one: oneToOne };
};
const emptyRaw: RawCatalog = {
  version: [{ server_version_num: 170000 }], relations: [], foreignKeys: [], viewSources: [], routines: [],
  computedRelationships: [], mediaHandlers: [],
};

/** A pg_node_tree text like ev_action's, with one TARGETENTRY per [resno, resname, table oid, attnum]. */
function evAction(entries: Array<[number, string, number, number]>, extraRtable = ''): string {
  const tes = entries
    .map(([resno, name, tbl, col]) =>
      `{TARGETENTRY :expr {VAR :varno 1 :varattno ${col} :vartype 23 :location -1} :resno ${resno} :resname ${name} ` +
      `:ressortgroupref 0 :resorigtbl ${tbl} :resorigcol ${col} :resjunk false}`)
    .join(' ');
  return `({QUERY :commandType 1 :querySource 0 :canSetTag true :utilityStmt <> :resultRelation 0 :rtable (${extraRtable}` +
    `{RANGETBLENTRY :alias <> :eref {ALIAS :aliasname t :colnames ("a" "b")} :rtekind 0 :relid 1 :relkind r}) ` +
    `:jointree {FROMEXPR :fromlist ({RANGETBLREF :rtindex 1}) :quals <>} :targetList (${tes}) :override 0 :onConflict <> ` +
    `:returningList <> :groupClause <> :sortClause <> :limitOffset <> :stmt_location -1 :stmt_len -1})`;
}

const viewSource = (rel: RawRelationRow, definition: string | null): RawViewSourceRow => ({
  oid: rel.oid, schema: rel.schema, name: rel.name, kind: rel.kind, columns: rel.columns.map((c) => c[0]),
  primary_key: rel.primary_key, definition,
});

t.test('parseViewTargets reads the outer targetList only', async (t) => {
  t.same(parseViewTargets(evAction([[1, 'id', 500, 1], [2, 'x', 500, 3]])), [
    { resno: 1, origTable: 500, origColumn: 1 },
    { resno: 2, origTable: 500, origColumn: 3 },
  ]);
  // a subquery in the range table has a targetList of its own, which must be ignored
  const sub = `{RANGETBLENTRY :rtekind 1 :subquery {QUERY :commandType 1 :targetList ({TARGETENTRY :expr <> :resno 1 :resname zz :ressortgroupref 0 :resorigtbl 999 :resorigcol 9 :resjunk false}) :override 0}} `;
  t.same(parseViewTargets(evAction([[1, 'id', 500, 1]], sub)), [{ resno: 1, origTable: 500, origColumn: 1 }]);
  // names with escaped spaces, braces and parentheses; a name that looks like a field
  const odd = evAction([[1, 'a\\ b\\{c\\}\\(d\\)', 500, 1], [2, ':resorigtbl', 500, 2], [3, '\\"quoted\\"', 500, 3]]);
  t.same(parseViewTargets(odd).map((x) => [x.resno, x.origColumn]), [[1, 1], [2, 2], [3, 3]]);
  // expressions have no origin; junk entries are not columns
  const exprs = '({QUERY :commandType 1 :targetList ({TARGETENTRY :expr {OPEXPR :opno 551 :args ({VAR :varno 1} {CONST :consttype 23 :constlen 4 :constbyval true :constisnull false :location 20 :constvalue 4 [ 1 0 0 0 0 0 0 0 ]}) :location 5} :resno 1 :resname plus :ressortgroupref 0 :resorigtbl 0 :resorigcol 0 :resjunk false} {TARGETENTRY :expr {VAR :varno 1} :resno 2 :resname j :ressortgroupref 1 :resorigtbl 500 :resorigcol 2 :resjunk true}) :override 0})';
  t.same(parseViewTargets(exprs), []);
  t.same(parseViewTargets('({QUERY :commandType 1 :targetList <> :override 0})'), [], 'no target list');
  t.same(parseViewTargets('({NOTAQUERY :x 1})'), [], 'not a query');
  t.same(parseViewTargets(''), []);
  // the real thing, from the recording
  const filmsTwice = recorded.viewSources.find((v) => v.name === 'films_twice')!;
  const films = recorded.viewSources.find((v) => v.name === 'films')!;
  t.same(parseViewTargets(filmsTwice.definition!), [
    { resno: 1, origTable: films.oid, origColumn: 1 },
    { resno: 2, origTable: films.oid, origColumn: 2 },
    { resno: 3, origTable: films.oid, origColumn: 2 },
  ]);
});

t.test('m2o, o2m and o2o from foreign keys', async (t) => {
  const a = table('api', 'authors', ['id'], ['id']);
  const b = table('api', 'books', ['id', 'author_id'], ['id']);
  const bio = table('api', 'bios', ['author_id', 'text'], ['author_id']);
  const cache = buildSchemaCache({
    ...emptyRaw,
    relations: [a, b, bio],
    foreignKeys: [fk('api.books', 'api.authors', 'books_author_fkey', [['author_id', 'id']]), fk('api.bios', 'api.authors', 'bios_author_fkey', [['author_id', 'id']], true)],
  }, ['api']);
  t.same(fkSummary(cache, 'api.books', 'api.authors'), ['m2o books_author_fkey author_id=id']);
  t.same(fkSummary(cache, 'api.authors', 'api.books'), ['o2m books_author_fkey id=author_id']);
  t.same(fkSummary(cache, 'api.bios', 'api.authors'), ['o2o bios_author_fkey author_id=id']);
  t.same(fkSummary(cache, 'api.authors', 'api.bios'), ['o2o bios_author_fkey id=author_id']);
  t.equal(cache.serverVersion, 170000);
  t.same(cache.schemas, ['api']);
});

t.test('m2m: the junction\'s FK columns must be in its primary key', async (t) => {
  const users = table('api', 'users', ['id'], ['id']);
  const groups = table('api', 'groups', ['id'], ['id']);
  const members = table('api', 'members', ['user_id', 'group_id'], ['user_id', 'group_id']);
  const wide = table('api', 'wide_pk', ['id', 'user_id', 'group_id'], ['id', 'user_id', 'group_id']);
  const notJ = table('api', 'invites', ['id', 'user_id', 'group_id'], ['id']);
  const friends = table('api', 'friends', ['a', 'b'], ['a', 'b']);
  const hidden = table('internal', 'hidden_members', ['user_id', 'group_id'], ['user_id', 'group_id']);
  const cache = buildSchemaCache({
    ...emptyRaw,
    relations: [users, groups, members, wide, notJ, friends, hidden],
    foreignKeys: [
      fk('api.members', 'api.users', 'members_user_fkey', [['user_id', 'id']]),
      fk('api.members', 'api.groups', 'members_group_fkey', [['group_id', 'id']]),
      fk('api.wide_pk', 'api.users', 'wide_user_fkey', [['user_id', 'id']]),
      fk('api.wide_pk', 'api.groups', 'wide_group_fkey', [['group_id', 'id']]),
      fk('api.invites', 'api.users', 'invites_user_fkey', [['user_id', 'id']]),
      fk('api.invites', 'api.groups', 'invites_group_fkey', [['group_id', 'id']]),
      fk('api.friends', 'api.users', 'friends_a_fkey', [['a', 'id']]),
      fk('api.friends', 'api.users', 'friends_b_fkey', [['b', 'id']]),
      fk('internal.hidden_members', 'api.users', 'hm_user_fkey', [['user_id', 'id']]),
      fk('internal.hidden_members', 'api.groups', 'hm_group_fkey', [['group_id', 'id']]),
    ],
  }, ['api']);
  t.same(fkSummary(cache, 'api.users', 'api.groups'), ['m2m members  via members', 'm2m wide_pk  via wide_pk'], 'PK junction, and a PK wider than the FKs');
  t.same(fkSummary(cache, 'api.groups', 'api.users'), ['m2m members  via members', 'm2m wide_pk  via wide_pk']);
  const self = cache.relationships.filter((r): r is ForeignKeyRelationship => r.kind === 'fk' && r.cardinality === 'm2m' && r.junction?.table.name === 'friends');
  t.same(self.map((r) => [r.from.name, r.to.name, r.isSelf, r.junction?.constraintFrom, r.junction?.constraintTo]), [
    ['users', 'users', true, 'friends_a_fkey', 'friends_b_fkey'],
    ['users', 'users', true, 'friends_b_fkey', 'friends_a_fkey'],
  ], 'two FKs to the same table: a self m2m each way');
  t.same(self[0]!.junction!.columnsFrom, [['id', 'a']]);
  t.same(self[0]!.junction!.columnsTo, [['id', 'b']]);
  t.notOk(cache.relationships.some((r) => r.kind === 'fk' && r.junction?.table.name === 'invites'), 'FK columns outside the PK');
  t.notOk(cache.relationships.some((r) => r.from.schema === 'internal' || r.to.schema === 'internal' || (r.kind === 'fk' && r.junction?.table.schema === 'internal')), 'hidden junction');
});

t.test('views: tracing through views of views, renames, repeated columns, view PKs', async (t) => {
  const dirs = table('api', 'directors', ['id', 'name'], ['id']);
  const films = table('api', 'films', ['id', 'director_id', 'title'], ['id']);
  const fv = table('api', 'films_v', ['id', 'dir', 'dir2'], [], 'v');
  const fvv = table('api', 'films_vv', ['key', 'd'], [], 'v');
  const dv = table('api', 'dirs_v', ['dkey'], [], 'v');
  const hiddenV = table('internal', 'films_h', ['id', 'director_id'], [], 'v');
  const viaHidden = table('api', 'films_via_h', ['fid', 'did'], [], 'v');
  const raw: RawCatalog = {
    ...emptyRaw,
    relations: [dirs, films, fv, fvv, dv, viaHidden],
    foreignKeys: [fk('api.films', 'api.directors', 'films_dir_fkey', [['director_id', 'id']])],
    viewSources: [
      viewSource(dirs, null),
      viewSource(films, null),
      viewSource(fv, evAction([[1, 'id', films.oid, 1], [2, 'dir', films.oid, 2], [3, 'dir2', films.oid, 2]])),
      viewSource(fvv, evAction([[1, 'key', fv.oid, 1], [2, 'd', fv.oid, 3]])),
      viewSource(dv, evAction([[1, 'dkey', dirs.oid, 1]])),
      viewSource(hiddenV, evAction([[1, 'id', films.oid, 1], [2, 'director_id', films.oid, 2]])),
      viewSource(viaHidden, evAction([[1, 'fid', hiddenV.oid, 1], [2, 'did', hiddenV.oid, 2]])),
    ],
  };
  const cache = buildSchemaCache(deepFreeze(raw), ['api']);
  t.same(findRelation(cache, 'api', 'films_v')?.primaryKey, ['id']);
  t.same(findRelation(cache, 'api', 'films_vv')?.primaryKey, ['key']);
  t.same(findRelation(cache, 'api', 'dirs_v')?.primaryKey, ['dkey']);
  t.same(findRelation(cache, 'api', 'films_via_h')?.primaryKey, ['fid']);
  t.same(fkSummary(cache, 'api.films_v', 'api.directors'), ['m2o films_dir_fkey dir=id', 'm2o films_dir_fkey dir2=id']);
  t.same(fkSummary(cache, 'api.directors', 'api.films_v'), ['o2m films_dir_fkey id=dir', 'o2m films_dir_fkey id=dir2']);
  t.same(fkSummary(cache, 'api.films_vv', 'api.directors'), ['m2o films_dir_fkey d=id']);
  t.same(fkSummary(cache, 'api.films', 'api.dirs_v'), ['m2o films_dir_fkey director_id=dkey']);
  t.same(fkSummary(cache, 'api.films_vv', 'api.dirs_v'), ['m2o films_dir_fkey d=dkey']);
  t.same(fkSummary(cache, 'api.dirs_v', 'api.films_vv'), ['o2m films_dir_fkey dkey=d']);
  t.same(fkSummary(cache, 'api.films_via_h', 'api.dirs_v'), ['m2o films_dir_fkey did=dkey'], 'through a view in a hidden schema');
  t.notOk(cache.relationships.some((r) => r.from.schema === 'internal' || r.to.schema === 'internal'));
});

t.test('computed relationships and overrides', async (t) => {
  const a = table('api', 'a', ['id', 'b_id'], ['id']);
  const b = table('api', 'b', ['id'], ['id']);
  const cache = buildSchemaCache({
    ...emptyRaw,
    relations: [a, b],
    foreignKeys: [fk('api.a', 'api.b', 'a_b_fkey', [['b_id', 'id']])],
    computedRelationships: [
      { function_schema: 'api', function_name: 'b', from_schema: 'api', from_name: 'a', to_schema: 'api', to_name: 'b', returns_set: true, rows: 1 },
      { function_schema: 'api', function_name: 'all_a', from_schema: 'api', from_name: 'b', to_schema: 'api', to_name: 'a', returns_set: true, rows: 1000 },
      { function_schema: 'api', function_name: 'ghost', from_schema: 'api', from_name: 'b', to_schema: 'other', to_name: 'x', returns_set: false, rows: 0 },
    ],
  }, ['api']);
  t.same(relationshipsFrom(cache, 'api', 'a').map((r) => [r.kind, r.cardinality, r.kind === 'computed' ? r.function.name : r.constraintName]), [['computed', 'm2o', 'b']], 'a function named like the target replaces the FK relationships to it');
  t.same(relationshipsFrom(cache, 'api', 'b').map((r) => [r.kind, r.cardinality, r.kind === 'computed' ? r.function.name : r.constraintName]), [
    ['fk', 'o2m', 'a_b_fkey'],
    ['computed', 'o2m', 'all_a'],
  ]);
});

t.test('routines: callability, defaults, modes, returns', async (t) => {
  const routine = (name: string, params: Array<[string, string, string]>, extra: Partial<RawRoutineRow> = {}): RawRoutineRow => ({
    oid: nextOid++, schema: 'api', name, description: null, kind: 'f', volatility: 'v', signature: `api.${name}(${params.map((p) => p[1]).join(',')})`,
    returns_set: false, nargs: params.filter((p) => p[2] !== 'o' && p[2] !== 't').length, nargdefaults: 0, return_type: 'integer',
    return_base_typtype: 'b', return_base_schema: 'pg_catalog', return_base_name: 'int4', return_base_relkind: null,
    params: params.map(([n, ty, mode]) => ({ name: n, type: ty, mode })), ...extra,
  });
  const cache = buildSchemaCache({
    ...emptyRaw,
    routines: [
      routine('named', [['a', 'integer', 'i'], ['b', 'text', 'i'], ['c', 'text', 'i']], { nargdefaults: 2, volatility: 's' }),
      routine('body', [['', 'jsonb', 'i']]),
      routine('unnamed_int', [['', 'integer', 'i']]),
      routine('two_unnamed', [['', 'json', 'i'], ['', 'json', 'i']]),
      routine('outs', [['x', 'integer', 'i'], ['y', 'integer', 'o']], { return_base_typtype: 'b' }),
      routine('tbl', [['r', 'integer', 't']], { returns_set: true, return_type: 'record', return_base_typtype: 'p', return_base_name: 'record' }),
      routine('rows', [], { returns_set: true, return_type: 'api.a', return_base_typtype: 'c', return_base_schema: 'api', return_base_name: 'a', return_base_relkind: 'r' }),
      routine('nothing', [], { return_type: 'void', return_base_typtype: 'p', return_base_name: 'void', volatility: 'i' }),
      routine('proc', [['p', 'integer', 'i']], { kind: 'p', return_type: 'void', return_base_typtype: 'p', return_base_name: 'void' }),
      routine('elsewhere', [], { schema: 'internal' }),
    ],
  }, ['api']);
  t.same(cache.routines.map((r) => r.name), ['body', 'named', 'nothing', 'outs', 'proc', 'rows', 'tbl']);
  t.same(findRoutines(cache, 'api', 'named')[0]!.params.map((p) => p.hasDefault), [false, true, true]);
  t.equal(findRoutines(cache, 'api', 'named')[0]!.volatility, 'stable');
  t.same(findRoutines(cache, 'api', 'outs')[0]!.returns, { kind: 'composite', type: { schema: 'pg_catalog', name: 'int4' }, setOf: false, isRelation: false });
  t.same(findRoutines(cache, 'api', 'outs')[0]!.params.map((p) => p.mode), ['in', 'out']);
  t.same(findRoutines(cache, 'api', 'tbl')[0]!.returns, { kind: 'composite', type: { schema: 'pg_catalog', name: 'record' }, setOf: true, isRelation: false });
  t.same(findRoutines(cache, 'api', 'rows')[0]!.returns, { kind: 'composite', type: { schema: 'api', name: 'a' }, setOf: true, isRelation: true });
  t.same(findRoutines(cache, 'api', 'nothing')[0]!.returns, { kind: 'void' });
  t.match(findRoutines(cache, 'api', 'proc')[0], { isProcedure: true, returns: { kind: 'void' } });
  t.same(findRoutines(cache, 'api', 'body')[0]!.returns, { kind: 'scalar', type: 'integer', setOf: false });
});

t.test('the recorded catalog', async (t) => {
  const raw = deepFreeze(structuredClone(recorded));
  const cache = buildSchemaCache(raw, ['public', 'extra']);
  t.equal(JSON.stringify(buildSchemaCache(raw, ['public', 'extra'])), JSON.stringify(cache), 'deterministic');
  t.same(fkSummary(cache, 'public.films', 'public.directors'), ['m2o films_director_id_fkey director_id=id']);
  t.same(fkSummary(cache, 'public.films', 'public.actors'), ['m2m roles  via roles']);
  t.same(fkSummary(cache, 'public.films', 'public.technical_specs'), ['o2o technical_specs_film_id_fkey id=film_id']);
  t.same(fkSummary(cache, 'public.films_view_view', 'public.directors_view'), ['m2o films_director_id_fkey dir=director_key']);
  t.same(fkSummary(cache, 'public.employees', 'public.employees'), ['m2o employees_manager_id_fkey manager_id=id', 'o2m employees_manager_id_fkey id=manager_id']);
  t.same(findRelation(cache, 'public', 'films_view_view')?.primaryKey, ['film_key']);
  t.notOk(findRelation(cache, 'public', 'measurements_2024'));
  t.same(findRoutines(cache, 'public', 'overloaded').length, 3);
  t.equal(cache.mediaHandlers.length, 6);
  const onlyPublic = buildSchemaCache(raw, ['public']);
  t.notOk(onlyPublic.relations.some((r) => r.schema === 'extra'));
  t.same(fkSummary(onlyPublic, 'public.films', 'extra.things'), [], 'relationships into a schema that is not exposed are dropped');
  t.same(onlyPublic.schemas, ['public']);
});

t.test('a 1000-table, 2000-FK catalog builds (linear structures; timing lives in the bench)', async (t) => {
  const relations: RawRelationRow[] = [];
  const foreignKeys: RawForeignKeyRow[] = [];
  for (let i = 0; i < 1000; i++) relations.push(table('public', `t${i}`, ['id', 'a', 'b'], i % 50 === 0 ? ['id', 'a', 'b'] : ['id']));
  for (let k = 0; k < 2000; k++) {
    const from = k % 1000;
    const to = (k * 7919) % 1000;
    foreignKeys.push(fk(`public.t${from}`, `public.t${to}`, `t${from}_fk${k}`, [[k < 1000 ? 'a' : 'b', 'id']]));
  }
  const cache = buildSchemaCache({ ...emptyRaw, relations, foreignKeys }, ['public']);
  t.equal(cache.relations.length, 1000);
  const count = (c: string) => cache.relationships.filter((r) => r.cardinality === c).length;
  t.equal(count('m2o'), 2000);
  t.equal(count('o2m'), 2000);
  t.equal(count('m2m'), 40, '20 junctions, each both ways');
});

t.test('lookups and suggestions', async (t) => {
  const cache = buildSchemaCache(recorded, ['public', 'extra']);
  const films = findRelation(cache, 'public', 'films')!;
  t.equal(findRelation(cache, 'public', 'films'), films, 'memoised index: the same object');
  t.equal(findColumn(films, 'title')?.type, 'character varying(200)');
  t.equal(findColumn(films, 'nope'), undefined);
  t.equal(relationshipsFrom(cache, 'public', 'films'), relationshipsFrom(cache, 'public', 'films'), 'same array each time');
  t.same(relationshipsFrom(cache, 'public', 'films').map((r) => r.from.name).filter((n) => n !== 'films'), []);
  t.same(findRoutines(cache, 'public', 'nope'), []);
  const names = ['films', 'directors', 'actors', 'film_stats', 'roles'];
  t.equal(suggest('flims', names), 'films');
  t.equal(suggest('FILMS', names), 'films', 'case-insensitive');
  t.equal(suggest('film', names), 'films');
  t.equal(suggest('director', names), 'directors');
  t.equal(suggest('xyzzy', names), null, 'nothing close');
  t.equal(suggest('films', []), null);
  t.equal(suggest('rols', ['roles', 'rolls']), 'roles', 'ties go to the first in code-unit order');
  t.equal(suggest('rols', ['rolls', 'roles']), 'roles');
});
