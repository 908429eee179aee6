import t from 'tap';

import { parsePreferences } from '../../../src/request/preferences.js';

const none = {
  return: null, count: null, resolution: null, missing: null, handling: null, tx: null, maxAffected: null, params: null, timezone: null, invalid: [],
};

t.test('no header', async (t) => {
  t.strictSame(parsePreferences([]), none);
  t.strictSame(parsePreferences(['']), none);
});

t.test('every preference', async (t) => {
  const one = (v: string) => parsePreferences([v]);
  t.strictSame(one('return=minimal'), { ...none, return: 'minimal' });
  t.strictSame(one('return=headers-only'), { ...none, return: 'headers-only' });
  t.strictSame(one('return=representation'), { ...none, return: 'representation' });
  t.strictSame(one('count=exact'), { ...none, count: 'exact' });
  t.strictSame(one('count=planned'), { ...none, count: 'planned' });
  t.strictSame(one('count=estimated'), { ...none, count: 'estimated' });
  t.strictSame(one('resolution=merge-duplicates'), { ...none, resolution: 'merge-duplicates' });
  t.strictSame(one('resolution=ignore-duplicates'), { ...none, resolution: 'ignore-duplicates' });
  t.strictSame(one('missing=default'), { ...none, missing: 'default' });
  t.strictSame(one('missing=null'), { ...none, missing: 'null' });
  t.strictSame(one('handling=strict'), { ...none, handling: 'strict' });
  t.strictSame(one('handling=lenient'), { ...none, handling: 'lenient' });
  t.strictSame(one('tx=commit'), { ...none, tx: 'commit' });
  t.strictSame(one('tx=rollback'), { ...none, tx: 'rollback' });
  t.strictSame(one('max-affected=10'), { ...none, maxAffected: 10 });
  t.strictSame(one('max-affected=0'), { ...none, maxAffected: 0 });
  t.strictSame(one('params=single-object'), { ...none, params: 'single-object' });
  t.strictSame(one('timezone=America/Los_Angeles'), { ...none, timezone: 'America/Los_Angeles' });
});

t.test('one header, comma-separated, arbitrary spaces (PostgREST doctest)', async (t) => {
  t.strictSame(parsePreferences(['count=exact,    tx=commit   ,return=representation , missing=default, handling=strict, anything']), {
    ...none, count: 'exact', tx: 'commit', return: 'representation', missing: 'default', handling: 'strict', invalid: ['anything'],
  });
  t.strictSame(parsePreferences(['resolution=ignore-duplicates, count=exact, timezone=America/Los_Angeles']), {
    ...none, resolution: 'ignore-duplicates', count: 'exact', timezone: 'America/Los_Angeles',
  });
});

t.test('several headers', async (t) => {
  t.strictSame(parsePreferences(['resolution=ignore-duplicates', 'count=exact', 'missing=null', 'handling=lenient', 'invalid']), {
    ...none, resolution: 'ignore-duplicates', count: 'exact', missing: 'null', handling: 'lenient', invalid: ['invalid'],
  });
});

t.test('the first occurrence wins, within and across headers', async (t) => {
  t.equal(parsePreferences(['tx=commit, tx=rollback']).tx, 'commit');
  t.equal(parsePreferences(['resolution=ignore-duplicates', 'resolution=merge-duplicates']).resolution, 'ignore-duplicates');
  t.equal(parsePreferences(['timezone=UTC', 'timezone=Europe/Paris']).timezone, 'UTC');
  t.equal(parsePreferences(['max-affected=1, max-affected=2']).maxAffected, 1);
  t.strictSame(parsePreferences(['return=minimal, return=representation']).invalid, [], 'a repeat is not invalid');
});

t.test('invalid preferences are kept verbatim', async (t) => {
  t.strictSame(parsePreferences(['Return=minimal, count=EXACT, return = minimal, foo, bar=baz, params=multiple-objects']).invalid,
    ['Return=minimal', 'count=EXACT', 'return = minimal', 'foo', 'bar=baz', 'params=multiple-objects']);
  t.strictSame(parsePreferences(['max-affected=lots, max-affected=-1, max-affected=']).invalid, ['max-affected=lots', 'max-affected=-1', 'max-affected=']);
  t.strictSame(parsePreferences(['a,,b,']).invalid, ['a', 'b'], 'empty items are skipped');
  t.equal(parsePreferences(['timezone=']).timezone, null);
  t.strictSame(parsePreferences(['timezone=']).invalid, []);
});
