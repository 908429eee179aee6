// config/schema.json and config/dbrest.example.json are generated from keys.ts and must stay in step with it.
// Regenerate both with `npm test -- --snapshot` (tap sets TAP_SNAPSHOT=1).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

import { buildConfigJsonSchema, buildExampleConfig } from '../../../src/config/json-schema.js';
import { DEFAULT_CONFIG, SCALAR_KEYS } from '../../../src/config/keys.js';
import { loadConfig } from '../../../src/config/load.js';

const root = process.cwd(); // tests run from the repository root
const configDir = path.join(root, 'config');

/** The file's text and what keys.ts generates (written first in snapshot mode). */
function generated(file: string, value: unknown): { actual: string; expected: string } {
  const expected = JSON.stringify(value, null, 2) + '\n';
  const full = path.join(configDir, file);
  if (process.env['TAP_SNAPSHOT'] === '1') writeFileSync(full, expected);
  return { actual: readFileSync(full, 'utf8'), expected };
}

for (const [file, build] of [['schema.json', buildConfigJsonSchema], ['dbrest.example.json', buildExampleConfig]] as const) {
  t.test(`config/${file} is generated from keys.ts`, async (t) => {
    const { actual, expected } = generated(file, build());
    t.equal(actual, expected, `config/${file} is up to date (regenerate with npm test -- --snapshot)`);
  });
}

t.test('the schema describes every key, its aliases and app.settings', async (t) => {
  const schema = buildConfigJsonSchema() as { properties: Record<string, { default?: unknown; enum?: unknown; deprecated?: boolean }>; patternProperties: Record<string, unknown> };
  for (const k of SCALAR_KEYS) {
    t.ok(schema.properties[k.name], k.name);
    t.same(schema.properties[k.name]?.default, k.default, `${k.name} default`);
    for (const a of k.aliases) t.equal(schema.properties[a]?.deprecated, true, a);
  }
  t.same(schema.properties['db-tx-end']?.enum, ['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override']);
  t.ok(schema.patternProperties['^app\\.settings\\.[^.]']);
});

t.test('the example loads without problems and resolves to the defaults', async (t) => {
  const l = await loadConfig({ cwd: root, file: 'config/dbrest.example.json', env: {}, flags: {} });
  t.same(l.problems, []);
  t.same(l.config, DEFAULT_CONFIG);
});

t.test('the PostgREST-syntax example loads without problems', async (t) => {
  const l = await loadConfig({ cwd: root, file: 'config/postgrest-compat.conf', env: {}, flags: {} });
  t.same(l.problems, []);
  t.same(l.config.dbSchemas, ['api']);
  t.equal(l.config.dbAnonRole, 'web_anon');
  t.same(l.config.dbExtraSearchPath, ['public', 'extensions']);
  t.same(l.config.appSettings, { environment: 'development' });
});
