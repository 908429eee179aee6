// One neutral model of the API that the root path describes: PostgREST's OpenAPI output
// (src/PostgREST/Response/OpenAPI.hs) taken apart into paths, operations, shared parameters and
// definitions, without committing to a document format. swagger.ts renders it as Swagger 2.0
// (PostgREST's document, key for key) and openapi31.ts as OpenAPI 3.1; neither decides anything
// about the API itself. Pure: built from the schema cache, the objects the request's role may see
// (access.ts), the configuration and the resolved route mounts (mount/check.ts), passed in as data.
import type { Column, Relation, Relationship, Routine, SchemaCache } from '../../catalog/types.js';
import type { Binding, ResolvedGroup, ResolvedMount } from '../../mount/check.js';
import { parseTemplate, SEGMENT_PATTERNS, type SegmentType, type TemplateSegment } from '../../mount/template.js';
import { anyElementMediaHandlers, findRelation, relationMediaHandlers, routineMediaHandler } from '../../catalog/lookup.js';
import { parseAccept } from '../../request/media-type.js';
import { negotiateMedia, NO_OFFERS, type MediaOffers } from '../negotiate.js';
import { arrayItemsOf, columnTypeName, jsonTypeOf, withoutPublic, type JsonType } from './pg-types.js';

export type { JsonType };

/** A column's or an argument's schema. `type` null: any JSON value (json, jsonb). */
export interface ValueSchema {
  /** The PostgreSQL type, as PostgREST spells it (`character varying`, `integer[]`, `test.mood`). */
  readonly format: string;
  readonly type: JsonType | null;
  /** Element schema of an array (`type: 'array'`). */
  readonly items?: { readonly type: JsonType | null };
  readonly description?: string;
  /** The column default, when it reads as a JSON value (PostgREST's parseDefault). */
  readonly default?: unknown;
  readonly enum?: ReadonlyArray<string>;
  readonly maxLength?: number;
  /** Whether null is a valid value. Swagger 2.0 cannot say so; OpenAPI 3.1 uses a type array. */
  readonly nullable: boolean;
}

export interface ObjectSchema {
  readonly description?: string;
  readonly properties: ReadonlyArray<readonly [string, ValueSchema]>;
  readonly required: ReadonlyArray<string>;
}

/** A table's or view's row (Swagger `#/definitions/<name>`, OpenAPI 3.1 `#/components/schemas/<name>`). */
export interface Definition {
  readonly name: string;
  readonly schema: ObjectSchema;
}

/**
 * A parameter operations refer to by key (`select`, `rowFilter.films.id`, `body.films`). Query and
 * header parameters are optional strings; a body parameter carries a row of `definition`.
 */
export type SharedParameter =
  | {
      readonly kind: 'query' | 'header';
      readonly name: string;
      readonly description?: string;
      readonly enum?: ReadonlyArray<string>;
      readonly default?: string;
    }
  | { readonly kind: 'body'; readonly name: string; readonly description: string; readonly definition: string };

/** A parameter as an operation lists it, in order. */
export type ParameterUse =
  | { readonly kind: 'ref'; readonly key: string }
  /** `GET /rpc/f?arg=…`: one query parameter per argument; a variadic one repeats (`?v=1&v=2`). */
  | { readonly kind: 'arg'; readonly name: string; readonly required: boolean; readonly variadic: boolean; readonly schema: ValueSchema }
  /** `POST /rpc/f`: the arguments as one JSON object (`args`, required). */
  | { readonly kind: 'args-body'; readonly schema: ObjectSchema }
  /** A mount's path segment or bound request part (engine spec §5). */
  | MountParameter
  /** A mount's `query` binding: the whole query string as one JSON object (OpenAPI 3.1 only). */
  | { readonly kind: 'query-object'; readonly name: string; readonly description: string }
  /** A mount's `body` binding: the request body as the argument, in the operation's `consumes`. */
  | { readonly kind: 'body-value'; readonly name: string; readonly required: boolean; readonly schema: BodySchema };

/** A parameter's schema: a JSON type (JSON values travel as text: `string`), a format, array elements. */
export interface ParamSchema {
  readonly type: JsonType;
  readonly format?: string;
  readonly items?: { readonly type: JsonType; readonly format?: string };
}

export interface MountParameter {
  readonly kind: 'mount-param';
  /** `cookie` parameters exist in OpenAPI 3.1 only. */
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly name: string;
  readonly required: boolean;
  readonly description?: string;
  readonly schema: ParamSchema;
  /** An array sent as a repeated query parameter (`?n=1&n=2`). */
  readonly repeated: boolean;
}

/** A body bound to an argument: JSON (any value), XML or text, or bytes. */
export type BodySchema = { readonly kind: 'json' } | { readonly kind: 'text'; readonly format?: string } | { readonly kind: 'binary' };

export interface ResponseModel {
  /** `default`: any other status (a mount's errors). */
  readonly status: number | 'default';
  readonly description: string;
  /** The body is the rows of this definition (a JSON array; one object for the singular media type). */
  readonly rowsOf?: string;
}

export type HttpVerb = 'get' | 'put' | 'post' | 'patch' | 'delete' | 'options' | 'head';

export interface Operation {
  readonly method: HttpVerb;
  readonly tags: ReadonlyArray<string>;
  readonly summary?: string;
  readonly description?: string;
  readonly parameters: ReadonlyArray<ParameterUse>;
  /** Media types of the response when not the document's (`produces`). */
  readonly produces?: ReadonlyArray<string>;
  /** Media types of the request body when not the document's (`consumes`). */
  readonly consumes?: ReadonlyArray<string>;
  readonly responses: ReadonlyArray<ResponseModel>;
}

export interface PathModel {
  readonly path: string;
  readonly operations: ReadonlyArray<Operation>;
}

/** Where the API is served: the proxy URI, else server-host/server-port (PostgREST's proxyUri). */
export interface ServerModel {
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly port: number;
  readonly basePath: string;
}

export interface ApiModel {
  readonly info: { readonly title: string; readonly description: string; readonly version: string };
  readonly server: ServerModel;
  /** Media types of request and response bodies, unless an operation says otherwise. */
  readonly consumes: ReadonlyArray<string>;
  readonly produces: ReadonlyArray<string>;
  readonly paths: ReadonlyArray<PathModel>;
  readonly definitions: ReadonlyArray<Definition>;
  readonly parameters: ReadonlyArray<readonly [string, SharedParameter]>;
  /** openapi-security-active: a JWT in the Authorization header, required by every operation. */
  readonly security: boolean;
  readonly externalDocs: { readonly description: string; readonly url: string };
}

/** What the document covers: one schema, and (follow-privileges) what the role may access. */
export interface ApiScope {
  readonly schema: string;
  /** Names of the relations to describe; null: every relation of the schema. */
  readonly relations: ReadonlySet<string> | null;
  /** Signatures (`Routine.signature`) of the routines to describe; null: every routine. */
  readonly routines: ReadonlySet<string> | null;
  /** COMMENT ON SCHEMA: first line the title, the rest the description. */
  readonly schemaDescription: string | null;
  /**
   * The route mounts' targets the role may access (follow-privileges): relations by
   * {@link relationKey}, routines by signature. Absent or null: every mount's.
   */
  readonly mountTargets?: { readonly relations: ReadonlySet<string>; readonly routines: ReadonlySet<string> } | null;
}

export interface ApiModelOptions {
  readonly proxyUri: string | null;
  readonly serverHost: string;
  readonly serverPort: number;
  /** dbrest's version (info.version). */
  readonly version: string;
  readonly securityActive: boolean;
}

export const MEDIA = {
  json: 'application/json',
  objectStripped: 'application/vnd.pgrst.object+json;nulls=stripped',
  object: 'application/vnd.pgrst.object+json',
  csv: 'text/csv',
  openapi: 'application/openapi+json',
} as const;

const DOCUMENT_MEDIA: ReadonlyArray<string> = [MEDIA.json, MEDIA.objectStripped, MEDIA.object, MEDIA.csv];
const ROUTINE_MEDIA: ReadonlyArray<string> = [MEDIA.json, MEDIA.objectStripped, MEDIA.object];

export const DEFAULT_TITLE = 'dbrest API';
export const DEFAULT_DESCRIPTION = 'This is a dynamic API generated by dbrest';
/** dbrest serves PostgREST's API: its reference is the documentation of every path here. */
export const EXTERNAL_DOCS = { description: 'PostgREST Documentation', url: 'https://postgrest.org/en/latest/references/api.html' } as const;

/**
 * `mounts`: the resolved route mounts (mount/check.ts) to describe besides the schema's tables and
 * functions — their URLs are global, so the caller passes them for the default schema's document only.
 */
export function buildApiModel(cache: SchemaCache, scope: ApiScope, opts: ApiModelOptions, mounts: ReadonlyArray<ResolvedGroup> = []): ApiModel {
  const relations = cache.relations.filter((r) => r.schema === scope.schema && (scope.relations === null || scope.relations.has(r.name)));
  // Procedures are not called through /rpc (PostgREST lists functions only: prokind = 'f').
  const routines = uniqueByName(
    cache.routines.filter((r) => r.schema === scope.schema && !r.isProcedure && (scope.routines === null || scope.routines.has(r.signature))),
  );
  const [title, description] = splitComment(scope.schemaDescription);
  const paths = [rootPath(), ...relations.map(relationPath), ...routines.map(routinePath)];
  const definitions = relations.map((r) => ({ name: r.name, schema: relationSchema(r, cache.relationships, cache.relations) }));
  const parameters = [...COMMON_PARAMETERS, ...relations.flatMap((r) => relationParameters(r, r.name))];
  const mounted = mountPaths(mounts, scope, relations, cache);
  return {
    info: { title: title ?? DEFAULT_TITLE, description: description ?? DEFAULT_DESCRIPTION, version: opts.version },
    server: serverOf(opts),
    consumes: DOCUMENT_MEDIA,
    produces: DOCUMENT_MEDIA,
    paths: mounted === null ? paths : [...paths.filter((p) => !mounted.shadows(p.path)), ...mounted.paths],
    definitions: mounted === null ? definitions : [...definitions, ...mounted.definitions],
    parameters: mounted === null ? parameters : [...parameters, ...mounted.parameters],
    security: opts.securityActive,
    externalDocs: EXTERNAL_DOCS,
  };
}

// ---------------------------------------------------------------------------------------------
// descriptions

/**
 * PostgREST's split of a comment: the first line is the summary (title), the rest, leading newlines
 * dropped, the description. A one-line comment has an empty description.
 */
export function splitComment(comment: string | null): [string | null, string | null] {
  if (comment === null) return [null, null];
  const nl = comment.indexOf('\n');
  if (nl === -1) return [comment, ''];
  return [comment.slice(0, nl), comment.slice(nl).replace(/^\n+/, '')];
}

/** summary / description of an operation: the description only when not empty. */
function operationText(comment: string | null): { summary?: string; description?: string } {
  const [summary, description] = splitComment(comment);
  return {
    ...(summary !== null ? { summary } : {}),
    ...(description ? { description } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// server

/** `*`, `*4`, `!4`, `*6`, `!6` (listen on any address) are advertised as 0.0.0.0, as PostgREST does. */
function escapeHostName(host: string): string {
  return ['*', '*4', '!4', '*6', '!6'].includes(host) ? '0.0.0.0' : host;
}

export function serverOf(opts: Pick<ApiModelOptions, 'proxyUri' | 'serverHost' | 'serverPort'>): ServerModel {
  if (opts.proxyUri) {
    try {
      const u = new URL(opts.proxyUri);
      const scheme = u.protocol.replace(/:$/, '').toLowerCase() === 'http' ? 'http' : 'https';
      const port = u.port !== '' ? Number(u.port) : scheme === 'http' ? 80 : 443;
      return { scheme, host: u.hostname, port, basePath: u.pathname === '' ? '/' : u.pathname };
    } catch {
      // config validation rejects a malformed proxy URI; fall through as PostgREST does
    }
  }
  return { scheme: 'http', host: escapeHostName(opts.serverHost), port: opts.serverPort, basePath: '/' };
}

// ---------------------------------------------------------------------------------------------
// shared parameters (PostgREST's makeParamDefs)

const preferParam = (values: ReadonlyArray<string>): SharedParameter => ({ kind: 'header', name: 'Prefer', description: 'Preference', enum: values });
const RETURN = ['return=representation', 'return=minimal', 'return=none'];

const COMMON_PARAMETERS: ReadonlyArray<readonly [string, SharedParameter]> = [
  // PostgREST v16: `params=single-object` is gone, so the parameter has no enum at all (#4292).
  ['preferParams', { kind: 'header', name: 'Prefer', description: 'Preference' }],
  ['preferReturn', preferParam(RETURN)],
  ['preferCount', preferParam(['count=none'])],
  ['preferPost', preferParam([...RETURN, 'resolution=ignore-duplicates', 'resolution=merge-duplicates'])],
  ['select', { kind: 'query', name: 'select', description: 'Filtering Columns' }],
  ['on_conflict', { kind: 'query', name: 'on_conflict', description: 'On Conflict' }],
  ['order', { kind: 'query', name: 'order', description: 'Ordering' }],
  ['range', { kind: 'header', name: 'Range', description: 'Limiting and Pagination' }],
  ['rangeUnit', { kind: 'header', name: 'Range-Unit', description: 'Limiting and Pagination', default: 'items' }],
  ['offset', { kind: 'query', name: 'offset', description: 'Limiting and Pagination' }],
  ['limit', { kind: 'query', name: 'limit', description: 'Limiting and Pagination' }],
];

const rowFilterKey = (rel: string, col: string): string => `rowFilter.${rel}.${col}`;
const bodyKey = (rel: string): string => `body.${rel}`;

/** `def`: the relation's definition name (its name, or `schema.name` outside the document's schema). */
function relationParameters(rel: Relation, def: string): Array<readonly [string, SharedParameter]> {
  return [
    [bodyKey(def), { kind: 'body', name: rel.name, description: rel.name, definition: def }],
    ...rel.columns.map((c) => [
      rowFilterKey(def, c.name),
      { kind: 'query', name: c.name, ...(c.description !== null ? { description: c.description } : {}) },
    ] as const),
  ];
}

// ---------------------------------------------------------------------------------------------
// paths

const ref = (key: string): ParameterUse => ({ kind: 'ref', key });

function rootPath(): PathModel {
  return {
    path: '/',
    operations: [{
      method: 'get',
      tags: ['Introspection'],
      summary: 'OpenAPI description (this document)',
      parameters: [],
      produces: [MEDIA.openapi, MEDIA.json],
      responses: [{ status: 200, description: 'OK' }],
    }],
  };
}

/** GET always; POST, PATCH and DELETE when the relation takes any write (PostgREST's makePathItem). */
function relationPath(rel: Relation): PathModel {
  return { path: '/' + rel.name, operations: relationOperations(rel, rel.name, [rel.name], [], new Set()) };
}

/**
 * The operations of a table path. `def` names its definition and shared parameters; `own` are
 * parameters every operation lists first (a mount's path segments and bound columns), and the
 * columns in `bound` get no row filter of their own.
 */
function relationOperations(rel: Relation, def: string, tags: ReadonlyArray<string>, own: ReadonlyArray<ParameterUse>, bound: ReadonlySet<string>): Operation[] {
  const text = operationText(rel.description);
  const filters = [...own, ...rel.columns.filter((c) => !bound.has(c.name)).map((c) => ref(rowFilterKey(def, c.name)))];
  const operations: Operation[] = [{
    method: 'get',
    tags,
    ...text,
    parameters: [...filters, ...['select', 'order', 'range', 'rangeUnit', 'offset', 'limit', 'preferCount'].map(ref)],
    responses: [{ status: 200, description: 'OK', rowsOf: def }, { status: 206, description: 'Partial Content' }],
  }];
  if (rel.insertable || rel.updatable || rel.deletable) {
    operations.push(
      { method: 'post', tags, ...text, parameters: [...own, ...[bodyKey(def), 'select', 'preferPost'].map(ref)], responses: [{ status: 201, description: 'Created' }] },
      { method: 'patch', tags, ...text, parameters: [...filters, ref(bodyKey(def)), ref('preferReturn')], responses: [{ status: 204, description: 'No Content' }] },
      { method: 'delete', tags, ...text, parameters: [...filters, ref('preferReturn')], responses: [{ status: 204, description: 'No Content' }] },
    );
  }
  return operations;
}

/** Arguments a client passes: IN, INOUT and VARIADIC ones (OUT and TABLE columns are results). */
const inputParams = (r: Routine) => r.params.filter((p) => p.mode === 'in' || p.mode === 'inout' || p.mode === 'variadic');

function argSchema(type: string): ValueSchema {
  const format = withoutPublic(type);
  const items = arrayItemsOf(format);
  return { format, type: jsonTypeOf(format), ...(items ? { items } : {}), nullable: false };
}

/** POST always; GET too for stable and immutable functions (PostgREST's makeProcPathItem). */
function routinePath(r: Routine): PathModel {
  const base = {
    tags: ['(rpc) ' + r.name],
    ...operationText(r.description),
    produces: ROUTINE_MEDIA,
    responses: [{ status: 200, description: 'OK' }],
  };
  const params = inputParams(r);
  const body: ObjectSchema = {
    ...(r.description !== null ? { description: r.description } : {}),
    properties: params.map((p) => [p.name, argSchema(p.type)] as const),
    required: params.filter((p) => !p.hasDefault).map((p) => p.name),
  };
  const post: Operation = { method: 'post', ...base, parameters: [{ kind: 'args-body', schema: body }, ref('preferParams')] };
  if (r.volatility === 'volatile') return { path: '/rpc/' + r.name, operations: [post] };
  const get: Operation = {
    method: 'get',
    ...base,
    parameters: params.map((p) => ({ kind: 'arg', name: p.name, required: !p.hasDefault, variadic: p.mode === 'variadic', schema: argSchema(p.type) })),
  };
  return { path: '/rpc/' + r.name, operations: [get, post] };
}

/** One path per name: of overloaded routines the first (by signature) is described. */
function uniqueByName(routines: ReadonlyArray<Routine>): Routine[] {
  const byName = new Map<string, Routine>();
  for (const r of routines) if (!byName.has(r.name)) byName.set(r.name, r);
  return [...byName.values()];
}

// ---------------------------------------------------------------------------------------------
// route mounts (engine spec §5)

/** How follow-privileges scopes name a relation a mount points at (ApiScope.mountTargets). */
export const relationKey = (r: { readonly schema: string; readonly name: string }): string => `${r.schema}.${r.name}`;

interface MountedPaths {
  readonly paths: PathModel[];
  readonly definitions: Definition[];
  readonly parameters: Array<readonly [string, SharedParameter]>;
  /** Whether the mounts answer this table or /rpc path instead (a mount's path, or under a group's prefix). */
  shadows(path: string): boolean;
}

/**
 * The mounts' paths, in configuration order: one path per template (`/items/:id(int)` →
 * `/items/{id}`), one operation per method (HEAD only when mounted without GET, as PostgREST lists
 * no HEAD), the first mount of a method winning as in the router. Broken mounts and those whose
 * target the role may not access are left out. A relation outside the document's schema gets its
 * own definition and parameters, named `schema.name`.
 */
function mountPaths(groups: ReadonlyArray<ResolvedGroup>, scope: ApiScope, described: ReadonlyArray<Relation>, cache: SchemaCache): MountedPaths | null {
  if (groups.length === 0) return null;
  const targets = scope.mountTargets ?? null;
  const visible = (m: ResolvedMount): m is Exclude<ResolvedMount, { kind: 'broken' }> => {
    if (m.kind === 'broken') return false;
    if (targets === null) return true;
    return m.kind === 'call' ? targets.routines.has(m.routine.signature) : targets.relations.has(relationKey(m.relation));
  };
  const definitions: Definition[] = [];
  const parameters: Array<readonly [string, SharedParameter]> = [];
  const defined = new Set<string>();
  const definitionOf = (rel: Relation): string => {
    if (described.some((r) => r.schema === rel.schema && r.name === rel.name)) return rel.name;
    const def = relationKey(rel);
    if (!defined.has(def)) {
      defined.add(def);
      definitions.push({ name: def, schema: relationSchema(rel, cache.relationships, cache.relations) });
      parameters.push(...relationParameters(rel, def));
    }
    return def;
  };
  const byPath = new Map<string, Map<HttpVerb, Operation>>();
  const templates: Array<ReadonlyArray<TemplateSegment>> = [];
  for (const g of groups) {
    for (const m of g.mounts) {
      const t = parseTemplate(m.mount.path);
      if (!t.ok) continue; // config validation reported it
      templates.push(t.value.segments);
      if (!visible(m)) continue;
      const tags = [g.group.prefix || '/'];
      const ops = m.kind === 'call' ? callOperations(m, t.value.segments, tags, cache) : relationMountOperations(m, t.value.segments, tags, definitionOf(m.relation), cache);
      const path = openApiPath(t.value.segments);
      let entry = byPath.get(path);
      if (!entry) byPath.set(path, (entry = new Map()));
      for (const op of ops) if (!entry.has(op.method)) entry.set(op.method, op);
    }
  }
  const prefixes = groups.map((g) => g.group.prefix.replace(/\/+$/, '')).filter((p) => p !== '');
  return {
    paths: [...byPath].filter(([, ops]) => ops.size > 0).map(([path, ops]) => ({ path, operations: [...ops.values()] })),
    definitions,
    parameters,
    shadows: (path) => prefixes.some((p) => path === p || path.startsWith(p + '/')) || templates.some((t) => templateMatches(t, path)),
  };
}

/** `/items/:id(int)/*rest` → `/items/{id}/{rest}`. */
export function openApiPath(segments: ReadonlyArray<TemplateSegment>): string {
  return '/' + segments.map((s) => (s.kind === 'static' ? s.text : `{${s.name}}`)).join('/');
}

/** Whether a (parameterless) path of the document is one a template matches. */
function templateMatches(segments: ReadonlyArray<TemplateSegment>, path: string): boolean {
  const parts = path.split('/').filter((p) => p !== '');
  for (const [i, s] of segments.entries()) {
    if (s.kind === 'tail') return parts.length > i;
    const part = parts[i];
    if (part === undefined) return false;
    if (s.kind === 'static' && s.text !== part) return false;
    if (s.kind === 'param' && s.type !== 'text' && !SEGMENT_REGEX[s.type].test(part)) return false;
  }
  return parts.length === segments.length;
}

const SEGMENT_REGEX: Readonly<Record<Exclude<SegmentType, 'text'>, RegExp>> = {
  int: new RegExp(SEGMENT_PATTERNS.int!),
  number: new RegExp(SEGMENT_PATTERNS.number!),
  uuid: new RegExp(SEGMENT_PATTERNS.uuid!),
};

const SEGMENT_SCHEMAS: Readonly<Record<SegmentType, ParamSchema>> = {
  int: { type: 'integer' },
  number: { type: 'number' },
  uuid: { type: 'string', format: 'uuid' },
  text: { type: 'string' },
};

export const TAIL_DESCRIPTION = 'The rest of the path: one or more segments, slashes included';

/** Every parameter of the template, as path parameters (all required, typed by segment type). */
function segmentParameters(segments: ReadonlyArray<TemplateSegment>): MountParameter[] {
  return segments.flatMap((s): MountParameter[] => {
    if (s.kind === 'static') return [];
    if (s.kind === 'tail') return [{ kind: 'mount-param', in: 'path', name: s.name, required: true, description: TAIL_DESCRIPTION, schema: { type: 'string' }, repeated: false }];
    return [{ kind: 'mount-param', in: 'path', name: s.name, required: true, schema: SEGMENT_SCHEMAS[s.type], repeated: false }];
  });
}

/** A bound argument's or column's schema from its PostgreSQL type; `repeated`: an array as repeated values. */
function bindingSchema(pgType: string, repeated: boolean): ParamSchema {
  const format = withoutPublic(pgType);
  if (repeated) {
    const element = format.endsWith('[]') ? format.slice(0, -2) : format;
    return { type: 'array', items: { type: scalarType(element), format: element } };
  }
  return { type: scalarType(format), format };
}

/** A single value travels as text: arrays (`{1,2}`) and JSON too. */
function scalarType(format: string): JsonType {
  const type = jsonTypeOf(format);
  return type === null || type === 'array' ? 'string' : type;
}

/** A binding to a query parameter, header or cookie (path bindings are the template's parameters). */
function partParameter(b: Binding, required: boolean): MountParameter | null {
  const s = b.source;
  if (s.kind !== 'query' && s.kind !== 'header' && s.kind !== 'cookie') return null;
  const repeated = s.kind === 'query' && b.list;
  return { kind: 'mount-param', in: s.kind, name: s.name, required, schema: bindingSchema(b.type, repeated), repeated };
}

/** Methods a mount lists, as operations: HEAD goes with GET. */
function mountVerbs(methods: ReadonlyArray<string>): HttpVerb[] {
  return methods.filter((m) => !(m === 'HEAD' && methods.includes('GET'))).map((m) => m.toLowerCase() as HttpVerb);
}

/** The media types a body bound to an argument of this type is sent in, unless `consumes` says. */
export function defaultBodyMedia(pgType: string): string {
  switch (pgType) {
    case 'json':
    case 'jsonb':
      return MEDIA.json;
    case 'xml':
      return 'application/xml';
    case 'bytea':
      return 'application/octet-stream';
    default:
      // text and other types take a body of any Content-Type (mount/bind.ts checkBodyType):
      // the function decides (a log-in function may read JSON or XML by a Content-Type argument).
      return '*/*';
  }
}

function bodySchema(pgType: string): BodySchema {
  if (pgType === 'json' || pgType === 'jsonb') return { kind: 'json' };
  if (pgType === 'bytea') return { kind: 'binary' };
  return pgType === 'text' ? { kind: 'text' } : { kind: 'text', format: withoutPublic(pgType) };
}

const paramKey = (u: ParameterUse): string | null => (u.kind === 'mount-param' ? `${u.in}:${u.name}` : u.kind === 'query-object' ? `query-object:${u.name}` : null);

/** Without a second parameter of the same name and place (two arguments bound to one part). */
function distinct(uses: ReadonlyArray<ParameterUse>): ParameterUse[] {
  const seen = new Set<string>();
  return uses.filter((u) => {
    const k = paramKey(u);
    if (k === null) return true;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A function mount: its bound request parts as parameters, its body, its media types; the comment as /rpc shows it. */
/**
 * What a call of the routine with its default select can answer beyond JSON (http/media.ts's
 * callOffers, without a request): its own media-type domain and raw output for a single value, the
 * returned table's handlers, the anyelement ones.
 */
function routineOffers(cache: SchemaCache, routine: Routine): MediaOffers {
  const r = routine.returns;
  if (r.kind === 'void') return NO_OFFERS;
  const any = anyElementMediaHandlers(cache);
  if (r.kind === 'scalar') {
    if (r.setOf) return { ...NO_OFFERS, any };
    return { value: routineMediaHandler(cache, routine) ?? null, own: NO_OFFERS.own, any, raw: r.type === 'xml' ? 'xml' : 'other' };
  }
  const own = r.isRelation && findRelation(cache, r.type.schema, r.type.name) ? relationMediaHandlers(cache, r.type.schema, r.type.name) : NO_OFFERS.own;
  return { value: null, own, any, raw: null };
}

/** What a relation's rows answer with its default select beyond JSON and CSV (http/media.ts's readOffers). */
function relationOffers(cache: SchemaCache, rel: Relation): MediaOffers {
  return { value: null, own: relationMediaHandlers(cache, rel.schema, rel.name), any: anyElementMediaHandlers(cache), raw: null };
}

/** The `produces` types the call can really answer: a type it would refuse (406 DBRST107) is not advertised. */
function answerable(produces: ReadonlyArray<string>, offers: MediaOffers): ReadonlyArray<string> {
  return produces.filter((p) => negotiateMedia(parseAccept(p), offers).ok);
}

function callOperations(m: Extract<ResolvedMount, { kind: 'call' }>, segments: ReadonlyArray<TemplateSegment>, tags: ReadonlyArray<string>, cache: SchemaCache): Operation[] {
  const uses: ParameterUse[] = [...segmentParameters(segments)];
  let consumes: ReadonlyArray<string> | undefined;
  for (const b of m.bindings) {
    const part = partParameter(b, !b.hasDefault);
    if (part) uses.push(part);
    else if (b.source.kind === 'query-all') {
      uses.push({ kind: 'query-object', name: b.name, description: 'Every query parameter, as one JSON object (a repeated one as an array of its values)' });
    } else if (b.source.kind === 'body') {
      uses.push({ kind: 'body-value', name: b.name, required: !b.hasDefault, schema: bodySchema(b.type) });
      const own = m.mount.consumes ?? m.group.consumes;
      consumes = own.length > 0 ? own : [defaultBodyMedia(b.type)];
    }
    // `method` and `media` bindings come from the request line and the negotiation: no parameter.
  }
  const isVoid = m.routine.returns.kind === 'void';
  // A void function answers 204 with no body, whatever was negotiated.
  const listed = m.mount.produces ?? m.group.produces;
  const produces = isVoid ? listed : answerable(listed, routineOffers(cache, m.routine));
  const parameters = distinct(uses);
  return mountVerbs(m.mount.methods).map((method) => ({
    method,
    tags,
    ...operationText(m.routine.description),
    parameters,
    produces: produces.length > 0 ? produces : [MEDIA.json],
    ...(consumes !== undefined ? { consumes } : {}),
    responses: [
      isVoid ? { status: 204, description: 'No Content' } : { status: 200, description: 'OK' },
      { status: 'default', description: 'Error' },
    ],
  }));
}

/**
 * A relation mount: the table path's operations (PUT, which PostgREST's document does not list for
 * tables, left out here too) with the mount's path, bound columns as path, query, header or cookie
 * parameters instead of row filters.
 */
function relationMountOperations(
  m: Extract<ResolvedMount, { kind: 'relation' }>,
  segments: ReadonlyArray<TemplateSegment>,
  tags: ReadonlyArray<string>,
  def: string,
  cache: SchemaCache,
): Operation[] {
  const own = distinct([...segmentParameters(segments), ...m.bindings.flatMap((b) => partParameter(b, false) ?? [])]);
  const bound = new Set([...m.bindings.map((b) => b.name), ...m.bindings.flatMap((b) => (b.source.kind === 'query' ? [b.source.name] : []))]);
  const verbs = new Set(mountVerbs(m.mount.methods));
  // As for calls: a produces type the relation cannot answer (406 DBRST107) is not advertised.
  const produces = answerable(m.mount.produces ?? m.group.produces, relationOffers(cache, m.relation));
  return relationOperations(m.relation, def, tags, own, bound)
    .filter((op) => verbs.has(op.method))
    .map((op) => (produces.length > 0 ? { ...op, produces } : op));
}

// ---------------------------------------------------------------------------------------------
// definitions (PostgREST's makeTableDef / makeProperty)

function relationSchema(rel: Relation, relationships: ReadonlyArray<Relationship>, all: ReadonlyArray<Relation>): ObjectSchema {
  const isView = viewTest(all);
  const own = relationships.filter((r): r is Extract<Relationship, { kind: 'fk' }> =>
    r.kind === 'fk' && r.from.schema === rel.schema && r.from.name === rel.name && r.columns.length === 1);
  // Tables first: a column shown by a view points to the table rather than to another view.
  const toOne = [...own].sort((a, b) => Number(isView(a.to)) - Number(isView(b.to)));
  return {
    ...(rel.description !== null ? { description: rel.description } : {}),
    properties: rel.columns.map((c) => [c.name, columnSchema(rel, c, toOne, all)] as const),
    required: rel.columns.filter((c) => !c.nullable).map((c) => c.name),
  };
}

function viewTest(all: ReadonlyArray<Relation>): (q: { schema: string; name: string }) => boolean {
  const views = new Set(all.filter((r) => r.kind === 'view' || r.kind === 'materialized_view').map((r) => `${r.schema}\u0000${r.name}`));
  return (q) => views.has(`${q.schema}\u0000${q.name}`);
}

function columnSchema(
  rel: Relation,
  c: Column,
  toOne: ReadonlyArray<Extract<Relationship, { kind: 'fk' }>>,
  all: ReadonlyArray<Relation>,
): ValueSchema {
  const format = columnTypeName(c);
  const type = jsonTypeOf(format);
  const items = arrayItemsOf(format);
  const fk = toOne.find((r) => r.columns[0]![0] === c.name && (r.cardinality === 'm2o' || (r.cardinality === 'o2o' && holdsForeignKey(rel, r, all))));
  const notes = [
    'Note:',
    ...(rel.primaryKey.includes(c.name) ? ['This is a Primary Key.<pk/>'] : []),
    ...(fk ? [`This is a Foreign Key to \`${fk.to.name}.${fk.columns[0]![1]}\`.<fk table='${fk.to.name}' column='${fk.columns[0]![1]}'/>`] : []),
  ];
  const description = notes.length > 1 ? (c.description !== null ? c.description + '\n\n' : '') + notes.join('\n') : c.description;
  const dflt = parseDefault(format, c.type, c.default);
  return {
    format: integerFormat(format, type),
    type,
    ...(items ? { items } : {}),
    ...(description !== null ? { description } : {}),
    ...(dflt !== undefined ? { default: dflt } : {}),
    ...(c.enumValues.length > 0 ? { enum: c.enumValues } : {}),
    ...(c.maxLength !== null ? { maxLength: c.maxLength } : {}),
    nullable: c.nullable,
  };
}

/**
 * OpenAPI's integer formats for integer columns (PostgREST #4641: `integer` is not a valid format of
 * an `integer` in Swagger 2.0): int32 for smallint and integer, int64 for bigint; others unchanged.
 */
function integerFormat(format: string, type: JsonType | null): string {
  if (type !== 'integer') return format;
  if (format === 'integer' || format === 'smallint') return 'int32';
  return format === 'bigint' ? 'int64' : format;
}

/**
 * Of the two sides of a one-to-one relationship, PostgREST notes the foreign key on the side that
 * holds it. The schema cache keeps both directions without saying which constraint side each is, so
 * this tells them apart by keys: the referenced column is a primary key, the referencing one (unique,
 * since the relationship is one-to-one) usually is not. When both columns are primary keys (a shared
 * primary key), both sides are noted.
 */
function holdsForeignKey(rel: Relation, r: Extract<Relationship, { kind: 'fk' }>, all: ReadonlyArray<Relation>): boolean {
  const [from, to] = r.columns[0]!;
  const target = all.find((x) => x.schema === r.to.schema && x.name === r.to.name);
  return !(rel.primaryKey.includes(from) && !(target?.primaryKey.includes(to) ?? false));
}

/**
 * PostgREST's parseDefault: a string column's default loses its `::type` cast and its quotes; any
 * default is kept only if the result reads as JSON (`'x'::text` → "x", `42` → 42, `now()` →
 * "now()", `nextval(…)` on an integer → none).
 */
export function parseDefault(format: string, rawType: string, dflt: string | null): unknown {
  if (dflt === null) return undefined;
  let text = dflt;
  if (jsonTypeOf(format) === 'string') {
    const cast = [`::${format}`, `::${rawType}`].find((s) => text.endsWith(s));
    if (cast !== undefined) text = text.slice(0, -cast.length).replace(/^'+|'+$/g, '');
    text = `"${text}"`;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
