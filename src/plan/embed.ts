// Relationship resolution for `select=target!hint(...)`: which relationship of the schema cache an
// embed means (PostgREST's Plan.findRel), and the DBRST200/DBRST201/DBRST205 errors with PostgREST's
// messages and "did you mean" hints. Pure.
import { fuzzyGet, fuzzyGetOne } from '../catalog/fuzzy.js';
import { findRelation, relationshipsFrom as allRelationshipsFrom } from '../catalog/lookup.js';
import type { Cardinality, ForeignKeyRelationship, Relationship, SchemaCache } from '../catalog/types.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';

export { findRelation };

/** DBRST205 404 `Could not find the table 's.t' in the schema cache` with a close name as hint. */
export function relationNotFound(cache: SchemaCache, schema: string, name: string): ApiError {
  const candidates = cache.relations.filter((r) => r.schema === schema).map((r) => r.name);
  const close = fuzzyGetOne(name, candidates, 0.75);
  return errors.DBRST205(`Could not find the table '${schema}.${name}' in the schema cache`, {
    hint: close === null ? null : `Perhaps you meant the table '${schema}.${close}'`,
  });
}

/** m2o and o2o embed as an object (or null); o2m and m2m as an array. */
export function isToOne(rel: Relationship): boolean {
  return rel.cardinality === 'm2o' || rel.cardinality === 'o2o';
}

/**
 * The relationship `origin → target` means in `/origin?select=target!hint(...)`. `target` may name
 * the related table or view, or (tables only) the FK constraint or the FK column (`client_id(*)`);
 * `hint` may be a constraint, a column on either side, or the junction table of an m2m.
 * Self relationships: `family_tree(*)` is the o2m (children), `parent(*)` (the FK column) the m2o.
 */
export function resolveRelationship(
  cache: SchemaCache,
  schema: string,
  origin: string,
  target: string,
  hint: string | null,
): Result<Relationship> {
  const fromOrigin = relationshipsFrom(cache, schema, origin);
  const matches = fromOrigin.filter((rel) => matchesTarget(cache, rel, target, hint));
  if (matches.length === 1) return ok(matches[0]!);
  if (matches.length === 0) return err(noRelationship(cache, schema, origin, target, hint));
  return err(ambiguous(origin, target, matches));
}

/** Relationships leaving `schema.origin` towards relations of the same schema (PostgREST keys them so). */
function relationshipsFrom(cache: SchemaCache, schema: string, origin: string): Relationship[] {
  return allRelationshipsFrom(cache, schema, origin).filter((r) => r.to.schema === schema);
}

function matchesTarget(cache: SchemaCache, rel: Relationship, target: string, hint: string | null): boolean {
  if (rel.kind === 'computed') return target === rel.function.name;
  const targetIsView = (() => {
    const to = findRelation(cache, rel.to.schema, rel.to.name);
    return to !== undefined && (to.kind === 'view' || to.kind === 'materialized_view');
  })();
  if (rel.isSelf) {
    if (hint === null) {
      return (
        (target === rel.to.name && rel.cardinality === 'o2m') || // children:family_tree(*)
        (singleFromColumn(rel) === target && rel.cardinality === 'm2o') // parent(*)
      );
    }
    // /organizations?select=auditees:organizations!auditor(*)
    return target === rel.to.name && rel.cardinality === 'o2m' && singleToColumn(rel) === hint;
  }
  if (hint === null) {
    return (
      target === rel.to.name || // clients(*)
      (!targetIsView && rel.cardinality !== 'm2m' && rel.constraintName === target) || // projects_client_id_fkey(*)
      (!targetIsView && singleFromColumn(rel) === target) // client_id(*)
    );
  }
  return (
    target === rel.to.name &&
    ((rel.cardinality !== 'm2m' && rel.constraintName === hint) || // clients!projects_client_id_fkey(*)
      singleFromColumn(rel) === hint || // clients!client_id(*)
      singleToColumn(rel) === hint || // clients!id(*)
      (rel.cardinality === 'm2m' && rel.junction?.table.name === hint)) // tasks!users_tasks(*)
  );
}

const singleFromColumn = (rel: ForeignKeyRelationship): string | null =>
  rel.cardinality !== 'm2m' && rel.columns.length === 1 ? rel.columns[0]![0] : null;
const singleToColumn = (rel: ForeignKeyRelationship): string | null =>
  rel.cardinality !== 'm2m' && rel.columns.length === 1 ? rel.columns[0]![1] : null;

// ---- errors ---------------------------------------------------------------------------------

function noRelationship(cache: SchemaCache, schema: string, parent: string, child: string, hint: string | null): ApiError {
  return errors.DBRST200(`Could not find a relationship between '${parent}' and '${child}' in the schema cache`, {
    details:
      `Searched for a foreign key relationship between '${parent}' and '${child}'` +
      (hint === null ? '' : ` using the hint '${hint}'`) +
      ` in the schema '${schema}', but no matches were found.`,
    hint: noRelationshipHint(cache, schema, parent, child),
  });
}

/**
 * PostgREST: when the parent has relationships, suggest a close child (never the child itself);
 * otherwise suggest a close parent. Nothing when both exist (the hint is what is wrong).
 */
function noRelationshipHint(cache: SchemaCache, schema: string, parent: string, child: string): string | null {
  const fromParent = relationshipsFrom(cache, schema, parent);
  if (fromParent.length > 0) {
    const children = unique(fromParent.map((r) => r.to.name));
    // A child that is there (score 1) gets no hint: the hint is what is wrong.
    const close = fuzzyGet(child, children).find((s) => s.score < 1)?.value ?? null;
    return close === null ? null : `Perhaps you meant '${close}' instead of '${child}'.`;
  }
  const parents = unique(cache.relationships.filter((r) => r.from.schema === schema).map((r) => r.from.name));
  const close = fuzzyGetOne(parent, parents);
  return close === null ? null : `Perhaps you meant '${close}' instead of '${parent}'.`;
}

const CARDINALITY_NAMES: Record<Cardinality, string> = {
  m2o: 'many-to-one',
  o2m: 'one-to-many',
  o2o: 'one-to-one',
  m2m: 'many-to-many',
};

/** One entry of DBRST201's details, as PostgREST lists the candidates. */
export function describeRelationship(rel: Relationship): { cardinality: string; embedding: string; relationship: string } {
  const cols = (xs: ReadonlyArray<string>) => `(${xs.join(', ')})`;
  if (rel.kind === 'computed') {
    return {
      cardinality: CARDINALITY_NAMES[rel.cardinality],
      embedding: `${rel.from.name} with ${rel.to.name}`,
      relationship: `${rel.function.name}`,
    };
  }
  const relationship =
    rel.cardinality === 'm2m' && rel.junction
      ? `${rel.junction.table.name} using ${rel.junction.constraintFrom}${cols(rel.junction.columnsFrom.map((p) => p[1]))}` +
        ` and ${rel.junction.constraintTo}${cols(rel.junction.columnsTo.map((p) => p[1]))}`
      : `${rel.constraintName} using ${rel.from.name}${cols(rel.columns.map((p) => p[0]))}` +
        ` and ${rel.to.name}${cols(rel.columns.map((p) => p[1]))}`;
  return {
    cardinality: CARDINALITY_NAMES[rel.cardinality],
    embedding: `${rel.from.name} with ${rel.to.name}`,
    relationship,
  };
}

/**
 * PostgREST lists DBRST201's candidates sorted as its relationships compare (EmbedDisambiguationSpec):
 * FK relationships before computed ones; then by the two relations, self last, the cardinality
 * (one-to-many, many-to-one, one-to-one, many-to-many), then the constraint (m2m: the junction
 * table, then its two constraints), names compared by code point.
 */
function candidateOrder(a: Relationship, b: Relationship): number {
  if (a.kind !== b.kind) return a.kind === 'fk' ? -1 : 1;
  const keys = (r: Relationship): Array<string | number> => {
    const base = [r.from.schema, r.from.name, r.to.schema, r.to.name, r.isSelf ? 1 : 0];
    if (r.kind === 'computed') return [...base, r.function.schema, r.function.name];
    if (r.cardinality === 'm2m' && r.junction) {
      return [...base, CARDINALITY_RANK.m2m, r.junction.table.schema, r.junction.table.name, r.junction.constraintFrom, r.junction.constraintTo];
    }
    return [...base, CARDINALITY_RANK[r.cardinality], r.constraintName];
  };
  const ka = keys(a);
  const kb = keys(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    if (ka[i]! < kb[i]!) return -1;
    if (ka[i]! > kb[i]!) return 1;
  }
  return ka.length - kb.length;
}
const CARDINALITY_RANK = { o2m: 0, m2o: 1, o2o: 2, m2m: 3 } as const;

function ambiguous(parent: string, child: string, rels: ReadonlyArray<Relationship>): ApiError {
  const hintFor = (rel: Relationship) => {
    if (rel.kind === 'computed') return `'${rel.to.name}!${rel.function.name}'`;
    const h = rel.cardinality === 'm2m' && rel.junction ? rel.junction.table.name : rel.constraintName;
    return `'${rel.to.name}!${h}'`;
  };
  rels = [...rels].sort(candidateOrder);
  const candidates = rels.map(describeRelationship);
  const e = errors.DBRST201(`Could not embed because more than one relationship was found for '${parent}' and '${child}'`, {
    // PostgREST sends a JSON array here: detailsJson renders as JSON, details keeps a text form.
    details: JSON.stringify(candidates),
    hint: `Try changing '${child}' to one of the following: ${rels.map(hintFor).join(', ')}. Find the desired relationship in the 'details' key.`,
  });
  return { ...e, detailsJson: candidates };
}

const unique = <T>(xs: ReadonlyArray<T>): T[] => [...new Set(xs)];
