// README.md lists every error code the catalog has, with its status, exactly as the catalog says.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { errors } from '../../../src/errors/catalog.js';
import { buildErrorReference, ERRORS_END, ERRORS_START } from '../../../src/errors/reference.js';

t.test('README holds the generated table of error codes', async (t) => {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf(ERRORS_START);
  const end = readme.indexOf(ERRORS_END);
  t.ok(start >= 0 && end > start, 'README has the error-code markers');
  t.equal(readme.slice(start, end + ERRORS_END.length), buildErrorReference(), 'regenerate from src/errors/reference.ts if codes changed');
});

t.test('one row per code, and no code reads as an HTTP status', async (t) => {
  const rows = buildErrorReference().split('\n').filter((l) => l.startsWith('| `DBRST'));
  t.equal(rows.length, Object.keys(errors).length);
  for (const code of Object.keys(errors)) t.notMatch(code, /^DBRST[45]\d\d$/, `${code} is not in a 4xx/5xx-looking group`);
});
