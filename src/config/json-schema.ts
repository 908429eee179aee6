// The JSON Schema of a dbrest config file (config/schema.json), generated from keys.ts so editors can complete
// and check `dbrest.config.json` / `.dbrestrc.yaml`. A unit test keeps config/schema.json equal to this output
// (regenerate with `npm test -- --snapshot`, or TAP_SNAPSHOT=1). Also builds config/dbrest.example.json.
// Pure; no I/O.

import { APP_SETTINGS_KEY, SCALAR_KEYS, describeType, envNames, type ConfigKey } from './keys.js';
import { ROUTE_METHODS } from './validate.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const MEDIA_LIST: Json = {
  anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
};

const BYTE_SIZE: Json = {
  anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*([bB]|[kKmMgG][iI]?[bB])?\\s*$' }],
};

const BODY_LIMITS: { [key: string]: Json } = {
  'max-body-size': { ...(BYTE_SIZE as object), description: 'Largest request body, in bytes or with a unit ("64KB", "1MB"); else 413. Replaces server-max-body-size.' },
  'max-body-size-by-media': {
    type: 'object',
    additionalProperties: BYTE_SIZE,
    description: 'Largest request body of a media type or range ({"application/xml": "64KB", "text/*": "1MB"}); over max-body-size.',
  },
};

const MOUNT_SCHEMA: Json = {
  type: 'object',
  required: ['path'],
  oneOf: [{ required: ['call'] }, { required: ['relation'] }],
  additionalProperties: false,
  properties: {
    method: {
      anyOf: [{ type: 'string', enum: [...ROUTE_METHODS] }, { type: 'array', items: { type: 'string', enum: [...ROUTE_METHODS] } }],
      description: 'HTTP method(s), case-insensitive; HEAD is served for every GET mount.',
    },
    path: { type: 'string', pattern: '^/', description: 'Path template under the group prefix: /things/:id(int), /files/*rest' },
    call: { type: 'string', minLength: 1, description: 'Function to call (schema.name, or name in the group schema).' },
    relation: { type: 'string', minLength: 1, description: 'Table or view answering PostgREST\'s grammar below the path.' },
    args: {
      type: 'object',
      description: 'Function argument (or column) → request part: path.<name>, query.<name>, query, header.<name>, cookie.<name>, body, method, media.',
      additionalProperties: { type: 'string', pattern: '^(query|body|method|media|(path|query|header|cookie)\\..+)$' },
    },
    produces: { ...(MEDIA_LIST as object), description: 'Media types answered (Accept is negotiated against them).' },
    consumes: { ...(MEDIA_LIST as object), description: 'Media types a request body may have (else 415).' },
    ...BODY_LIMITS,
  },
};

const GROUP_SCHEMA: Json = {
  type: 'object',
  required: ['routes'],
  additionalProperties: false,
  properties: {
    prefix: { type: 'string', pattern: '^/', description: 'Path prefix of the group, e.g. /api/v2.' },
    schema: { type: 'string', description: 'Schema of unqualified call and relation names.' },
    'error-handler': { type: 'string', description: 'Function rendering every error of the group.' },
    'pre-request': { type: ['string', 'null'], description: 'Replaces db-pre-request for the group ("" or null: none).' },
    produces: MEDIA_LIST,
    consumes: MEDIA_LIST,
    ...BODY_LIMITS,
    routes: { type: 'array', items: MOUNT_SCHEMA },
  },
};

const ROUTES_SCHEMA: { [key: string]: Json } = {
  anyOf: [
    { type: 'array', items: { anyOf: [MOUNT_SCHEMA, GROUP_SCHEMA] } },
    GROUP_SCHEMA,
    { type: 'string', description: 'A routes file (JSON), relative to the config file, or @file.' },
  ],
};

function valueSchema(k: ConfigKey): { [key: string]: Json } {
  const t = k.type;
  const nullable = k.default === null;
  const withNull = (schema: { [key: string]: Json }): { [key: string]: Json } =>
    nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
  switch (t.kind) {
    case 'string':
      // server-docs-path: a path, or false / "" for off.
      if (t.format === 'docs-path') return withNull({ anyOf: [{ type: 'string' }, { type: 'boolean' }] });
      return withNull({ type: 'string' });
    case 'secret':
      return withNull({ type: 'string' });
    case 'int': {
      const s: { [key: string]: Json } = { type: 'integer', minimum: t.min };
      if (t.max !== undefined) s['maximum'] = t.max;
      return withNull(t.words ? { anyOf: [s, { type: 'string', enum: [...t.words] }] } : s);
    }
    case 'bool': return t.words ? { anyOf: [{ type: 'boolean' }, { type: 'string', enum: [t.words.true, t.words.false] }] } : { type: 'boolean' };
    case 'list':
      return withNull({ anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string', description: 'comma-separated' }] });
    case 'enum': return { type: 'string', enum: [...t.values] };
    case 'json': return ROUTES_SCHEMA;
    case 'map': return { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } };
  }
}

const toJson = (v: unknown): Json => JSON.parse(JSON.stringify(v ?? null)) as Json;

export function buildConfigJsonSchema(): { [key: string]: Json } {
  const properties: { [key: string]: Json } = {
    $schema: { type: 'string' },
  };
  for (const k of SCALAR_KEYS) {
    properties[k.name] = {
      ...valueSchema(k),
      description: `${k.doc} (${describeType(k.type)}; env ${envNames(k).dbrest[0] as string})`,
      default: toJson(k.default),
    };
    for (const alias of k.aliases) {
      properties[alias] = { ...valueSchema(k), description: `Old spelling of ${k.name}.`, deprecated: true };
    }
  }
  properties['app'] = {
    type: 'object',
    additionalProperties: false,
    properties: { settings: { ...valueSchema(APP_SETTINGS_KEY), description: APP_SETTINGS_KEY.doc } },
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'dbrest configuration',
    description: 'Keys of a dbrest config file: every PostgREST key plus dbrest\'s own. Generated from src/config/keys.ts.',
    type: 'object',
    additionalProperties: false,
    properties,
    patternProperties: {
      '^app\\.settings\\.[^.]': { type: ['string', 'number', 'boolean'], description: APP_SETTINGS_KEY.doc },
    },
  };
}

/** config/dbrest.example.json: every key with its default (`app.settings.*` has none, so it is left out). */
export function buildExampleConfig(): { [key: string]: Json } {
  const out: { [key: string]: Json } = { $schema: './schema.json' };
  for (const k of SCALAR_KEYS) out[k.name] = toJson(k.default);
  return out;
}
