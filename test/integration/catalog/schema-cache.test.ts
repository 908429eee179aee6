// The schema cache against a real PostgreSQL: test/fixtures/sql/catalog.sql loaded into a fresh
// database, then loadSchemaCache. Every relationship kind with its cardinality and constraint,
// view tracing, routines, media handlers, comments, determinism, lookups and `introspect`.
// Also keeps test/fixtures/catalog/catalog.raw.json (the builder's offline fixture) honest: its
// build must equal the live one. Re-record it with DBREST_RECORD_CATALOG=1.
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import t from 'tap';
import { buildSchemaCache } from '../../../src/catalog/build.js';
import { fetchCatalog, type CatalogClient } from '../../../src/catalog/fetch.js';
import { loadSchemaCache } from '../../../src/catalog/load.js';
import { findColumn, findRelation, findRoutines, relationshipsFrom, suggest } from '../../../src/catalog/lookup.js';
import type { RawCatalog } from '../../../src/catalog/raw.js';
import type {
  ComputedRelationship,
  ForeignKeyRelationship,
  Relation,
  Relationship,
  Routine,
  SchemaCache,
} from '../../../src/catalog/types.js';
import { runIntrospect } from '../../../src/cli/introspect.js';
import type { AppConfig } from '../../../src/config/types.js';
import { createTestDatabase, fixture, withDatabase, type TestDatabase } from '../../helpers/db.js';

const SCHEMAS = ['public', 'extra'] as const;
const RAW_FIXTURE = fixture('catalog', 'catalog.raw.json');

let db: TestDatabase;
let client: pg.Client;
let cache: SchemaCache;
let raw: RawCatalog;

t.before(async () => {
  db = await createTestDatabase([fixture('sql', 'catalog.sql')]);
  client = new pg.Client({ connectionString: db.uri });
  await client.connect();
  cache = (await loadSchemaCache(client, SCHEMAS)).cache;
  raw = (await fetchCatalog(client, SCHEMAS)).raw;
});

t.teardown(async () => {
  await client?.end();
  await db?.drop();
});

const q = (s: string) => {
  const [schema, name] = s.includes('.') ? s.split('.') : ['public', s];
  return { schema: schema!, name: name! };
};
const rel = (name: string): Relation => {
  const r = findRelation(cache, q(name).schema, q(name).name);
  if (!r) throw new Error(`no relation ${name}`);
  return r;
};
const fks = (from: string, to: string): ForeignKeyRelationship[] =>
  relationshipsFrom(cache, q(from).schema, q(from).name).filter(
    (r): r is ForeignKeyRelationship => r.kind === 'fk' && r.to.schema === q(to).schema && r.to.name === q(to).name,
  );
const computed = (from: string, to: string): ComputedRelationship[] =>
  relationshipsFrom(cache, q(from).schema, q(from).name).filter(
    (r): r is ComputedRelationship => r.kind === 'computed' && r.to.schema === q(to).schema && r.to.name === q(to).name,
  );
const brief = (r: ForeignKeyRelationship) => ({ cardinality: r.cardinality, constraint: r.constraintName, columns: r.columns.map((p) => [...p]) });
const routine = (name: string, i = 0): Routine => {
  const r = findRoutines(cache, q(name).schema, q(name).name)[i];
  if (!r) throw new Error(`no routine ${name}`);
  return r;
};

t.test('relations: kinds, partitions and hidden schemas', async (t) => {
  t.same(cache.schemas, ['public', 'extra']);
  t.ok(cache.serverVersion >= 120000, `server version ${cache.serverVersion}`);
  t.equal(rel('films').kind, 'table');
  t.equal(rel('films_view').kind, 'view');
  t.equal(rel('film_stats').kind, 'materialized_view');
  t.equal(rel('remote_things').kind, 'foreign_table');
  t.equal(rel('measurements').kind, 'partitioned_table');
  t.equal(rel('extra.things').kind, 'table');
  t.notOk(findRelation(cache, 'public', 'measurements_2024'), 'partitions are not exposed');
  t.notOk(findRelation(cache, 'private', 'personnages'), 'hidden schema');
  t.notOk(cache.relations.some((r) => r.schema === 'private'));
  const names = cache.relations.map((r) => `${r.schema}.${r.name}`);
  t.same(names, [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'sorted by schema, name');
});

t.test('columns: types, base types, nullability, defaults, enums, generated, comments', async (t) => {
  const films = rel('films');
  t.same(films.columns.map((c) => c.name), ['id', 'director_id', 'title', 'rating', 'mood', 'tags', 'runtime', 'title_upper']);
  t.same(films.columns.map((c) => c.position), [1, 2, 3, 4, 5, 6, 7, 8]);
  const col = (n: string) => findColumn(films, n)!;
  t.match(col('id'), { type: 'integer', baseType: 'int4', nullable: false, default: "nextval('public.films_id_seq'::regclass)", generated: false });
  t.match(col('title'), { type: 'character varying(200)', baseType: 'varchar', nullable: false, maxLength: 200, description: "The film's title" });
  t.match(col('rating'), { type: 'numeric(3,1)', baseType: 'numeric', nullable: true, maxLength: null, default: null, description: null });
  t.match(col('mood'), { type: 'public.mood', baseType: 'mood', default: "'ok'::public.mood" });
  t.same(col('mood').enumValues, ['sad', 'ok', 'happy']);
  t.same(col('title').enumValues, []);
  t.match(col('tags'), { type: 'text[]', baseType: 'text' });
  t.match(col('runtime'), { type: 'public.runtime_minutes', baseType: 'int4', default: '90' }, 'domain over a domain: base type and domain default');
  t.match(col('title_upper'), { generated: true, default: null });
  t.notOk(findColumn(films, 'nope'));
  t.match(findColumn(rel('directors'), 'id'), { default: "nextval('public.directors_id_seq'::regclass)" }, 'identity by default');
  t.equal(rel('directors').description, 'Film directors');
  t.equal(rel('films_view').description, 'Films, as a view');
  t.equal(findColumn(rel('films_view'), 'title')?.description, 'Title through the view');
  t.equal(rel('extra.things').description, 'Things in the extra schema');
  t.equal(rel('actors').description, null);
});

t.test('primary keys, traced through views', async (t) => {
  t.same(rel('films').primaryKey, ['id']);
  t.same(rel('roles').primaryKey, ['film_id', 'actor_id'], 'key order');
  t.same(rel('shelves').primaryKey, ['building', 'number']);
  t.same(rel('measurements').primaryKey, ['id', 'logdate']);
  t.same(rel('films_view').primaryKey, ['id']);
  t.same(rel('films_view_view').primaryKey, ['film_key'], 'view of a view, renamed');
  t.same(rel('directors_view').primaryKey, ['director_key']);
  t.same(rel('films_twice').primaryKey, ['id']);
  t.same(rel('personnages_view').primaryKey, ['id'], 'base table in a hidden schema');
  t.same(rel('posters_via_hidden').primaryKey, ['poster_id'], 'through a hidden view');
  t.same(rel('director_counts').primaryKey, []);
  t.same(rel('film_titles').primaryKey, []);
  t.same(rel('remote_things').primaryKey, []);
});

t.test('updatability', async (t) => {
  t.match(rel('films'), { insertable: true, updatable: true, deletable: true });
  t.match(rel('measurements'), { insertable: true, updatable: true, deletable: true });
  t.match(rel('films_view'), { insertable: true, updatable: true, deletable: true });
  t.match(rel('director_counts'), { insertable: false, updatable: false, deletable: false });
  t.match(rel('film_stats'), { insertable: false, updatable: false, deletable: false });
  t.match(rel('remote_things'), { insertable: false, updatable: false, deletable: false }, 'wrapper without handler');
});

t.test('m2o and o2m', async (t) => {
  t.same(fks('films', 'directors').map(brief), [{ cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['director_id', 'id']] }]);
  t.same(fks('directors', 'films').map(brief), [{ cardinality: 'o2m', constraint: 'films_director_id_fkey', columns: [['id', 'director_id']] }]);
  t.same(fks('books', 'shelves').map(brief), [
    { cardinality: 'm2o', constraint: 'books_shelf_fkey', columns: [['shelf_building', 'building'], ['shelf_number', 'number']] },
  ], 'composite FK');
  t.same(fks('measurement_notes', 'measurements').map(brief), [
    { cardinality: 'm2o', constraint: 'measurement_notes_m_id_m_date_fkey', columns: [['m_id', 'id'], ['m_date', 'logdate']] },
  ], 'FK to a partitioned table');
  t.same(fks('measurements', 'cities').map(brief), [{ cardinality: 'm2o', constraint: 'measurements_city_id_fkey', columns: [['city_id', 'id']] }]);
  t.same(fks('extra.things', 'films').map(brief), [{ cardinality: 'm2o', constraint: 'things_film_id_fkey', columns: [['film_id', 'id']] }], 'across exposed schemas');
  t.same(fks('films', 'extra.things').map(brief), [{ cardinality: 'o2m', constraint: 'things_film_id_fkey', columns: [['id', 'film_id']] }]);
  for (const r of [...fks('films', 'directors'), ...fks('directors', 'films')]) t.equal(r.isSelf, false);
  t.notOk(cache.relationships.some((r) => r.from.schema === 'private' || r.to.schema === 'private'), 'nothing to or from a hidden schema');
  t.notOk(cache.relationships.some((r) => r.from.name.startsWith('measurements_2') || r.to.name.startsWith('measurements_2')), 'nothing to partitions');
});

t.test('o2o: FK that is the PK, and FK with UNIQUE, both directions', async (t) => {
  t.same(fks('technical_specs', 'films').map(brief), [{ cardinality: 'o2o', constraint: 'technical_specs_film_id_fkey', columns: [['film_id', 'id']] }]);
  t.same(fks('films', 'technical_specs').map(brief), [{ cardinality: 'o2o', constraint: 'technical_specs_film_id_fkey', columns: [['id', 'film_id']] }]);
  t.same(fks('posters', 'films').map(brief), [{ cardinality: 'o2o', constraint: 'posters_film_id_fkey', columns: [['film_id', 'id']] }]);
  t.same(fks('films', 'posters').map(brief), [{ cardinality: 'o2o', constraint: 'posters_film_id_fkey', columns: [['id', 'film_id']] }]);
});

t.test('m2m through a junction whose FK columns are in its PK', async (t) => {
  const m2m = fks('films', 'actors').filter((r) => r.cardinality === 'm2m');
  t.equal(m2m.length, 1);
  t.same(m2m[0], {
    kind: 'fk',
    from: { schema: 'public', name: 'films' },
    to: { schema: 'public', name: 'actors' },
    cardinality: 'm2m',
    constraintName: 'roles',
    columns: [],
    junction: {
      table: { schema: 'public', name: 'roles' },
      constraintFrom: 'roles_film_id_fkey',
      columnsFrom: [['id', 'film_id']],
      constraintTo: 'roles_actor_id_fkey',
      columnsTo: [['id', 'actor_id']],
    },
    isSelf: false,
  });
  const back = fks('actors', 'films').filter((r) => r.cardinality === 'm2m');
  t.same(back.map((r) => [r.junction?.table.name, r.junction?.constraintFrom, r.junction?.constraintTo]), [['roles', 'roles_actor_id_fkey', 'roles_film_id_fkey']]);
  t.notOk(
    cache.relationships.some((r) => r.kind === 'fk' && r.junction?.table.name === 'auditions'),
    'auditions has two FKs outside its PK: not a junction',
  );
  t.same(fks('roles', 'films').map(brief), [{ cardinality: 'm2o', constraint: 'roles_film_id_fkey', columns: [['film_id', 'id']] }]);
  t.same(fks('films', 'roles').map(brief), [{ cardinality: 'o2m', constraint: 'roles_film_id_fkey', columns: [['id', 'film_id']] }]);
});

t.test('self reference', async (t) => {
  const rs = fks('employees', 'employees');
  t.same(rs.map(brief), [
    { cardinality: 'm2o', constraint: 'employees_manager_id_fkey', columns: [['manager_id', 'id']] },
    { cardinality: 'o2m', constraint: 'employees_manager_id_fkey', columns: [['id', 'manager_id']] },
  ]);
  t.ok(rs.every((r) => r.isSelf));
  const vs = fks('employees_view', 'employees_view');
  t.same(vs.map(brief), [
    { cardinality: 'm2o', constraint: 'employees_manager_id_fkey', columns: [['boss', 'id']] },
    { cardinality: 'o2m', constraint: 'employees_manager_id_fkey', columns: [['id', 'boss']] },
  ], 'a view of a self-referencing table references itself');
  t.ok(vs.every((r) => r.isSelf));
  t.same(fks('employees_view', 'employees').map(brief), [
    { cardinality: 'm2o', constraint: 'employees_manager_id_fkey', columns: [['boss', 'id']] },
    { cardinality: 'o2m', constraint: 'employees_manager_id_fkey', columns: [['id', 'manager_id']] },
  ], 'view → its base table: the view as child (boss) and as parent (id)');
});

t.test('the same table referenced twice', async (t) => {
  t.same(fks('messages', 'users').map(brief), [
    { cardinality: 'm2o', constraint: 'messages_recipient_id_fkey', columns: [['recipient_id', 'id']] },
    { cardinality: 'm2o', constraint: 'messages_sender_id_fkey', columns: [['sender_id', 'id']] },
  ]);
  t.same(fks('users', 'messages').map(brief), [
    { cardinality: 'o2m', constraint: 'messages_recipient_id_fkey', columns: [['id', 'recipient_id']] },
    { cardinality: 'o2m', constraint: 'messages_sender_id_fkey', columns: [['id', 'sender_id']] },
  ]);
});

t.test('views inherit their base tables relationships', async (t) => {
  t.same(fks('films_view', 'directors').map(brief), [{ cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['director_id', 'id']] }], 'view → table');
  t.same(fks('directors', 'films_view').map(brief), [{ cardinality: 'o2m', constraint: 'films_director_id_fkey', columns: [['id', 'director_id']] }], 'table → view');
  t.same(fks('films_view_view', 'directors').map(brief), [{ cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['dir', 'id']] }], 'view of a view, FK column renamed');
  t.same(fks('films', 'directors_view').map(brief), [{ cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['director_id', 'director_key']] }], 'referenced column renamed');
  t.same(fks('films_view', 'directors_view').map(brief), [{ cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['director_id', 'director_key']] }], 'view → view');
  t.same(fks('directors_view', 'films_view_view').map(brief), [{ cardinality: 'o2m', constraint: 'films_director_id_fkey', columns: [['director_key', 'dir']] }], 'view → view of a view');
  t.same(fks('films_twice', 'directors').map(brief), [
    { cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['d1', 'id']] },
    { cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['d2', 'id']] },
  ], 'an FK column shown twice gives one relationship per column');
  t.same(fks('technical_specs', 'films_view').map(brief), [{ cardinality: 'o2o', constraint: 'technical_specs_film_id_fkey', columns: [['film_id', 'id']] }]);
  t.same(fks('films_view', 'technical_specs').map(brief), [{ cardinality: 'o2o', constraint: 'technical_specs_film_id_fkey', columns: [['id', 'film_id']] }]);
  t.same(fks('film_stats', 'directors').map(brief), [{ cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['director_id', 'id']] }], 'materialized view');
  t.same(fks('director_counts', 'directors').map(brief), [{ cardinality: 'm2o', constraint: 'films_director_id_fkey', columns: [['director_id', 'id']] }]);
  t.same(fks('film_titles', 'directors'), [], 'a view without the FK columns has no relationship');
  t.same(fks('personnages_view', 'actors_private_view').map(brief), [{ cardinality: 'm2o', constraint: 'personnages_role_id_fkey', columns: [['roleId', 'actorId']] }], 'views over hidden tables');
  t.same(fks('actors_private_view', 'personnages_view').map(brief), [{ cardinality: 'o2m', constraint: 'personnages_role_id_fkey', columns: [['actorId', 'roleId']] }]);
  t.same(fks('posters_via_hidden', 'films').map(brief), [{ cardinality: 'o2o', constraint: 'posters_film_id_fkey', columns: [['film_id', 'id']] }], 'through a hidden view');
  t.same(fks('extra.things', 'films_view_view').map(brief), [{ cardinality: 'm2o', constraint: 'things_film_id_fkey', columns: [['film_id', 'film_key']] }]);
  const viaView = fks('films_view_view', 'actors').filter((r) => r.cardinality === 'm2m');
  t.same(viaView.map((r) => r.junction), [{
    table: { schema: 'public', name: 'roles' },
    constraintFrom: 'roles_film_id_fkey',
    columnsFrom: [['film_key', 'film_id']],
    constraintTo: 'roles_actor_id_fkey',
    columnsTo: [['id', 'actor_id']],
  }], 'm2m from a view');
  for (const r of fks('films_view', 'directors')) t.equal(r.isSelf, false);
});

t.test('computed relationships', async (t) => {
  t.same(computed('directors', 'films').map((r) => [r.function.name, r.cardinality, r.isSelf]), [['best_film', 'm2o', false], ['director_films', 'o2m', false]], 'SETOF → o2m; ROWS 1 → m2o');
  t.same(computed('films', 'directors').map((r) => [r.function.name, r.cardinality]), [['film_director', 'm2o']], 'single row → m2o');
  t.same(computed('employees', 'employees').map((r) => [r.function.name, r.cardinality, r.isSelf]), [['colleagues', 'o2m', true]]);
  t.same(computed('regions', 'countries').map((r) => ({ fn: r.function, card: r.cardinality })), [{ fn: { schema: 'public', name: 'countries' }, card: 'm2o' }]);
  t.same(fks('regions', 'countries'), [], 'a computed relationship named like the target overrides the FK');
  t.same(fks('countries', 'regions').map(brief), [{ cardinality: 'o2m', constraint: 'regions_country_id_fkey', columns: [['id', 'country_id']] }], 'the other direction stays');
  t.same(fks('directors', 'films').length, 1, 'FK relationships stay beside computed ones');
});

t.test('routines', async (t) => {
  t.same(routine('add'), {
    schema: 'public',
    name: 'add',
    description: 'Adds two numbers',
    params: [
      { name: 'a', type: 'integer', mode: 'in', hasDefault: false },
      { name: 'b', type: 'integer', mode: 'in', hasDefault: false },
    ],
    returns: { kind: 'scalar', type: 'integer', setOf: false },
    volatility: 'immutable',
    isProcedure: false,
    signature: 'public.add(integer,integer)',
  });
  t.match(routine('search_films'), {
    returns: { kind: 'composite', type: { schema: 'public', name: 'films' }, setOf: true, isRelation: true },
    volatility: 'stable',
  });
  t.match(routine('film_summaries'), {
    params: [
      { name: 'min_rating', type: 'numeric', mode: 'in', hasDefault: true },
      { name: 'film_id', type: 'integer', mode: 'table', hasDefault: false },
      { name: 'film_title', type: 'text', mode: 'table', hasDefault: false },
    ],
    returns: { kind: 'composite', setOf: true, isRelation: false },
  });
  t.match(routine('film_counts'), {
    params: [{ name: 'total', mode: 'out', type: 'bigint' }, { name: 'rated', mode: 'out', type: 'bigint' }],
    returns: { kind: 'composite', setOf: false, isRelation: false },
    volatility: 'volatile',
  });
  t.match(routine('double_it'), { params: [{ name: 'x', mode: 'in' }, { name: 'doubled', mode: 'out' }], returns: { kind: 'composite', setOf: false } }, 'one OUT param is still a row');
  t.match(routine('inout_fn'), { params: [{ name: 'n', mode: 'inout' }, { name: 'label', mode: 'out' }], returns: { kind: 'composite' } });
  t.match(routine('concat_all'), { params: [{ name: 'parts', type: 'text[]', mode: 'variadic', hasDefault: false }] });
  t.same(routine('greet').params.map((p) => [p.name, p.hasDefault]), [['name', false], ['greeting', true], ['punctuation', true]]);
  t.same(routine('do_nothing').returns, { kind: 'void' });
  t.match(routine('reset_stats'), { isProcedure: true, returns: { kind: 'void' }, params: [{ name: 'reason', mode: 'in' }] });
  t.same(findRoutines(cache, 'public', 'overloaded').map((r) => r.signature), ['public.overloaded()', 'public.overloaded(integer)', 'public.overloaded(text)']);
  t.same(routine('overloaded', 2).returns, { kind: 'scalar', type: 'text', setOf: false });
  t.match(routine('echo_json'), { params: [{ name: '', type: 'json' }] }, 'one unnamed json argument is callable');
  t.same(findRoutines(cache, 'public', 'unnamed_pair'), [], 'two unnamed arguments: not callable');
  t.same(findRoutines(cache, 'public', 'touch'), [], 'trigger functions are not routines');
  t.same(findRoutines(cache, 'public', 'films_tsv_agg'), [], 'aggregates are not routines');
  t.same(findRoutines(cache, 'public', 'director_films'), [], 'computed relationship functions take an unnamed row: not callable');
  t.same(routine('get_mood').returns, { kind: 'scalar', type: 'public.mood', setOf: false });
  t.same(routine('make_pair').returns, { kind: 'composite', type: { schema: 'public', name: 'pair' }, setOf: false, isRelation: false });
  t.same(routine('film_poster').returns, { kind: 'scalar', type: 'public."image/png"', setOf: false });
  t.match(routine('extra.ping'), { schema: 'extra', signature: 'extra.ping()', volatility: 'immutable' });
  t.same(findRoutines(cache, 'private', 'hidden_fn'), []);
});

t.test('media-type handlers', async (t) => {
  t.same(cache.mediaHandlers, [
    { mediaType: '*/*', binary: true, function: { schema: 'public', name: 'raw_bytes' }, relation: null, isAggregate: false },
    { mediaType: 'application/vnd.twkb', binary: true, function: { schema: 'public', name: 'any_twkb_agg' }, relation: null, isAggregate: true },
    { mediaType: 'application/vnd.twkb', binary: true, function: { schema: 'public', name: 'any_twkb_trans' }, relation: null, isAggregate: false },
    { mediaType: 'image/png', binary: true, function: { schema: 'public', name: 'film_poster' }, relation: null, isAggregate: false },
    { mediaType: 'text/tab-separated-values', binary: false, function: { schema: 'public', name: 'films_tsv_agg' }, relation: { schema: 'public', name: 'films' }, isAggregate: true },
    { mediaType: 'text/tab-separated-values', binary: false, function: { schema: 'public', name: 'films_tsv_trans' }, relation: null, isAggregate: false },
  ]);
});

t.test('determinism and the exposed schemas', async (t) => {
  const again = (await loadSchemaCache(client, SCHEMAS)).cache;
  t.same(again, cache, 'two loads are equal');
  t.equal(JSON.stringify(again), JSON.stringify(cache), 'and serialise identically');
  t.equal(JSON.stringify(buildSchemaCache(raw, SCHEMAS)), JSON.stringify(buildSchemaCache(raw, SCHEMAS)), 'two builds are equal');
  const reversed: RawCatalog = {
    version: raw.version,
    relations: [...raw.relations].reverse(),
    foreignKeys: [...raw.foreignKeys].reverse(),
    viewSources: [...raw.viewSources].reverse(),
    routines: [...raw.routines].reverse(),
    computedRelationships: [...raw.computedRelationships].reverse(),
    mediaHandlers: [...raw.mediaHandlers].reverse(),
    types: [...(raw.types ?? [])].reverse(),
  };
  t.equal(JSON.stringify(buildSchemaCache(reversed, SCHEMAS)), JSON.stringify(cache), 'row order does not matter');

  const onlyExtra = (await loadSchemaCache(client, ['extra'])).cache;
  t.same(onlyExtra.relations.map((r) => r.name), ['things']);
  t.same(onlyExtra.relationships, [], 'public is not exposed: no relationship to films');
  t.same(onlyExtra.routines.map((r) => r.name), ['ping']);
  t.same(onlyExtra.mediaHandlers, []);

  const pool = new pg.Pool({ connectionString: db.uri, max: 1 });
  try {
    t.same((await loadSchemaCache(pool, SCHEMAS)).cache, cache, 'from a pool');
  } finally {
    await pool.end();
  }
});

/** A connection of its own to `uri` for `fn`, closed afterwards. */
async function withClient<T>(uri: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: uri });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

t.test('the catalog read on two connections sharing one snapshot', async (t) => {
  const serial = JSON.stringify(raw);
  await withClient(db.uri, async (helper) => {
    const shared = await fetchCatalog(client, SCHEMAS, helper);
    t.equal(shared.parallel, true, 'the helper imported the snapshot');
    t.equal(JSON.stringify(shared.raw), serial, 'and the rows are those of a read on one connection');
  });

  // A helper on another database cannot import the snapshot: all of it is read on `client`.
  await withClient(withDatabase(db.uri, 'postgres'), async (other) => {
    const alone = await fetchCatalog(client, SCHEMAS, other);
    t.equal(alone.parallel, false, 'snapshot refused: not parallel');
    t.equal(JSON.stringify(alone.raw), serial, 'same rows');
    t.same((await other.query('SELECT 1 AS ok')).rows, [{ ok: 1 }], 'the refused helper is usable (its transaction was ended)');
  });

  // A server that will not export a snapshot: the transaction is started again and read alone.
  const refusing: CatalogClient = {
    query: (text: string, values?: unknown[]) =>
      text.includes('pg_export_snapshot') ? client.query('SELECT 1/0') : client.query(text, values),
  };
  await withClient(db.uri, async (helper) => {
    const fallback = await fetchCatalog(refusing, SCHEMAS, helper);
    t.equal(fallback.parallel, false, 'export refused: not parallel');
    t.equal(JSON.stringify(fallback.raw), serial, 'same rows');
  });
  t.same((await client.query('SELECT 1 AS ok')).rows, [{ ok: 1 }], 'the client is out of its transaction and usable');
});

t.test('the recorded raw catalog builds the same cache', async (t) => {
  if (process.env.DBREST_RECORD_CATALOG === '1') {
    writeFileSync(RAW_FIXTURE, JSON.stringify(raw, null, 1) + '\n');
    t.comment(`recorded ${RAW_FIXTURE}`);
  }
  const recorded = JSON.parse(readFileSync(RAW_FIXTURE, 'utf8')) as RawCatalog;
  const built = buildSchemaCache(recorded, SCHEMAS);
  t.same({ ...built, serverVersion: 0 }, { ...cache, serverVersion: 0 }, 'rerecord with DBREST_RECORD_CATALOG=1 after changing catalog.sql');
});

t.test('lookups on the live cache', async (t) => {
  t.equal(findRelation(cache, 'public', 'films')?.name, 'films');
  t.equal(findRelation(cache, 'extra', 'films'), undefined);
  t.ok(relationshipsFrom(cache, 'public', 'films').every((r: Relationship) => r.from.name === 'films'));
  t.same(relationshipsFrom(cache, 'public', 'nope'), []);
  t.equal(suggest('flims', cache.relations.filter((r) => r.schema === 'public').map((r) => r.name)), 'films');
  t.equal(suggest('directrs', cache.relations.map((r) => r.name)), 'directors');
});

t.test('introspect prints the cache', async (t) => {
  const config = { dbSchemas: ['public', 'extra'], dbUri: db.uri } as unknown as AppConfig;
  const capture = () => {
    let text = '';
    return { stream: { write: (s: string) => ((text += s), true) }, text: () => text };
  };
  const out = capture();
  const err = capture();
  t.equal(await runIntrospect({ ...config, dbUri: db.uri }, {}, { json: true, io: { stdout: out.stream, stderr: err.stream } }), 0);
  t.same(JSON.parse(out.text()), JSON.parse(JSON.stringify(cache)), '--json is the SchemaCache');

  const out2 = capture();
  t.equal(await runIntrospect(config, {}, { json: false, io: { stdout: out2.stream, stderr: err.stream } }), 0, 'the CLI call shape');
  const summary = out2.text().replace(/\u001b\[[0-9;]*m/g, '');
  t.match(summary, /films → directors \(m2o, films_director_id_fkey\)/);
  t.match(summary, /films → actors \(m2m via roles/);
  t.match(summary, /directors → films \(o2m, computed: director_films\)/);
  t.match(summary, /extra\.things → films \(m2o, things_film_id_fkey\)/);
  t.match(summary, /films\s+8 columns\s+PK \(id\)/);
  t.match(summary, /add\(a integer, b integer\) → integer/);
  t.match(summary, /text\/tab-separated-values\s+films_tsv_agg \(aggregate\) on films/);

  const out3 = capture();
  t.equal(await runIntrospect({ ...config, dbUri: db.uri }, {}, { json: true, schema: 'extra', io: { stdout: out3.stream, stderr: err.stream } }), 0);
  t.same((JSON.parse(out3.text()) as SchemaCache).relations.map((r) => r.name), ['things'], '--schema');

  const err2 = capture();
  // No db-uri: the embedded database (test/cli/embedded-commands.test.ts); one that cannot start is one line, exit 1.
  t.equal(await runIntrospect({ ...config, dbUri: null, dbEmbeddedDir: '/dev/null/pgdata' }, {}, { json: true, io: { stdout: out3.stream, stderr: err2.stream } }), 1, 'no db-uri, no embedded database');
  t.match(err2.text(), /the embedded PostgreSQL did not start/);
});
