// The `routes` key (engine spec §5) → RouteGroup[]: syntax and shape only, every mistake a ValueIssue
// with its place (`[1].routes[0].args.id`) and a did-you-mean. Whether the functions, tables and
// arguments exist is checked against the schema cache by mount/check.ts. Pure; no I/O (a routes file
// is read by load.ts before this runs).
//
// Accepted shapes:
//   [ { method, path, call, args }, … ]                                  mounts without a prefix
//   [ { prefix, schema, error-handler, pre-request, produces, consumes, max-body-size,
//       max-body-size-by-media, routes: [mount, …] }, … ]
//   { prefix, …, routes: [ … ] }                                         one group
// and a mix of mounts and groups in one list. A mount names `call` (a function) or `relation`.
import { parseTemplate, joinPaths, templateParams, type TemplateParam } from '../mount/template.js';
import { parseByteSize } from './byte-size.js';
import type { RouteGroup, RouteMount } from './types.js';

/** The ValueIssue/Coerced shapes of validate.ts, repeated here so this module stands alone. */
interface Issue {
  readonly path?: string;
  readonly message: string;
  readonly suggestion?: string;
}
type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: ReadonlyArray<Issue> };

export const ROUTE_METHODS: ReadonlyArray<string> = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** A relation mount without `method` answers PostgREST's methods for tables. */
export const RELATION_METHODS: ReadonlyArray<string> = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
export const ARG_SOURCES: ReadonlyArray<string> = ['path.<name>', 'query.<name>', 'query', 'header.<name>', 'cookie.<name>', 'body', 'method', 'media'];
const MOUNT_FIELDS = ['method', 'path', 'call', 'relation', 'args', 'produces', 'consumes', 'max-body-size', 'max-body-size-by-media'];
const GROUP_FIELDS = ['prefix', 'schema', 'error-handler', 'pre-request', 'produces', 'consumes', 'max-body-size', 'max-body-size-by-media', 'routes'];
const WHOLE_SOURCES = ['query', 'body', 'method', 'media'];
const PART_SOURCES = ['path', 'query', 'header', 'cookie'];

type Suggest = (word: string, candidates: ReadonlyArray<string>) => string | null | undefined;

function show(raw: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(raw) ?? String(raw);
  } catch {
    s = String(raw);
  }
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `schema.name` or `name`: a SQL name is kept as written (quoting is the SQL renderer's job). */
const QUALIFIED = /^[^.\s"]+(\.[^.\s"]+)?$/;
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+*-]+$|^\*\/\*$/;

export function parseRoutes(raw: unknown, suggest: Suggest): Parsed<RouteGroup[]> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (e) {
      return { ok: false, issues: [{ message: `expected JSON routes (a list of mounts or groups): ${(e as Error).message}` }] };
    }
  }
  if (isObject(value) && 'routes' in value) value = [value];
  if (!Array.isArray(value)) {
    return { ok: false, issues: [{ message: `expected a list of { method, path, call, args } or of groups { prefix, routes }, got ${show(value)}` }] };
  }
  const issues: Issue[] = [];
  const loose: RouteMount[] = [];
  const groups: RouteGroup[] = [];
  const seen = new Map<string, string>();
  value.forEach((entry: unknown, i) => {
    const at = `[${i}]`;
    if (isObject(entry) && ('routes' in entry || 'prefix' in entry)) {
      const g = parseGroup(entry, at, issues, suggest, seen);
      if (g) groups.push(g);
    } else {
      const m = parseMount(entry, at, '', issues, suggest, seen);
      if (m) loose.push(m);
    }
  });
  if (issues.length > 0) return { ok: false, issues };
  const all = loose.length > 0 ? [{ prefix: '', schema: null, errorHandler: null, preRequest: null, produces: [], consumes: [], routes: loose }, ...groups] : groups;
  return { ok: true, value: all };
}

function unknownFields(e: Record<string, unknown>, fields: ReadonlyArray<string>, at: string, issues: Issue[], suggest: Suggest, what: string): void {
  for (const f of Object.keys(e)) {
    if (!fields.includes(f)) {
      const s = suggest(f, fields);
      issues.push({ path: `${at}.${f}`, message: `unknown ${what} field; use ${fields.join(', ')}`, ...(s ? { suggestion: s } : {}) });
    }
  }
}

function optionalName(e: Record<string, unknown>, field: string, at: string, issues: Issue[], allowEmpty = false): string | null {
  const v = e[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || (!allowEmpty && v.trim() === '') || (v.trim() !== '' && !QUALIFIED.test(v.trim()))) {
    issues.push({ path: `${at}.${field}`, message: `must be a name (schema.name or name)${allowEmpty ? ', or "" for none' : ''}, got ${show(v)}` });
    return null;
  }
  return v.trim();
}

function mediaList(e: Record<string, unknown>, field: string, at: string, issues: Issue[], allowWildcards: boolean): string[] | null {
  const v = e[field];
  if (v === undefined || v === null) return null;
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) {
    issues.push({ path: `${at}.${field}`, message: `must be a media type or a list of them, got ${show(v)}` });
    return null;
  }
  const out: string[] = [];
  for (const m of list as string[]) {
    const t = m.trim().toLowerCase();
    if (!MEDIA_TYPE.test(t) || (!allowWildcards && t.includes('*'))) {
      issues.push({ path: `${at}.${field}`, message: `${show(m)} is not a media type like application/json${allowWildcards ? '' : ' (no wildcards here)'}` });
      continue;
    }
    out.push(t);
  }
  return out;
}

/** `max-body-size` and `max-body-size-by-media` of a group or mount, only the fields that are set. */
function bodyLimits(e: Record<string, unknown>, at: string, issues: Issue[]): { maxBodySize?: number; maxBodySizeByMedia?: Record<string, number> } {
  const out: { maxBodySize?: number; maxBodySizeByMedia?: Record<string, number> } = {};
  const size = e['max-body-size'];
  if (size !== undefined && size !== null) {
    const bytes = parseByteSize(size);
    if (bytes === null) issues.push({ path: `${at}.max-body-size`, message: `must be a size like 65536, "64KB" or "1MB", got ${show(size)}` });
    else out.maxBodySize = bytes;
  }
  const byMedia = e['max-body-size-by-media'];
  if (byMedia !== undefined && byMedia !== null) {
    if (!isObject(byMedia)) {
      issues.push({ path: `${at}.max-body-size-by-media`, message: `must be an object of media type → size, like {"application/xml": "64KB"}, got ${show(byMedia)}` });
      return out;
    }
    const map: Record<string, number> = {};
    for (const [media, v] of Object.entries(byMedia)) {
      const range = media.trim().toLowerCase();
      const bytes = parseByteSize(v);
      if (!MEDIA_TYPE.test(range)) issues.push({ path: `${at}.max-body-size-by-media`, message: `${show(media)} is not a media type like application/xml or text/*` });
      else if (bytes === null) issues.push({ path: `${at}.max-body-size-by-media.${media}`, message: `must be a size like 65536, "64KB" or "1MB", got ${show(v)}` });
      else map[range] = bytes;
    }
    out.maxBodySizeByMedia = map;
  }
  return out;
}

function parseGroup(e: Record<string, unknown>, at: string, issues: Issue[], suggest: Suggest, seen: Map<string, string>): RouteGroup | null {
  const before = issues.length;
  unknownFields(e, GROUP_FIELDS, at, issues, suggest, 'group');
  let prefix = '';
  const rawPrefix = e['prefix'];
  if (rawPrefix !== undefined) {
    const t = typeof rawPrefix === 'string' ? parseTemplate(rawPrefix) : null;
    if (t === null || !t.ok) issues.push({ path: `${at}.prefix`, message: `must be a static path like /api/v2${t && !t.ok ? `: ${t.message}` : `, got ${show(rawPrefix)}`}` });
    else if (t.value.segments.some((s) => s.kind !== 'static')) issues.push({ path: `${at}.prefix`, message: `${show(rawPrefix)} must be static (no :params or *tail)` });
    else prefix = t.value.text === '/' ? '' : t.value.text;
  }
  const schema = e['schema'];
  if (schema !== undefined && (typeof schema !== 'string' || schema.trim() === '' || schema.includes('.'))) {
    issues.push({ path: `${at}.schema`, message: `must be a schema name, got ${show(schema)}` });
  }
  const errorHandler = optionalName(e, 'error-handler', at, issues);
  const preRequest = optionalName(e, 'pre-request', at, issues, true);
  const produces = mediaList(e, 'produces', at, issues, false) ?? [];
  const consumes = mediaList(e, 'consumes', at, issues, true) ?? [];
  const limits = bodyLimits(e, at, issues);
  const list = e['routes'];
  const routes: RouteMount[] = [];
  if (!Array.isArray(list)) issues.push({ path: `${at}.routes`, message: `must be a list of mounts { method, path, call, args }, got ${show(list)}` });
  else {
    list.forEach((m: unknown, j) => {
      const mount = parseMount(m, `${at}.routes[${j}]`, prefix, issues, suggest, seen);
      if (mount) routes.push(mount);
    });
  }
  if (issues.length > before) return null;
  return {
    prefix,
    schema: typeof schema === 'string' ? schema.trim() : null,
    errorHandler,
    preRequest: e['pre-request'] === null ? '' : preRequest,
    produces,
    consumes,
    ...limits,
    routes,
  };
}

function parseMount(entry: unknown, at: string, prefix: string, issues: Issue[], suggest: Suggest, seen: Map<string, string>): RouteMount | null {
  if (!isObject(entry)) {
    issues.push({ path: at, message: `expected a mount { method, path, call, args }, got ${show(entry)}` });
    return null;
  }
  const e = entry;
  const before = issues.length;
  unknownFields(e, MOUNT_FIELDS, at, issues, suggest, 'route');

  const hasCall = e['call'] !== undefined;
  const hasRelation = e['relation'] !== undefined;
  if (hasCall === hasRelation) {
    issues.push({ path: at, message: hasCall ? 'names both call and relation; a mount has one target' : 'needs a target: call (a function) or relation (a table or view)' });
  }
  const targetField = hasRelation ? 'relation' : 'call';
  const targetName = e[targetField];
  if ((hasCall || hasRelation) && (typeof targetName !== 'string' || !QUALIFIED.test(targetName.trim()))) {
    issues.push({ path: `${at}.${targetField}`, message: `must name a ${hasRelation ? 'table or view' : 'function'} (schema.name or name), got ${show(targetName)}` });
  }

  let methods: string[] = [];
  const rawMethod = e['method'];
  if (rawMethod === undefined && hasRelation) methods = [...RELATION_METHODS];
  else {
    const list = typeof rawMethod === 'string' ? [rawMethod] : rawMethod;
    if (!Array.isArray(list) || list.length === 0 || list.some((m) => typeof m !== 'string')) {
      issues.push({ path: `${at}.method`, message: `missing or not a string (or list of them); use one of ${ROUTE_METHODS.join(', ')}` });
    } else {
      for (const m of list as string[]) {
        const up = m.toUpperCase();
        if (!ROUTE_METHODS.includes(up)) {
          const s = suggest(up, ROUTE_METHODS);
          issues.push({ path: `${at}.method`, message: `${show(m)} is not an HTTP method; use one of ${ROUTE_METHODS.join(', ')}`, ...(s ? { suggestion: s } : {}) });
        } else if (!methods.includes(up)) methods.push(up);
      }
    }
  }

  const rawPath = e['path'];
  let params: TemplateParam[] = [];
  let fullPath = '';
  if (typeof rawPath !== 'string') issues.push({ path: `${at}.path`, message: `must be a path starting with "/", got ${show(rawPath)}` });
  else {
    const t = parseTemplate(joinPaths(prefix, rawPath));
    if (!rawPath.startsWith('/')) issues.push({ path: `${at}.path`, message: `${show(rawPath)} must start with "/"` });
    else if (!t.ok) issues.push({ path: `${at}.path`, message: `${show(rawPath)} ${t.message}` });
    else {
      params = templateParams(t.value);
      fullPath = t.value.text;
    }
  }

  const args: Record<string, string> = {};
  const rawArgs = e['args'] ?? {};
  if (!isObject(rawArgs)) issues.push({ path: `${at}.args`, message: `must be an object of argument → source, got ${show(rawArgs)}` });
  else {
    for (const [arg, src] of Object.entries(rawArgs)) {
      const problem = typeof src === 'string' ? checkArgSource(src, params.map((p) => p.name), suggest) : { message: `expected a string source, got ${show(src)}` };
      if (problem) issues.push({ path: `${at}.args.${arg}`, ...problem });
      else args[arg] = src as string;
    }
  }
  const produces = mediaList(e, 'produces', at, issues, false);
  const consumes = mediaList(e, 'consumes', at, issues, true);
  const limits = bodyLimits(e, at, issues);
  if (issues.length > before) return null;

  // Two mounts on the same method and path shape (parameter names aside) would shadow each other.
  const shape = fullPath.replace(/:([A-Za-z0-9_]+)(\([a-z]+\))?/g, ':$2').replace(/\*[A-Za-z0-9_]+$/, '*');
  for (const m of methods) {
    const id = `${m} ${shape}`;
    const first = seen.get(id);
    if (first !== undefined) {
      issues.push({ path: at, message: `${m} ${fullPath} is already mounted by ${first}` });
      return null;
    }
  }
  for (const m of methods) seen.set(`${m} ${shape}`, at);
  return {
    methods,
    path: fullPath,
    target: { kind: hasRelation ? 'relation' : 'call', name: (targetName as string).trim() },
    args,
    produces,
    consumes,
    ...limits,
  };
}

function checkArgSource(src: string, params: ReadonlyArray<string>, suggest: Suggest): { message: string; suggestion?: string } | null {
  if (WHOLE_SOURCES.includes(src)) return null;
  const m = /^(path|query|header|cookie)\.(.+)$/.exec(src);
  if (!m) {
    const head = src.split('.')[0] ?? src;
    const s = suggest(head, [...WHOLE_SOURCES, ...PART_SOURCES]);
    return { message: `${show(src)} is not a request part; use one of ${ARG_SOURCES.join(', ')}`, ...(s && s !== head ? { suggestion: src.replace(head, s) } : {}) };
  }
  if (m[1] === 'path' && !params.includes(m[2] as string)) {
    const s = suggest(m[2] as string, params);
    return {
      message: params.length === 0
        ? `${show(src)}: the route path has no parameters`
        : `${show(src)}: the route path has no :${m[2]} (it has ${params.map((p) => `:${p}`).join(', ')})`,
      ...(s ? { suggestion: `path.${s}` } : {}),
    };
  }
  return null;
}
