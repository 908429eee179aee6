// Route mounts checked against the schema cache (engine spec §5): every mount's function or table
// exists, each argument it binds is a parameter (or column) of it, every required parameter is
// bound, typed path segments suit the parameter types, and each group's error handler and
// pre-request exist. Problems are data, one per mount with a did-you-mean; a bad mount is reported
// and answered as unavailable, never taking the other routes down. Used at start-up, on every
// schema reload and by `check-config`. Pure.
import { findRelation, findRoutines, suggest } from '../catalog/lookup.js';
import type { Relation, Routine, RoutineParam, SchemaCache } from '../catalog/types.js';
import type { RouteGroup, RouteMount } from '../config/types.js';
import { inputParams } from '../plan/call-plan.js';
import { parseTemplate, templateParams, type SegmentType } from './template.js';

/** Where one bound value comes from. */
export type ArgSource =
  | { readonly kind: 'path' | 'query' | 'header' | 'cookie'; readonly name: string }
  | { readonly kind: 'query-all' | 'body' | 'method' | 'media' };

export interface Binding {
  /** Parameter (call mounts) or column (relation mounts) name. */
  readonly name: string;
  /** The parameter's type (calls) or the column's (relations). */
  readonly type: string;
  readonly source: ArgSource;
  /** Leave it out when the request has no value (the parameter's default applies). */
  readonly hasDefault: boolean;
  /** An array parameter or VARIADIC: a repeated query parameter gives every value. */
  readonly list: boolean;
}

interface MountBase {
  readonly group: RouteGroup;
  readonly mount: RouteMount;
  /** Index of the mount in its group, for messages (`routes[0].routes[2]`). */
  readonly where: string;
}

export type ResolvedMount =
  | (MountBase & { readonly kind: 'call'; readonly routine: Routine; readonly bindings: ReadonlyArray<Binding> })
  | (MountBase & { readonly kind: 'relation'; readonly relation: Relation; readonly bindings: ReadonlyArray<Binding> })
  /** Misconfigured: answered with an error naming no internals; `problem` goes to the log. */
  | (MountBase & { readonly kind: 'broken'; readonly problem: string });

export interface ResolvedGroup {
  readonly group: RouteGroup;
  readonly where: string;
  /** The error handler: one json/jsonb input parameter. Null when none is set or it is broken. */
  readonly errorHandler: Routine | null;
  readonly mounts: ReadonlyArray<ResolvedMount>;
}

export interface MountProblem {
  /** `routes[1].routes[0]` — the config key path of the mount or group. */
  readonly where: string;
  /** `GET /api/v1/things/:id`, or `group /api/v1`. */
  readonly what: string;
  readonly message: string;
}

export function parseSource(src: string): ArgSource {
  switch (src) {
    case 'query': return { kind: 'query-all' };
    case 'body': return { kind: 'body' };
    case 'method': return { kind: 'method' };
    case 'media': return { kind: 'media' };
  }
  const dot = src.indexOf('.');
  return { kind: src.slice(0, dot) as 'path' | 'query' | 'header' | 'cookie', name: src.slice(dot + 1) };
}

const splitName = (name: string, fallback: string): { schema: string; name: string } => {
  const dot = name.indexOf('.');
  return dot === -1 ? { schema: fallback, name } : { schema: name.slice(0, dot), name: name.slice(dot + 1) };
};

/** The schema a group's unqualified names live in. */
export const groupSchema = (g: RouteGroup, dbSchemas: ReadonlyArray<string>): string => g.schema ?? dbSchemas[0] ?? 'public';

/** Every schema the mounts name: the schema cache must include them (they need not be in db-schemas). */
export function mountSchemas(groups: ReadonlyArray<RouteGroup>, dbSchemas: ReadonlyArray<string>): string[] {
  const out = new Set<string>();
  for (const g of groups) {
    const s = groupSchema(g, dbSchemas);
    out.add(s);
    for (const name of [g.errorHandler, g.preRequest, ...g.routes.map((m) => m.target.name)]) {
      if (name) out.add(splitName(name, s).schema);
    }
  }
  return [...out];
}

/** The schemas the cache holds: db-schemas, and those route mounts name (they need not be exposed at /). */
export function cacheSchemas(config: { readonly dbSchemas: ReadonlyArray<string>; readonly routes: ReadonlyArray<RouteGroup> }): string[] {
  return [...new Set([...config.dbSchemas, ...mountSchemas(config.routes, config.dbSchemas)])];
}

const INT_TYPES = new Set(['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision', 'text', 'character varying', 'json', 'jsonb']);
const NUMBER_TYPES = new Set(['numeric', 'real', 'double precision', 'text', 'character varying', 'json', 'jsonb']);
const UUID_TYPES = new Set(['uuid', 'text', 'character varying']);

/** Whether a value a segment type admits always reads as the parameter's type. */
function segmentFits(segment: SegmentType | 'tail', type: string): boolean {
  const base = type.replace(/\(.*\)$/, '');
  switch (segment) {
    case 'int': return INT_TYPES.has(base);
    case 'number': return NUMBER_TYPES.has(base);
    case 'uuid': return UUID_TYPES.has(base);
    default: return true;
  }
}

const isList = (p: RoutineParam): boolean => p.mode === 'variadic' || p.type.endsWith('[]');

export function resolveMounts(groups: ReadonlyArray<RouteGroup>, cache: SchemaCache, dbSchemas: ReadonlyArray<string>): { groups: ResolvedGroup[]; problems: MountProblem[] } {
  const problems: MountProblem[] = [];
  const out: ResolvedGroup[] = [];
  groups.forEach((group, gi) => {
    const where = group.prefix === '' && gi === 0 ? 'routes' : `routes[${gi}]`;
    const schema = groupSchema(group, dbSchemas);
    const groupWhat = `group ${group.prefix || '/'}`;
    let errorHandler: Routine | null = null;
    if (group.errorHandler) {
      const r = resolveHelper(group.errorHandler, schema, cache, 'error-handler');
      if (typeof r === 'string') problems.push({ where: `${where}.error-handler`, what: groupWhat, message: r });
      else {
        const params = inputParams(r);
        const required = params.filter((p) => !p.hasDefault);
        if (params.length === 0 || !['json', 'jsonb'].includes(params[0]!.type) || required.length > 1) {
          problems.push({ where: `${where}.error-handler`, what: groupWhat, message: `${r.schema}.${r.name} must take one json or jsonb argument (the error)` });
        } else errorHandler = r;
      }
    }
    // Without its pre-request (often the API's own authentication) no mount of the group may run.
    let preRequestProblem: string | null = null;
    if (group.preRequest) {
      const r = resolveHelper(group.preRequest, schema, cache, 'pre-request');
      if (typeof r === 'string') {
        problems.push({ where: `${where}.pre-request`, what: groupWhat, message: r });
        preRequestProblem = `the group's ${r}`;
      }
    }
    const mounts = group.routes.map((mount, mi): ResolvedMount => {
      const mWhere = group.prefix === '' && gi === 0 ? `routes[${mi}]` : `${where}.routes[${mi}]`;
      const base = { group, mount, where: mWhere };
      const r = mount.target.kind === 'call' ? resolveCall(mount, schema, cache) : resolveRelation(mount, schema, cache);
      if (typeof r === 'string') {
        problems.push({ where: mWhere, what: `${mount.methods.join(',')} ${mount.path}`, message: r });
        return { ...base, kind: 'broken', problem: r };
      }
      if (preRequestProblem) return { ...base, kind: 'broken', problem: preRequestProblem };
      return r.kind === 'call' ? { ...base, ...r } : { ...base, ...r };
    });
    out.push({ group, where, errorHandler, mounts });
  });
  return { groups: out, problems };
}

/** A group's error handler or pre-request: one function by that name, or a message. */
function resolveHelper(name: string, schema: string, cache: SchemaCache, what: string): Routine | string {
  const q = splitName(name, schema);
  const found = findRoutines(cache, q.schema, q.name);
  if (found.length === 1) return found[0]!;
  if (found.length > 1) return `${what} ${q.schema}.${q.name} is overloaded; name a function with one definition`;
  return `${what} function ${q.schema}.${q.name} not found${didYouMean(q.name, cache.routines.filter((r) => r.schema === q.schema).map((r) => r.name))}`;
}

function didYouMean(name: string, candidates: ReadonlyArray<string>): string {
  const s = suggest(name, [...new Set(candidates)], 0.5);
  return s ? ` (did you mean ${s}?)` : '';
}

function templateParamTypes(mount: RouteMount): Map<string, SegmentType | 'tail'> {
  const t = parseTemplate(mount.path);
  return new Map(t.ok ? templateParams(t.value).map((p) => [p.name, p.type] as const) : []);
}

function resolveCall(mount: RouteMount, schema: string, cache: SchemaCache): { kind: 'call'; routine: Routine; bindings: Binding[] } | string {
  const q = splitName(mount.target.name, schema);
  const overloads = findRoutines(cache, q.schema, q.name);
  if (overloads.length === 0) {
    return `function ${q.schema}.${q.name} not found${didYouMean(q.name, cache.routines.filter((r) => r.schema === q.schema).map((r) => r.name))}`;
  }
  const bound = Object.keys(mount.args);
  const fits = (r: Routine) => {
    const params = inputParams(r);
    return bound.every((a) => params.some((p) => p.name === a)) && params.every((p) => p.hasDefault || p.mode === 'variadic' || bound.includes(p.name));
  };
  const matching = overloads.filter(fits);
  if (matching.length > 1) return `${q.schema}.${q.name} has ${matching.length} overloads taking these arguments; bind arguments that choose one`;
  if (matching.length === 0) {
    // Explain against the overload closest to what is bound.
    const r = overloads[0]!;
    const params = inputParams(r);
    const names = params.map((p) => p.name);
    const unknown = bound.filter((a) => !names.includes(a));
    if (unknown.length > 0) {
      const a = unknown[0]!;
      return `${q.schema}.${q.name} has no argument ${JSON.stringify(a)}${didYouMean(a, names)}; its arguments: ${names.map((n) => n || '(unnamed)').join(', ') || 'none'}`;
    }
    const missing = params.filter((p) => !p.hasDefault && p.mode !== 'variadic' && !bound.includes(p.name)).map((p) => p.name || '(unnamed)');
    return `argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${q.schema}.${q.name} ${missing.length > 1 ? 'are' : 'is'} not bound; add ${missing.length > 1 ? 'them' : 'it'} to args`;
  }
  const routine = matching[0]!;
  const segments = templateParamTypes(mount);
  const bindings: Binding[] = [];
  for (const [name, src] of Object.entries(mount.args)) {
    const p = inputParams(routine).find((x) => x.name === name)!;
    const source = parseSource(src);
    if (source.kind === 'path') {
      const seg = segments.get(source.name);
      if (seg && !segmentFits(seg, p.type)) {
        return `path segment :${source.name}(${seg}) cannot bind argument ${name} of type ${p.type}; use a matching segment type`;
      }
    }
    if (source.kind === 'query-all' && p.type !== 'json' && p.type !== 'jsonb') {
      return `argument ${name} binds the whole query string, so it must be json or jsonb, not ${p.type}`;
    }
    bindings.push({ name, type: p.type, source, hasDefault: p.hasDefault, list: isList(p) });
  }
  return { kind: 'call', routine, bindings };
}

function resolveRelation(mount: RouteMount, schema: string, cache: SchemaCache): { kind: 'relation'; relation: Relation; bindings: Binding[] } | string {
  const q = splitName(mount.target.name, schema);
  const relation = findRelation(cache, q.schema, q.name);
  if (!relation) {
    return `table or view ${q.schema}.${q.name} not found${didYouMean(q.name, cache.relations.filter((r) => r.schema === q.schema).map((r) => r.name))}`;
  }
  const bindings: Binding[] = [];
  for (const [name, src] of Object.entries(mount.args)) {
    const column = relation.columns.find((c) => c.name === name);
    if (!column) return `${q.schema}.${q.name} has no column ${JSON.stringify(name)}${didYouMean(name, relation.columns.map((c) => c.name))}`;
    const source = parseSource(src);
    if (source.kind === 'query-all' || source.kind === 'body') return `column ${name} can only be bound to a single value (path, query, header, cookie, method or media), not ${src}`;
    bindings.push({ name, type: column.type, source, hasDefault: false, list: false });
  }
  return { kind: 'relation', relation, bindings };
}
