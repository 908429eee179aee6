// buildSchemaCache: RawCatalog (rows of the catalog queries) → SchemaCache. Pure and
// deterministic: no I/O, no clock, output sorted, and linear in the size of the catalog (every
// lookup goes through a Map keyed by `schema.name`). The relationship rules are PostgREST's
// (src/PostgREST/SchemaCache.hs): FK m2o/o2o, their inverses, relationships of views traced to
// their base tables, m2m through junctions, computed relationships overriding detected ones.
import type {
  Cardinality,
  Column,
  ColumnPairs,
  ComputedRelationship,
  ForeignKeyRelationship,
  MediaHandler,
  ParamMode,
  QualifiedName,
  Relation,
  RelationKind,
  Relationship,
  Routine,
  RoutineParam,
  RoutineReturn,
  SchemaCache,
  UserType,
  Volatility,
} from './types.js';
import type {
  RawCatalog,
  RawColumn,
  RawComputedRelationshipRow,
  RawForeignKeyRow,
  RawMediaHandlerRow,
  RawRelationRow,
  RawRepresentationRow,
  RawRoutineRow,
  RawTypeRow,
  RawViewSourceRow,
} from './raw.js';

export function buildSchemaCache(raw: RawCatalog, schemas: readonly string[]): SchemaCache {
  const exposed = new Set(schemas);
  const relationRows = raw.relations.filter((r) => exposed.has(r.schema));
  const keyDeps = viewKeyDependencies(raw.viewSources, raw.foreignKeys, exposed);
  const reps = representationsByType(raw.representations ?? []);
  const relations = sortBy(
    relationRows.map((r) => toRelation(r, keyDeps, reps)),
    (r) => [r.schema, r.name],
  );
  const byName = new Map<string, Relation>();
  for (const r of relations) byName.set(qkey(r), r);

  const rowTypes = new Set(relations.map((r) => `${r.schema}.${r.name}`));
  const routines = sortBy(
    raw.routines.filter((r) => exposed.has(r.schema) && (isCallable(r) || isComputedField(r, rowTypes))).map(toRoutine),
    (r) => [r.schema, r.name, r.signature],
  );
  const mediaHandlers = sortBy(
    raw.mediaHandlers.filter((h) => exposed.has(h.function_schema)).map(toMediaHandler),
    (h) => [h.mediaType, h.function.schema, h.function.name, h.relation?.schema ?? '', h.relation?.name ?? ''],
  );
  const cache = {
    version: 1 as const,
    schemas: [...schemas],
    relations,
    relationships: [] as Relationship[],
    routines,
    mediaHandlers,
    types: sortBy((raw.types ?? []).filter((t) => exposed.has(t.schema)).flatMap(toUserType), (t) => [t.schema, t.name]),
    serverVersion: raw.version[0]?.server_version_num ?? 0,
  };
  // Relationships are worked out on first use (the first embed, OpenAPI, introspect): on a big
  // catalog they are the largest part of the build, and a cold start's first requests, reads of
  // one table, do not need them. An enumerable getter that replaces itself with the value, so the
  // cache still reads, compares and serialises as the plain value it was (same key order).
  let relationships: Relationship[] | null = null;
  Object.defineProperty(cache, 'relationships', {
    enumerable: true,
    configurable: true,
    get() {
      if (relationships === null) {
        relationships = buildRelationships(raw.foreignKeys, raw.computedRelationships, keyDeps, byName);
        // Now a plain property (not on a frozen cache: its getter just keeps answering).
        if (Object.isExtensible(cache)) Object.defineProperty(cache, 'relationships', { value: relationships, enumerable: true, writable: false, configurable: false });
      }
      return relationships;
    },
  });
  return cache;
}

// ---------------------------------------------------------------------------------------------
// Relations

const RELATION_KINDS: Readonly<Record<string, RelationKind>> = {
  r: 'table',
  v: 'view',
  m: 'materialized_view',
  f: 'foreign_table',
  p: 'partitioned_table',
};

type Representations = ReadonlyMap<string, NonNullable<Column['representation']>>;

/** Domain type (format_type spelling) → its json/text cast functions. */
function representationsByType(rows: ReadonlyArray<RawRepresentationRow>): Representations {
  const out = new Map<string, { toJson?: QualifiedName; fromJson?: QualifiedName; fromText?: QualifiedName }>();
  const at = (type: string) => {
    let r = out.get(type);
    if (r === undefined) out.set(type, (r = {}));
    return r;
  };
  for (const row of rows) {
    const fn = { schema: row.function_schema, name: row.function_name };
    if (row.target === 'json') at(row.source).toJson = fn;
    else if (row.source === 'json') at(row.target).fromJson = fn;
    else if (row.source === 'text') at(row.target).fromText = fn;
  }
  return out;
}

function toRelation(r: RawRelationRow, deps: KeyDependencies, reps: Representations): Relation {
  const isView = r.kind === 'v' || r.kind === 'm';
  const readOnly = new Set(r.read_only_columns ?? []);
  return {
    schema: r.schema,
    name: r.name,
    kind: RELATION_KINDS[r.kind] ?? 'table',
    description: r.description,
    columns: [...r.columns].sort((a, b) => a[1] - b[1]).map((c) => toColumn(c, reps, readOnly)),
    primaryKey: isView ? (deps.viewPrimaryKeys.get(qkey(r)) ?? []) : [...r.primary_key],
    insertable: r.insertable,
    updatable: r.updatable,
    deletable: r.deletable,
  };
}

function toColumn(c: RawColumn, reps: Representations, readOnly: ReadonlySet<string>): Column {
  const [name, position, type, baseType, nullable, dflt, maxLength, description, enumValues, generated, identity] = c;
  const representation = reps.get(type);
  return {
    name,
    type,
    baseType,
    nullable,
    default: dflt,
    maxLength,
    description,
    enumValues: [...(enumValues ?? [])],
    position,
    generated,
    ...(identity === 'a' ? { identity: 'always' as const } : identity === 'd' ? { identity: 'by default' as const } : {}),
    ...(readOnly.has(name) ? { updatable: false as const } : {}),
    ...(representation ? { representation } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Views: trace each column to the base-table column it shows, then find which keys of those
// tables a view exposes completely (PostgREST's allViewsKeyDependencies, done here instead of in
// SQL). A key counts only when all its columns appear in the view; a column shown several times
// gives one relationship per way of picking the view columns.

/** One output column of a view's query: view attnum → (origin relation oid, its attnum). */
export interface ViewTarget {
  readonly resno: number;
  readonly origTable: number;
  readonly origColumn: number;
}

/**
 * Reads the top-level targetList of a view's rewrite rule (`pg_rewrite.ev_action`, the
 * pg_node_tree text `({QUERY ... :targetList ({TARGETENTRY :expr {...} :resno 1 :resname id
 * ... :resorigtbl 16415 :resorigcol 1 :resjunk false} ...) ...})`). Tokens follow pg_strtok:
 * whitespace separates, `(){}` stand alone, a backslash escapes the next character. Only the
 * fields of TARGETENTRY nodes directly in the outer QUERY's targetList are read; entries
 * without an origin (expressions) have resorigtbl 0 and are skipped, as are resjunk ones.
 */
export function parseViewTargets(definition: string): ViewTarget[] {
  const s = definition;
  const n = s.length;
  let i = 0;
  const next = (): string | null => {
    while (i < n) {
      const ch = s.charCodeAt(i);
      if (ch === 32 || ch === 10 || ch === 9 || ch === 13) i++;
      else break;
    }
    if (i >= n) return null;
    const ch = s[i]!;
    if (ch === '(' || ch === ')' || ch === '{' || ch === '}') {
      i++;
      return ch;
    }
    const start = i;
    while (i < n) {
      const c = s[i]!;
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '(' || c === ')' || c === '{' || c === '}') break;
      i++;
    }
    return s.slice(start, Math.min(i, n));
  };

  const out: ViewTarget[] = [];
  let depth = 0;
  let queryDepth = -1; // depth inside the outer {QUERY ...}
  let expectQueryType = false;
  let afterTargetList = false;
  let listDepth = -1; // depth inside the targetList's ( ... )
  let entryDepth = -1; // depth inside a {TARGETENTRY ...}
  let field: string | null = null; // a field of the current entry waiting for its value
  let resno = 0;
  let tbl = 0;
  let col = 0;
  let junk = false;

  for (let t = next(); t !== null; t = next()) {
    if (t === '{' || t === '(') {
      depth++;
      field = null; // a structured value (e.g. :expr {VAR ...}) is not one we read
      if (queryDepth < 0) {
        if (t === '{') expectQueryType = true;
      } else if (afterTargetList) {
        afterTargetList = false;
        if (t !== '(') return out;
        listDepth = depth;
      } else if (listDepth > 0 && entryDepth < 0 && t === '{' && depth === listDepth + 1) {
        entryDepth = depth;
        resno = 0;
        tbl = 0;
        col = 0;
        junk = false;
      }
      continue;
    }
    if (t === '}' || t === ')') {
      if (depth === entryDepth) {
        if (resno > 0 && tbl > 0 && col > 0 && !junk) out.push({ resno, origTable: tbl, origColumn: col });
        entryDepth = -1;
      } else if (depth === listDepth || depth === queryDepth) {
        return out;
      }
      depth--;
      continue;
    }
    if (expectQueryType) {
      expectQueryType = false;
      if (t !== 'QUERY') return out;
      queryDepth = depth;
      continue;
    }
    if (depth === queryDepth && listDepth < 0) {
      if (afterTargetList) return out; // `:targetList <>`: no columns
      if (t === ':targetList') afterTargetList = true;
      continue;
    }
    if (depth === entryDepth) {
      if (field !== null) {
        if (field === ':resno') resno = Number(t);
        else if (field === ':resorigtbl') tbl = Number(t);
        else if (field === ':resorigcol') col = Number(t);
        else if (field === ':resjunk') junk = t === 'true';
        field = null;
      } else if (t.startsWith(':')) {
        field = t;
      }
    }
  }
  return out;
}

type KeyDepType = 'p' | 'f' | 'f_ref';

/** A key of a base table fully shown by a view: `[table column, view columns showing it]`. */
interface KeyDependency {
  readonly table: QualifiedName;
  readonly view: QualifiedName;
  readonly constraint: string;
  readonly type: KeyDepType;
  readonly columns: ReadonlyArray<readonly [string, ReadonlyArray<string>]>;
}

interface KeyDependencies {
  /** traced primary keys of views, by `schema.name` of the view */
  readonly viewPrimaryKeys: ReadonlyMap<string, ReadonlyArray<string>>;
  /** FK dependencies by `schema.name of the referencing table` + constraint */
  readonly fk: ReadonlyMap<string, KeyDependency[]>;
  /** FK reference dependencies by `schema.name of the referenced table` + constraint */
  readonly fkRef: ReadonlyMap<string, KeyDependency[]>;
}

function viewKeyDependencies(
  sources: ReadonlyArray<RawViewSourceRow>,
  foreignKeys: ReadonlyArray<RawForeignKeyRow>,
  exposed: ReadonlySet<string>,
): KeyDependencies {
  const byOid = new Map<number, RawViewSourceRow>();
  for (const s of sources) byOid.set(s.oid, s);
  const targets = new Map<number, Map<number, ViewTarget>>();
  for (const s of sources) {
    if (s.definition === null) continue;
    const m = new Map<number, ViewTarget>();
    for (const t of parseViewTargets(s.definition)) m.set(t.resno, t);
    targets.set(s.oid, m);
  }
  // (view oid, attnum) → base (oid, attnum), following views of views; memoised, cycle-safe.
  const memo = new Map<string, readonly [number, number] | null>();
  const origin = (oid: number, attnum: number, seen: Set<number>): readonly [number, number] | null => {
    const key = `${oid}:${attnum}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const t = targets.get(oid)?.get(attnum);
    let res: readonly [number, number] | null = null;
    if (t !== undefined && byOid.has(t.origTable)) {
      if (targets.has(t.origTable)) {
        if (!seen.has(t.origTable)) {
          seen.add(t.origTable);
          res = origin(t.origTable, t.origColumn, seen);
        }
      } else {
        res = [t.origTable, t.origColumn];
      }
    }
    memo.set(key, res);
    return res;
  };

  const fksFrom = new Map<string, RawForeignKeyRow[]>();
  const fksTo = new Map<string, RawForeignKeyRow[]>();
  for (const fk of foreignKeys) {
    push(fksFrom, `${fk.schema}.${fk.table}`, fk);
    push(fksTo, `${fk.foreign_schema}.${fk.foreign_table}`, fk);
  }

  const viewPrimaryKeys = new Map<string, string[]>();
  const fk = new Map<string, KeyDependency[]>();
  const fkRef = new Map<string, KeyDependency[]>();

  const views = sources
    .filter((s) => s.definition !== null && exposed.has(s.schema))
    .sort((a, b) => cmp([a.schema, a.name], [b.schema, b.name]));
  for (const v of views) {
    const viewName: QualifiedName = { schema: v.schema, name: v.name };
    const cols = v.columns ?? [];
    // base table oid → base column name → view column names (in view column order)
    const shown = new Map<number, Map<string, string[]>>();
    for (let attnum = 1; attnum <= cols.length; attnum++) {
      const viewCol = cols[attnum - 1];
      if (viewCol === null || viewCol === undefined) continue;
      const o = origin(v.oid, attnum, new Set([v.oid]));
      if (o === null) continue;
      const baseCol = byOid.get(o[0])?.columns?.[o[1] - 1];
      if (baseCol === null || baseCol === undefined) continue;
      let m = shown.get(o[0]);
      if (m === undefined) shown.set(o[0], (m = new Map()));
      push(m, baseCol, viewCol);
    }
    const pk: string[] = [];
    for (const [oid, m] of shown) {
      const base = byOid.get(oid)!;
      const table: QualifiedName = { schema: base.schema, name: base.name };
      const tkey = `${base.schema}.${base.name}`;
      const dep = (keyCols: ReadonlyArray<string>): Array<readonly [string, string[]]> | null => {
        const res: Array<readonly [string, string[]]> = [];
        for (const c of keyCols) {
          const vs = m.get(c);
          if (vs === undefined) return null;
          res.push([c, vs]);
        }
        return res.length > 0 ? res : null;
      };
      const pkDep = dep(base.primary_key);
      if (pkDep !== null) for (const [, vs] of pkDep) pk.push(vs[0]!);
      for (const f of fksFrom.get(tkey) ?? []) {
        const d = dep(f.columns.map((p) => p[0]));
        if (d !== null) push(fk, `${tkey}|${f.name}`, { table, view: viewName, constraint: f.name, type: 'f', columns: d });
      }
      for (const f of fksTo.get(tkey) ?? []) {
        const d = dep(f.columns.map((p) => p[1]));
        if (d !== null) push(fkRef, `${tkey}|${f.name}`, { table, view: viewName, constraint: f.name, type: 'f_ref', columns: d });
      }
    }
    viewPrimaryKeys.set(`${v.schema}.${v.name}`, pk);
  }
  return { viewPrimaryKeys, fk, fkRef };
}

/** Every way of choosing one view column per key column: [[c1, c2], ...] (PostgREST's expandKeyDepCols). */
function expandKeyDepCols(dep: KeyDependency): string[][] {
  let acc: string[][] = [[]];
  for (const [, vs] of dep.columns) {
    const nextAcc: string[][] = [];
    for (const prefix of acc) for (const v of vs) nextAcc.push([...prefix, v]);
    acc = nextAcc;
  }
  return acc;
}

// ---------------------------------------------------------------------------------------------
// Relationships

type FkRel = ForeignKeyRelationship;

function buildRelationships(
  foreignKeys: ReadonlyArray<RawForeignKeyRow>,
  computedRows: ReadonlyArray<RawComputedRelationshipRow>,
  deps: KeyDependencies,
  relations: ReadonlyMap<string, Relation>,
): Relationship[] {
  // 1. m2o / o2o from each FK, and the same for views showing the FK's columns.
  const toOne: FkRel[] = [];
  for (const f of foreignKeys) {
    const from: QualifiedName = { schema: f.schema, name: f.table };
    const to: QualifiedName = { schema: f.foreign_schema, name: f.foreign_table };
    const card: Cardinality = f.one_to_one ? 'o2o' : 'm2o';
    const cols = f.columns;
    toOne.push(fkRel(from, to, card, f.name, cols, sameName(from, to)));
    const viewFrom = deps.fk.get(`${f.schema}.${f.table}|${f.name}`) ?? [];
    const viewTo = deps.fkRef.get(`${f.foreign_schema}.${f.foreign_table}|${f.name}`) ?? [];
    const fromExpansions = viewFrom.map((d) => [d, expandKeyDepCols(d)] as const);
    const toExpansions = viewTo.map((d) => [d, expandKeyDepCols(d)] as const);
    for (const [d, exps] of fromExpansions) {
      for (const vcols of exps) toOne.push(fkRel(d.view, to, card, f.name, zip(vcols, cols.map((p) => p[1])), false));
    }
    for (const [d, exps] of toExpansions) {
      for (const vcols of exps) toOne.push(fkRel(from, d.view, card, f.name, zip(cols.map((p) => p[0]), vcols), false));
    }
    for (const [d1, exps1] of fromExpansions) {
      for (const vcols1 of exps1) {
        for (const [d2, exps2] of toExpansions) {
          for (const vcols2 of exps2) {
            toOne.push(fkRel(d1.view, d2.view, card, f.name, zip(vcols1, vcols2), sameName(d1.view, d2.view)));
          }
        }
      }
    }
  }

  // 2. m2m: a relation with two different m2o FKs whose columns all belong to its primary key
  //    is a junction between their targets (PostgREST's addM2MRels; the junction may be a view).
  const m2m: FkRel[] = [];
  const m2oByFrom = new Map<string, FkRel[]>();
  for (const r of toOne) if (r.cardinality === 'm2o') push(m2oByFrom, qkey(r.from), r);
  for (const [jkey, rels] of m2oByFrom) {
    if (rels.length < 2) continue;
    const pk = new Set(relations.get(jkey)?.primaryKey ?? []);
    if (pk.size === 0) continue;
    const inPk = rels.filter((r) => r.columns.every(([c]) => pk.has(c)));
    for (const r1 of inPk) {
      for (const r2 of inPk) {
        if (r1.constraintName === r2.constraintName) continue;
        m2m.push({
          kind: 'fk',
          from: r1.to,
          to: r2.to,
          cardinality: 'm2m',
          constraintName: r1.from.name,
          columns: [],
          junction: {
            table: r1.from,
            constraintFrom: r1.constraintName,
            columnsFrom: r1.columns.map(([j, t]) => [t, j] as const),
            constraintTo: r2.constraintName,
            columnsTo: r2.columns.map(([j, t]) => [t, j] as const),
          },
          isSelf: sameName(r1.to, r2.to),
        });
      }
    }
  }

  // 3. inverses: m2o → o2m, o2o → o2o the other way (from the parent, the referenced side).
  const inverses: FkRel[] = toOne.map((r) => {
    const inverse = fkRel(r.to, r.from, r.cardinality === 'm2o' ? 'o2m' : 'o2o', r.constraintName, r.columns.map(([a, b]) => [b, a] as const), r.isSelf);
    return r.cardinality === 'o2o' ? { ...inverse, isParent: true as const } : inverse;
  });

  // 4. keep what is between exposed relations (and through an exposed junction). Looked up by
  //    schema then name: no key string is built for each of the tens of thousands of candidates.
  const namesBySchema = new Map<string, Set<string>>();
  for (const r of relations.values()) {
    const names = namesBySchema.get(r.schema);
    if (names === undefined) namesBySchema.set(r.schema, new Set([r.name]));
    else names.add(r.name);
  }
  const exposed = (q: QualifiedName): boolean => namesBySchema.get(q.schema)?.has(q.name) === true;
  const visible = (r: FkRel): boolean => exposed(r.from) && exposed(r.to) && (r.junction === null || exposed(r.junction.table));

  // 5. computed relationships; one named like a relation overrides the FK relationships to it.
  const computed: ComputedRelationship[] = computedRows
    .filter((c) => relations.has(`${c.from_schema}.${c.from_name}`) && relations.has(`${c.to_schema}.${c.to_name}`))
    .map((c) => {
      const from = { schema: c.from_schema, name: c.from_name };
      const to = { schema: c.to_schema, name: c.to_name };
      return {
        kind: 'computed',
        from,
        to,
        cardinality: !c.returns_set || c.rows === 1 ? 'm2o' : 'o2m',
        function: { schema: c.function_schema, name: c.function_name },
        isSelf: sameName(from, to),
      };
    });
  const overridden = new Set(computed.map((c) => `${qkey(c.from)}|${qkey(c.function)}`));

  // Each relationship's key is computed once, as one string, for both the de-duplication and the
  // sort (comparing the joined strings orders them as comparing their parts would: see relationshipKey).
  const keyed: Array<readonly [string, Relationship]> = [];
  const seen = new Set<string>();
  for (const list of [toOne, inverses, m2m]) {
    for (const r of list) {
      if (!visible(r) || (overridden.size > 0 && overridden.has(`${qkey(r.from)}|${qkey(r.to)}`))) continue;
      const k = relationshipKey(r);
      if (seen.has(k)) continue;
      seen.add(k);
      keyed.push([k, r]);
    }
  }
  for (const c of computed) keyed.push([relationshipKey(c), c]);
  return keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, r]) => r);
}

function fkRel(from: QualifiedName, to: QualifiedName, cardinality: Cardinality, constraintName: string, columns: ColumnPairs, isSelf: boolean): FkRel {
  return { kind: 'fk', from, to, cardinality, constraintName, columns, junction: null, isSelf };
}

const CARDINALITY_ORDER: Readonly<Record<Cardinality, string>> = { m2o: '0', o2m: '1', o2o: '2', m2m: '3' };

/**
 * The sort key of a relationship: its parts joined by NUL. No part contains NUL (PostgreSQL names
 * cannot), and NUL sorts before every other code unit, so comparing two joined keys gives the
 * order of comparing their parts one by one in code-unit order.
 */
function relationshipKey(r: Relationship): string {
  const base = `${r.from.schema}\u0000${r.from.name}\u0000${r.to.schema}\u0000${r.to.name}\u0000${r.kind === 'fk' ? '0' : '1'}\u0000${CARDINALITY_ORDER[r.cardinality]}`;
  if (r.kind === 'computed') return `${base}\u0000${r.function.schema}\u0000${r.function.name}`;
  const j = r.junction;
  const junction = j === null ? '' : `${j.table.schema}.${j.table.name}|${j.constraintFrom}|${j.constraintTo}|${pairsKey(j.columnsFrom)}|${pairsKey(j.columnsTo)}`;
  return `${base}\u0000${r.constraintName}\u0000${junction}\u0000${pairsKey(r.columns)}`;
}

const pairsKey = (p: ColumnPairs): string => p.map(([a, b]) => `${a}\u0001${b}`).join('\u0002');

// ---------------------------------------------------------------------------------------------
// Routines

const PARAM_MODES: Readonly<Record<string, ParamMode>> = { i: 'in', o: 'out', b: 'inout', v: 'variadic', t: 'table' };
const VOLATILITIES: Readonly<Record<string, Volatility>> = { i: 'immutable', s: 'stable', v: 'volatile' };
const isInputMode = (m: string): boolean => m === 'i' || m === 'b' || m === 'v';
/** Types a single unnamed argument may have: it then receives the whole request body (PostgREST). */
const BODY_TYPES = new Set(['bytea', 'json', 'jsonb', 'text', 'xml']);

/** PostgREST calls a routine only when its inputs are all named, or one unnamed takes the body. */
function isCallable(r: RawRoutineRow): boolean {
  const unnamed = r.params.filter((p) => isInputMode(p.mode) && p.name === '');
  if (unnamed.length === 0) return true;
  return unnamed.length === 1 && BODY_TYPES.has(unnamed[0]!.type);
}

/**
 * A function whose only argument is a relation's row type (`average_stars(films)`): not callable
 * over /rpc, but selectable as a computed field of that relation (PostgREST's computed columns).
 */
function isComputedField(r: RawRoutineRow, rowTypes: ReadonlySet<string>): boolean {
  if (r.params.length !== 1 || !isInputMode(r.params[0]!.mode) || r.returns_set) return false;
  return rowTypes.has(r.params[0]!.type.replace(/"/g, ''));
}

function toRoutine(r: RawRoutineRow): Routine {
  const firstDefault = r.nargs - r.nargdefaults;
  let inputIndex = 0;
  const params: RoutineParam[] = r.params.map((p) => {
    const input = isInputMode(p.mode);
    const hasDefault = input && inputIndex >= firstDefault;
    if (input) inputIndex++;
    return { name: p.name, type: p.type, mode: PARAM_MODES[p.mode] ?? 'in', hasDefault };
  });
  return {
    schema: r.schema,
    name: r.name,
    description: r.description,
    params,
    returns: toReturn(r),
    volatility: VOLATILITIES[r.volatility] ?? 'volatile',
    isProcedure: r.kind === 'p',
    signature: r.signature,
    ...(r.returns_set && r.rows !== undefined ? { rows: r.rows } : {}),
  };
}

function toReturn(r: RawRoutineRow): RoutineReturn {
  const hasOutParams = r.params.some((p) => p.mode === 'o' || p.mode === 'b' || p.mode === 't');
  if (!hasOutParams && r.return_base_schema === 'pg_catalog' && r.return_base_name === 'void') return { kind: 'void' };
  // RETURNS TABLE / OUT / INOUT parameters make the result a row even when there is one column.
  if (r.return_base_typtype === 'c' || hasOutParams) {
    const rel = r.return_base_relkind;
    return {
      kind: 'composite',
      type: { schema: r.return_base_schema, name: r.return_base_name },
      setOf: r.returns_set,
      isRelation: rel === 'r' || rel === 'v' || rel === 'm' || rel === 'f' || rel === 'p',
    };
  }
  return { kind: 'scalar', type: r.return_type, setOf: r.returns_set };
}

// ---------------------------------------------------------------------------------------------
// Types (enums, composite types, domains)

function toUserType(t: RawTypeRow): UserType[] {
  const name = { schema: t.schema, name: t.name };
  if (t.kind === 'e') return [{ ...name, kind: 'enum', values: [...(t.enum_values ?? [])] }];
  if (t.kind === 'c') return [{ ...name, kind: 'composite', attributes: (t.attributes ?? []).map(([n, type]) => ({ name: n, type })) }];
  if (t.kind === 'd' && t.base_type !== null) return [{ ...name, kind: 'domain', base: t.base_type }];
  return [];
}

// ---------------------------------------------------------------------------------------------
// Media handlers

function toMediaHandler(h: RawMediaHandlerRow): MediaHandler {
  return {
    mediaType: h.media_type,
    binary: h.base_type === 'bytea',
    ...(h.base_type === 'xml' ? { xml: true as const } : {}),
    function: { schema: h.function_schema, name: h.function_name },
    relation: h.relation_schema !== null && h.relation_name !== null ? { schema: h.relation_schema, name: h.relation_name } : null,
    isAggregate: h.kind === 'aggregate',
  };
}

// ---------------------------------------------------------------------------------------------
// helpers

const qkey = (q: QualifiedName): string => `${q.schema}.${q.name}`;
const sameName = (a: QualifiedName, b: QualifiedName): boolean => a.schema === b.schema && a.name === b.name;

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const a = m.get(k);
  if (a === undefined) m.set(k, [v]);
  else a.push(v);
}

function zip(a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) out.push([a[i]!, b[i]!]);
  return out;
}

/** Code-unit order (not locale order): the same on every machine. */
function cmp(a: ReadonlyArray<string>, b: ReadonlyArray<string>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return a.length - b.length;
}

function sortBy<T>(xs: T[], key: (x: T) => ReadonlyArray<string>): T[] {
  return xs
    .map((x) => [key(x), x] as const)
    .sort((a, b) => cmp(a[0], b[0]))
    .map(([, x]) => x);
}
