// The API model (model.ts) as Swagger 2.0, the document PostgREST serves at its root path, key for
// key, so tools built for PostgREST's document (Swagger UI, postgrest-js type generators) read this
// one unchanged. Pure: rendering only; what the API offers is decided in model.ts.
import {
  type ApiModel,
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

function parameterUse(u: ParameterUse): Json {
  switch (u.kind) {
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
  return {
    tags: op.tags,
    ...(op.summary !== undefined ? { summary: op.summary } : {}),
    ...(op.description !== undefined ? { description: op.description } : {}),
    ...(op.parameters.length > 0 ? { parameters: op.parameters.map(parameterUse) } : {}),
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
