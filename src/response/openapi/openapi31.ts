// The API model (model.ts) as OpenAPI 3.1: the same paths, operations, parameters and row schemas
// as the Swagger 2.0 document, in 3.1's shapes — components (schemas, parameters, requestBodies,
// securitySchemes), request bodies apart from parameters, response content per media type, servers
// instead of host/basePath/schemes, and JSON Schema 2020-12 types (a nullable column is
// `type: ["integer", "null"]`). Pure: rendering only.
import {
  MEDIA,
  type ApiModel,
  type BodySchema,
  type MountParameter,
  type ObjectSchema,
  type Operation,
  type ParameterUse,
  type ResponseModel,
  type ServerModel,
  type SharedParameter,
  type ValueSchema,
} from './model.js';
import { componentName, pointerRef } from './refs.js';

type Json = Record<string, unknown>;

const componentRef = (section: string, name: string): Json => ({ $ref: pointerRef('components', section, componentName(name)) });

function valueSchema(v: ValueSchema): Json {
  const nullable = v.nullable && v.type !== null;
  return {
    ...(v.type !== null ? { type: nullable ? [v.type, 'null'] : v.type } : {}),
    format: v.format,
    ...(v.items !== undefined ? { items: v.items.type !== null ? { type: v.items.type } : {} } : {}),
    ...(v.description !== undefined ? { description: v.description } : {}),
    ...(v.default !== undefined ? { default: v.default } : {}),
    ...(v.enum !== undefined ? { enum: nullable ? [...v.enum, null] : v.enum } : {}),
    ...(v.maxLength !== undefined ? { maxLength: v.maxLength } : {}),
  };
}

function objectSchema(o: ObjectSchema): Json {
  return {
    type: 'object',
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.properties.length > 0 ? { properties: Object.fromEntries(o.properties.map(([k, v]) => [k, valueSchema(v)])) } : {}),
    ...(o.required.length > 0 ? { required: o.required } : {}),
  };
}

/**
 * Schema of a body in one media type: rows as a JSON array, one row (singular), or CSV text; none
 * for another media type a mount produces (XML, say), whose shape is not the rows'.
 */
function rowsSchema(media: string, definition: string): Json | null {
  if (media === MEDIA.csv) return { type: 'string' };
  if (media.startsWith(MEDIA.object)) return componentRef('schemas', definition);
  if (media !== MEDIA.json && !/^[^/]+\/[^;]*\+json(;|$)/.test(media)) return null;
  return { type: 'array', items: componentRef('schemas', definition) };
}

function parameter(p: Exclude<SharedParameter, { kind: 'body' }>): Json {
  return {
    name: p.name,
    in: p.kind,
    ...(p.description !== undefined ? { description: p.description } : {}),
    required: false,
    schema: { type: 'string', ...(p.enum !== undefined ? { enum: p.enum } : {}), ...(p.default !== undefined ? { default: p.default } : {}) },
  };
}

function requestBody(p: Extract<SharedParameter, { kind: 'body' }>, consumes: ReadonlyArray<string>): Json {
  return {
    description: p.description,
    required: false,
    content: Object.fromEntries(consumes.map((m) => [m, { schema: m === MEDIA.csv ? { type: 'string' } : componentRef('schemas', p.definition) }])),
  };
}

function argParameter(u: Extract<ParameterUse, { kind: 'arg' }>): Json {
  const s = u.schema;
  const schema = u.variadic
    ? { type: 'array', items: { ...(s.items?.type ? { type: s.items.type } : {}), format: s.format.replace(/\[\]$/, '') } }
    : { type: s.type === null || s.type === 'array' ? 'string' : s.type, format: s.format };
  return { name: u.name, in: 'query', required: u.required, schema, ...(u.variadic ? { style: 'form', explode: true } : {}) };
}

function mountParameter(u: MountParameter): Json {
  const s = u.schema;
  return {
    name: u.name,
    in: u.in,
    ...(u.description !== undefined ? { description: u.description } : {}),
    required: u.required,
    schema: {
      type: s.type,
      ...(s.format !== undefined ? { format: s.format } : {}),
      ...(s.items !== undefined ? { items: { type: s.items.type, ...(s.items.format !== undefined ? { format: s.items.format } : {}) } } : {}),
    },
    ...(u.repeated ? { style: 'form', explode: true } : {}),
  };
}

/** The whole query string as one object: every query parameter is a property (repeated: an array). */
function queryObject(u: Extract<ParameterUse, { kind: 'query-object' }>): Json {
  return {
    name: u.name,
    in: 'query',
    description: u.description,
    required: false,
    schema: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } },
    style: 'form',
    explode: true,
  };
}

function bodySchema(b: BodySchema, media: string): Json {
  if (b.kind === 'json') return {};
  if (b.kind === 'binary') return { type: 'string', contentMediaType: media };
  return { type: 'string', ...(b.format !== undefined ? { format: b.format } : {}) };
}

function response(r: ResponseModel, produces: ReadonlyArray<string>, documentMedia: boolean): Json {
  if (r.rowsOf !== undefined) {
    const def = r.rowsOf;
    return {
      description: r.description,
      content: Object.fromEntries(produces.map((m) => {
        const schema = rowsSchema(m, def);
        return [m, schema === null ? {} : { schema }];
      })),
    };
  }
  // An operation's own media types (routines, the root) describe its 200 body; no schema is known.
  if (r.status === 200 && !documentMedia) return { description: r.description, content: Object.fromEntries(produces.map((m) => [m, {}])) };
  return { description: r.description };
}

function operation(op: Operation, model: ApiModel, parameters: ReadonlyMap<string, SharedParameter>): Json {
  const params: Json[] = [];
  let body: Json | null = null;
  for (const u of op.parameters) {
    if (u.kind === 'ref') {
      const shared = parameters.get(u.key);
      if (shared?.kind === 'body') body = componentRef('requestBodies', u.key);
      else params.push(componentRef('parameters', u.key));
    } else if (u.kind === 'args-body') {
      body = { required: true, content: { [MEDIA.json]: { schema: objectSchema(u.schema) } } };
    } else if (u.kind === 'body-value') {
      const schema = u.schema;
      body = { required: u.required, content: Object.fromEntries((op.consumes ?? model.consumes).map((m) => [m, { schema: bodySchema(schema, m) }])) };
    } else if (u.kind === 'mount-param') {
      params.push(mountParameter(u));
    } else if (u.kind === 'query-object') {
      params.push(queryObject(u));
    } else {
      params.push(argParameter(u));
    }
  }
  const produces = op.produces ?? model.produces;
  return {
    tags: op.tags,
    ...(op.summary !== undefined ? { summary: op.summary } : {}),
    ...(op.description !== undefined ? { description: op.description } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body !== null ? { requestBody: body } : {}),
    responses: Object.fromEntries(op.responses.map((r) => [String(r.status), response(r, produces, op.produces === undefined)])),
  };
}

/** `https://example.com/api`: the port only when not the scheme's default, no trailing slash. */
export function serverUrl(s: ServerModel): string {
  const host = s.host.includes(':') && !s.host.startsWith('[') ? `[${s.host}]` : s.host;
  const port = (s.scheme === 'http' && s.port === 80) || (s.scheme === 'https' && s.port === 443) ? '' : `:${s.port}`;
  return `${s.scheme}://${host}${port}${s.basePath.replace(/\/+$/, '')}`;
}

/** Render the model as an OpenAPI 3.1 document. */
export function renderOpenApi31(model: ApiModel): Json {
  const parameters = new Map(model.parameters);
  const components: Json = {
    schemas: Object.fromEntries(model.definitions.map((d) => [componentName(d.name), objectSchema(d.schema)])),
    parameters: Object.fromEntries(
      model.parameters.flatMap(([k, p]) => (p.kind === 'body' ? [] : [[componentName(k), parameter(p)] as const])),
    ),
    requestBodies: Object.fromEntries(
      model.parameters.flatMap(([k, p]) => (p.kind === 'body' ? [[componentName(k), requestBody(p, model.consumes)] as const] : [])),
    ),
    ...(model.security
      ? { securitySchemes: { JWT: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A JWT sent as `Authorization: Bearer <token>`' } } }
      : {}),
  };
  return {
    openapi: '3.1.0',
    info: { title: model.info.title, description: model.info.description, version: model.info.version },
    servers: [{ url: serverUrl(model.server) }],
    paths: Object.fromEntries(
      model.paths.map((p) => [p.path, Object.fromEntries(p.operations.map((o) => [o.method, operation(o, model, parameters)]))]),
    ),
    components,
    ...(model.security ? { security: [{ JWT: [] }] } : {}),
    externalDocs: model.externalDocs,
  };
}
