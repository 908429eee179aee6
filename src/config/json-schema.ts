// The JSON Schema of a dbrest config file (config/schema.json), generated from keys.ts so editors can complete
// and check `dbrest.config.json` / `.dbrestrc.yaml`. A unit test keeps config/schema.json equal to this output
// (regenerate with `npm test -- --snapshot`, or TAP_SNAPSHOT=1). Also builds config/dbrest.example.json.
// Pure; no I/O.

import { APP_SETTINGS_KEY, SCALAR_KEYS, describeType, envNames, type ConfigKey } from './keys.js';
import { ROUTE_METHODS } from './validate.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const ROUTE_SCHEMA: Json = {
  type: 'object',
  required: ['method', 'path', 'call'],
  additionalProperties: false,
  properties: {
    method: { type: 'string', enum: [...ROUTE_METHODS], description: 'HTTP method (case-insensitive).' },
    path: { type: 'string', pattern: '^/', description: 'Path template, e.g. /api/cms/v2/bookmark/:locationId' },
    call: { type: 'string', minLength: 1, description: 'Function to call, schema-qualified.' },
    args: {
      type: 'object',
      description: 'Function argument → request part: path.<name>, query.<name>, query, header.<name>, cookie.<name>, body, method.',
      additionalProperties: { type: 'string', pattern: '^(query|body|method|(path|query|header|cookie)\\..+)$' },
    },
  },
};

function valueSchema(k: ConfigKey): { [key: string]: Json } {
  const t = k.type;
  const nullable = k.default === null;
  const withNull = (schema: { [key: string]: Json }): { [key: string]: Json } =>
    nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
  switch (t.kind) {
    case 'string':
    case 'secret':
      return withNull({ type: 'string' });
    case 'int': {
      const s: { [key: string]: Json } = { type: 'integer', minimum: t.min };
      if (t.max !== undefined) s['maximum'] = t.max;
      return withNull(s);
    }
    case 'bool': return { type: 'boolean' };
    case 'list':
      return withNull({ anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string', description: 'comma-separated' }] });
    case 'enum': return { type: 'string', enum: [...t.values] };
    case 'json': return { type: 'array', items: ROUTE_SCHEMA };
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
