// Lookups into a SchemaCache. The cache is a plain serialisable value; the indexes these functions
// need are built on first use and memoised per cache object (WeakMap), so a reload simply makes
// new ones and the old ones are collected with the old cache. Pure: no I/O.
import type { Column, MediaHandler, QualifiedName, Relation, Relationship, Routine, SchemaCache } from './types.js';

interface Indexes {
  readonly relations: ReadonlyMap<string, Relation>;
  readonly routines: ReadonlyMap<string, Routine[]>;
  /** The routines /rpc may call (callableOverRpc), by the same key. */
  readonly callable: ReadonlyMap<string, Routine[]>;
  readonly computedFields: ReadonlyMap<string, Routine[]>;
  /** Aggregates over one relation's row type: relation key → media type → handler. */
  readonly relationHandlers: ReadonlyMap<string, ReadonlyMap<string, MediaHandler>>;
  /** Aggregates over `anyelement`: media type → handler. */
  readonly anyHandlers: ReadonlyMap<string, MediaHandler>;
  /** Plain functions returning a media-type domain: function key → media type → handler. */
  readonly functionHandlers: ReadonlyMap<string, ReadonlyMap<string, MediaHandler>>;
}

const NO_HANDLERS: ReadonlyMap<string, MediaHandler> = new Map();

const indexes = new WeakMap<SchemaCache, Indexes>();
const columnIndexes = new WeakMap<Relation, ReadonlyMap<string, Column>>();

const key = (schema: string, name: string): string => `${schema}\u0000${name}`;
const qkey = (q: QualifiedName): string => key(q.schema, q.name);

function indexesOf(cache: SchemaCache): Indexes {
  let ix = indexes.get(cache);
  if (ix !== undefined) return ix;
  const relations = new Map<string, Relation>();
  for (const r of cache.relations) relations.set(qkey(r), r);
  const routines = new Map<string, Routine[]>();
  for (const r of cache.routines) {
    const k = qkey(r);
    const list = routines.get(k);
    if (list === undefined) routines.set(k, [r]);
    else list.push(r);
  }
  const callable = new Map<string, Routine[]>();
  for (const [k, list] of routines) {
    const kept = list.filter(callableOverRpc);
    if (kept.length > 0) callable.set(k, kept);
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
  // Media handlers (PostgREST's MediaHandlerMap): one per (target, media type); the cache is sorted,
  // so when two aggregates claim the same pair the first by name wins, deterministically.
  const relationHandlers = new Map<string, Map<string, MediaHandler>>();
  const anyHandlers = new Map<string, MediaHandler>();
  const functionHandlers = new Map<string, Map<string, MediaHandler>>();
  const addTo = (m: Map<string, Map<string, MediaHandler>>, k: string, h: MediaHandler): void => {
    let byType = m.get(k);
    if (byType === undefined) m.set(k, (byType = new Map()));
    if (!byType.has(h.mediaType)) byType.set(h.mediaType, h);
  };
  for (const h of cache.mediaHandlers) {
    if (!h.isAggregate) addTo(functionHandlers, qkey(h.function), h);
    else if (h.relation === null) {
      if (!anyHandlers.has(h.mediaType)) anyHandlers.set(h.mediaType, h);
    } else addTo(relationHandlers, qkey(h.relation), h);
  }
  ix = { relations, routines, callable, computedFields, relationHandlers, anyHandlers, functionHandlers };
  indexes.set(cache, ix);
  return ix;
}

export function findRelation(cache: SchemaCache, schema: string, name: string): Relation | undefined {
  return indexesOf(cache).relations.get(key(schema, name));
}

/** Relationships by `from`, apart from the other indexes: cache.relationships is worked out on first use (build.ts). */
const relationshipIndexes = new WeakMap<SchemaCache, ReadonlyMap<string, Relationship[]>>();

/** Relationships whose `from` is the relation, in the cache's (sorted) order. */
export function relationshipsFrom(cache: SchemaCache, schema: string, name: string): Relationship[] {
  let ix = relationshipIndexes.get(cache);
  if (ix === undefined) {
    const byFrom = new Map<string, Relationship[]>();
    for (const r of cache.relationships) {
      const k = qkey(r.from);
      const list = byFrom.get(k);
      if (list === undefined) byFrom.set(k, [r]);
      else list.push(r);
    }
    relationshipIndexes.set(cache, (ix = byFrom));
  }
  return ix.get(key(schema, name)) ?? [];
}

/** All overloads of a routine, in signature order; empty when there is none. */
export function findRoutines(cache: SchemaCache, schema: string, name: string): Routine[] {
  return indexesOf(cache).routines.get(key(schema, name)) ?? [];
}

/** The overloads of `schema.name` that /rpc may call (callableOverRpc). */
export function findCallableRoutines(cache: SchemaCache, schema: string, name: string): Routine[] {
  return indexesOf(cache).callable.get(key(schema, name)) ?? [];
}

/** Names of the functions of `schema` that /rpc may call. */
export function callableRoutineNames(cache: SchemaCache, schema: string): string[] {
  const names: string[] = [];
  for (const list of indexesOf(cache).callable.values()) if (list[0]!.schema === schema) names.push(list[0]!.name);
  return names;
}

/**
 * Whether /rpc can name the function's arguments: every input parameter has a name, or the one
 * unnamed parameter takes a whole body (bytea, json, jsonb, text, xml). Others (`blurb_message(messages)`,
 * a computed field) are not in PostgREST's routine cache: calling one is DBRST202, never a call
 * that PostgreSQL refuses.
 */
function callableOverRpc(r: Routine): boolean {
  const unnamed = r.params.filter((p) => (p.mode === 'in' || p.mode === 'inout' || p.mode === 'variadic') && p.name === '');
  if (unnamed.length === 0) return true;
  return unnamed.length === 1 && BODY_TYPES.has(unnamed[0]!.type);
}
const BODY_TYPES: ReadonlySet<string> = new Set(['bytea', 'json', 'jsonb', 'text', 'xml']);

/** Computed fields of a relation: functions taking its row type (`average_stars(films)`). */
export function computedFieldsOf(cache: SchemaCache, relation: QualifiedName): Routine[] {
  return indexesOf(cache).computedFields.get(`${relation.schema}.${relation.name}`) ?? [];
}

/** Aggregates rendering rows of this relation, by media type (`*\/*` included); empty when none. */
export function relationMediaHandlers(cache: SchemaCache, schema: string, name: string): ReadonlyMap<string, MediaHandler> {
  const byRelation = indexesOf(cache).relationHandlers;
  return byRelation.size === 0 ? NO_HANDLERS : (byRelation.get(key(schema, name)) ?? NO_HANDLERS);
}

/** Aggregates over `anyelement` (they render rows of every relation), by media type. */
export function anyElementMediaHandlers(cache: SchemaCache): ReadonlyMap<string, MediaHandler> {
  return indexesOf(cache).anyHandlers;
}

/**
 * The media type a routine's own result carries: the handler entry of a non-SETOF function returning
 * a media-type domain (`returns "text/html"`), or undefined. The routine's return type must be that
 * domain (an overload returning something else does not count).
 */
export function routineMediaHandler(cache: SchemaCache, routine: Routine): MediaHandler | undefined {
  const r = routine.returns;
  if (r.kind !== 'scalar' || r.setOf) return undefined;
  const byType = indexesOf(cache).functionHandlers.get(qkey(routine));
  if (byType === undefined) return undefined;
  // format_type() spells the domain `"text/html"` or `public."text/html"`: the quoted last part.
  const m = /"((?:[^"]|"")+)"$/.exec(r.type);
  return m ? byType.get(m[1]!.replace(/""/g, '"').toLowerCase()) : undefined;
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
