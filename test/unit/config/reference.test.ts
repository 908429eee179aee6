// README.md's configuration reference is exactly what keys.ts generates: no key is described twice.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { buildConfigReference, REFERENCE_END, REFERENCE_START } from '../../../src/config/reference.js';
import { CONFIG_KEYS } from '../../../src/config/keys.js';

t.test('README holds the generated configuration reference', async (t) => {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  t.ok(start >= 0 && end > start, 'README has the reference markers');
  t.equal(readme.slice(start, end + REFERENCE_END.length), buildConfigReference(), 'regenerate with src/config/reference.ts if keys changed');
});

t.test('the reference has one row per key', async (t) => {
  const rows = buildConfigReference().split('\n').filter((l) => l.startsWith('| `'));
  t.equal(rows.length, CONFIG_KEYS.length);
  t.ok(rows.some((r) => r.startsWith('| `db-uri` | `DBREST_DB_URI` |')));
});
