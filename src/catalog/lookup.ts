// Lookups into a SchemaCache. The cache is a plain serialisable value; the indexes these functions
// need are built on first use and memoised per cache object (WeakMap), so a reload simply makes
// new ones and the old ones are collected with the old cache. Pure: no I/O.
import type { Column, QualifiedName, Relation, Relationship, Routine, SchemaCache } from './types.js';

interface Indexes {
  readonly relations: ReadonlyMap<string, Relation>;
  readonly relationshipsFrom: ReadonlyMap<string, Relationship[]>;
  readonly routines: ReadonlyMap<string, Routine[]>;
  readonly computedFields: ReadonlyMap<string, Routine[]>;
}

const indexes = new WeakMap<SchemaCache, Indexes>();
const columnIndexes = new WeakMap<Relation, ReadonlyMap<string, Column>>();

const key = (schema: string, name: string): string => `${schema}\u0000${name}`;
const qkey = (q: QualifiedName): string => key(q.schema, q.name);

function indexesOf(cache: SchemaCache): Indexes {
  let ix = indexes.get(cache);
  if (ix !== undefined) return ix;
  const relations = new Map<string, Relation>();
  for (const r of cache.relations) relations.set(qkey(r), r);
  const relationshipsFrom = new Map<string, Relationship[]>();
  for (const r of cache.relationships) {
    const k = qkey(r.from);
    const list = relationshipsFrom.get(k);
    if (list === undefined) relationshipsFrom.set(k, [r]);
    else list.push(r);
  }
  const routines = new Map<string, Routine[]>();
  for (const r of cache.routines) {
    const k = qkey(r);
    const list = routines.get(k);
    if (list === undefined) routines.set(k, [r]);
    else list.push(r);
  }
  // Computed fields: f(row_type) returning a single non-relation value (PostgREST's computed
  // columns). The parameter type is format_type()'s spelling, schema-qualified.
  const computedFields = new Map<string, Routine[]>();
  for (const r of cache.routines) {
    const only = r.params.length === 1 ? r.params[0]! : null;
    if (!only || (only.mode !== 'in' && only.mode !== 'inout')) continue;
    if (r.returns.kind === 'void' || r.returns.setOf) continue;
    if (r.returns.kind === 'composite' && r.returns.isRelation) continue; // a computed relationship
    const k = only.type.replace(/"/g, '');
    const list = computedFields.get(k);
    if (list === undefined) computedFields.set(k, [r]);
    else list.push(r);
  }
  ix = { relations, relationshipsFrom, routines, computedFields };
  indexes.set(cache, ix);
  return ix;
}

export function findRelation(cache: SchemaCache, schema: string, name: string): Relation | undefined {
  return indexesOf(cache).relations.get(key(schema, name));
}

/** Relationships whose `from` is the relation, in the cache's (sorted) order. */
export function relationshipsFrom(cache: SchemaCache, schema: string, name: string): Relationship[] {
  return indexesOf(cache).relationshipsFrom.get(key(schema, name)) ?? [];
}

/** All overloads of a routine, in signature order; empty when there is none. */
export function findRoutines(cache: SchemaCache, schema: string, name: string): Routine[] {
  return indexesOf(cache).routines.get(key(schema, name)) ?? [];
}

/** Computed fields of a relation: functions taking its row type (`average_stars(films)`). */
export function computedFieldsOf(cache: SchemaCache, relation: QualifiedName): Routine[] {
  return indexesOf(cache).computedFields.get(`${relation.schema}.${relation.name}`) ?? [];
}

export function findColumn(relation: Relation, name: string): Column | undefined {
  let ix = columnIndexes.get(relation);
  if (ix === undefined) {
    ix = new Map(relation.columns.map((c) => [c.name, c]));
    columnIndexes.set(relation, ix);
  }
  return ix.get(name);
}

/**
 * The candidate closest to `name`, for hints like PostgREST's "Perhaps you meant the table
 * 'public.films'", or null when nothing is close enough. Case-insensitive Levenshtein distance,
 * scored as similarity 1 - distance / longer length; a candidate must score at least `minScore`
 * (PostgREST's fuzzy set keeps matches above 0.33; it asks 0.75 for table names so hints do not
 * reveal unrelated tables). Ties go to the first candidate in code-unit order, so the answer does
 * not depend on the candidates' order.
 */
export function suggest(name: string, candidates: ReadonlyArray<string>, minScore = 1 / 3): string | null {
  const target = name.toLowerCase();
  let best: string | null = null;
  let bestScore = -1;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    const longest = Math.max(target.length, lc.length);
    if (longest === 0) continue;
    const score = 1 - levenshtein(target, lc) / longest;
    if (score > bestScore || (score === bestScore && best !== null && c < best)) {
      best = c;
      bestScore = score;
    }
  }
  return best !== null && bestScore >= minScore ? best : null;
}

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}
