// Every documented key is exercised by some test (issue 32: a key that is accepted and then does
// nothing is worse than a missing one). "Exercised" means a test file other than this one and the
// table's own tests (keys, reference, json-schema: they list every key by construction) spells the
// key as a user sets it: its name or an alias as a whole word (`db-max-rows` in a config, a flag
// `--db-max-rows`, a `testConfig` setting), one of its env variables (DBREST_DB_MAX_ROWS,
// PGRST_DB_MAX_ROWS), or its field set in an object literal (`{ ...DEFAULT_CONFIG, dbMaxRows: 2 }`).
// A spelled key is not proof its test is good, but an unspelled one is surely untested.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { CONFIG_KEYS, envNames, type ConfigKey } from '../../../src/config/keys.js';

const SELF_AND_TABLE_TESTS = new Set([
  'test/unit/config/keys-exercised.test.ts', 'test/unit/config/keys.test.ts',
  'test/unit/config/reference.test.ts', 'test/unit/config/json-schema.test.ts',
]);

/**
 * Keys no test sets, each with why. Empty is the goal; an entry needs a reason a reviewer accepts.
 */
const NOT_EXERCISED: ReadonlyMap<string, string> = new Map([]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return name === 'fixtures' || name === 'golden' ? [] : sources(p);
    return p.endsWith('.ts') && !SELF_AND_TABLE_TESTS.has(p.split(path.sep).join('/')) ? [p] : [];
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function spellings(k: ConfigKey): RegExp {
  const names = [k.name === 'app.settings.*' ? 'app.settings.' : k.name, ...k.aliases].map((n) => `(?<![\\w-])${escape(n)}(?![\\w-])`);
  const env = [...envNames(k).dbrest, ...envNames(k).pgrst].map((n) => `\\b${n}\\b`);
  const field = `\\b${k.field}\\s*:`;
  return new RegExp([...names, ...env, field].join('|'));
}

t.test('every key in src/config/keys.ts is set by some test', async (t) => {
  const texts = sources('test').map((f) => [f, readFileSync(f, 'utf8')] as const);
  const unexercised: string[] = [];
  for (const k of CONFIG_KEYS) {
    const re = spellings(k);
    const by = texts.find(([, text]) => re.test(text));
    if (by === undefined) unexercised.push(k.name);
  }
  for (const [name, why] of NOT_EXERCISED) t.comment(`not exercised on purpose: ${name}: ${why}`);
  t.same(unexercised.filter((n) => !NOT_EXERCISED.has(n)), [], 'keys no test sets (write a test, or add one to NOT_EXERCISED with why)');
  t.same([...NOT_EXERCISED.keys()].filter((n) => !unexercised.includes(n)), [], 'allow-listed keys that are now exercised (remove them)');
});
