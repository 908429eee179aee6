// The API model (model.ts) as Swagger 2.0, the document PostgREST serves at its root path, key for
// key, so tools built for PostgREST's document (Swagger UI, postgrest-js type generators) read this
// one unchanged. Pure: rendering only; what the API offers is decided in model.ts.
import {
  type ApiModel,
  type BodySchema,
  type ObjectSchema,
  type Operation,
  type ParameterUse,
  type SharedParameter,
  type ValueSchema,
} from './model.js';
import { pointerRef } from './refs.js';

type Json = Record<string, unknown>;

const definitionRef = (name: string): Json => ({ $ref: pointerRef('definitions', name) });

function valueSchema(v: ValueSchema): Json {
  return {
    ...(v.default !== undefined ? { default: v.default } : {}),
    ...(v.description !== undefined ? { description: v.description } : {}),
    ...(v.enum !== undefined ? { enum: v.enum } : {}),
    format: v.format,
    ...(v.maxLength !== undefined ? { maxLength: v.maxLength } : {}),
    ...(v.type !== null ? { type: v.type } : {}),
    ...(v.items !== undefined ? { items: v.items.type !== null ? { type: v.items.type } : {} } : {}),
  };
}

function objectSchema(o: ObjectSchema): Json {
  return {
    ...(o.required.length > 0 ? { required: o.required } : {}),
    ...(o.properties.length > 0 ? { properties: Object.fromEntries(o.properties.map(([k, v]) => [k, valueSchema(v)])) } : {}),
    type: 'object',
    ...(o.description !== undefined ? { description: o.description } : {}),
  };
}

function sharedParameter(p: SharedParameter): Json {
  if (p.kind === 'body') {
    return { name: p.name, description: p.description, required: false, in: 'body', schema: definitionRef(p.definition) };
  }
  return {
    name: p.name,
    ...(p.description !== undefined ? { description: p.description } : {}),
    required: false,
    ...(p.enum !== undefined ? { enum: p.enum } : {}),
    ...(p.default !== undefined ? { default: p.default } : {}),
    in: p.kind,
    type: 'string',
  };
}

function bodySchema(b: BodySchema): Json {
  if (b.kind === 'json') return {};
  if (b.kind === 'binary') return { type: 'string', format: 'binary' };
  return { type: 'string', ...(b.format !== undefined ? { format: b.format } : {}) };
}

/** Null: a parameter Swagger 2.0 cannot describe. */
function parameterUse(u: ParameterUse): Json | null {
  switch (u.kind) {
    case 'mount-param': {
      // Swagger 2.0 has no cookie parameters (`in` is query, header, path, formData or body): a
      // mount's cookie bindings appear in the OpenAPI 3.1 document only.
      if (u.in === 'cookie') return null;
      const s = u.schema;
      return {
        name: u.name,
        in: u.in,
        ...(u.description !== undefined ? { description: u.description } : {}),
        required: u.required,
        type: s.type,
        ...(s.format !== undefined ? { format: s.format } : {}),
        ...(s.items !== undefined ? { items: { type: s.items.type, ...(s.items.format !== undefined ? { format: s.items.format } : {}) } } : {}),
        ...(u.repeated ? { collectionFormat: 'multi' } : {}),
      };
    }
    case 'query-object':
      // The whole query string bound as one JSON object: Swagger 2.0 cannot describe free-form
      // query parameters (OpenAPI 3.1 does, as an exploded object).
      return null;
    case 'body-value':
      return { name: u.name, required: u.required, in: 'body', schema: bodySchema(u.schema) };
    case 'ref':
      return { $ref: pointerRef('parameters', u.key) };
    case 'args-body':
      return { name: 'args', required: true, in: 'body', schema: objectSchema(u.schema) };
    case 'arg': {
      const s = u.schema;
      if (u.variadic) {
        // PostgREST: repeated query parameters, `?v=1&v=2`
        return {
          name: u.name,
          required: u.required,
          in: 'query',
          type: s.type ?? 'string',
          collectionFormat: 'multi',
          items: { format: s.format.replace(/\[\]$/, ''), ...(s.items?.type ? { type: s.items.type } : {}) },
        };
      }
      // A query parameter needs a type: arrays (`{1,2}`) and JSON travel as strings.
      const type = s.type === null || s.type === 'array' ? 'string' : s.type;
      return { format: s.format, in: 'query', name: u.name, required: u.required, type };
    }
  }
}

function operation(op: Operation): Json {
  const parameters = op.parameters.flatMap((u) => parameterUse(u) ?? []);
  return {
    tags: op.tags,
    ...(op.summary !== undefined ? { summary: op.summary } : {}),
    ...(op.description !== undefined ? { description: op.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.consumes !== undefined ? { consumes: op.consumes } : {}),
    ...(op.produces !== undefined ? { produces: op.produces } : {}),
    responses: Object.fromEntries(op.responses.map((r) => [
      String(r.status),
      { description: r.description, ...(r.rowsOf !== undefined ? { schema: { items: definitionRef(r.rowsOf), type: 'array' } } : {}) },
    ])),
  };
}

/** Render the model as PostgREST's Swagger 2.0 document. */
export function renderSwagger(model: ApiModel): Json {
  const { server } = model;
  return {
    swagger: '2.0',
    info: { description: model.info.description, title: model.info.title, version: model.info.version },
    host: `${hostName(server.host)}:${server.port}`,
    basePath: server.basePath,
    schemes: [server.scheme],
    consumes: model.consumes,
    produces: model.produces,
    paths: Object.fromEntries(model.paths.map((p) => [p.path, Object.fromEntries(p.operations.map((o) => [o.method, operation(o)]))])),
    definitions: Object.fromEntries(model.definitions.map((d) => [d.name, objectSchema(d.schema)])),
    parameters: Object.fromEntries(model.parameters.map(([k, p]) => [k, sharedParameter(p)])),
    ...(model.security
      ? {
          securityDefinitions: {
            JWT: { type: 'apiKey', description: 'Add the token prepending "Bearer " (without quotes) to it', name: 'Authorization', in: 'header' },
          },
          security: [{ JWT: [] }],
        }
      : {}),
    externalDocs: model.externalDocs,
  };
}

/** An IPv6 address is written in brackets before the port. */
const hostName = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
