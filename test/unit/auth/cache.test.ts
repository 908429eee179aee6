import t from 'tap';

import { ExpiringLruCache } from '../../../src/auth/cache.js';

t.test('get returns what set stored until it expires', async (t) => {
  const c = new ExpiringLruCache<string>(10);
  c.set('k', 'v', 1000, 0);
  t.equal(c.get('k', 999), 'v');
  t.equal(c.get('k', 1000), undefined);
  t.equal(c.size, 0, 'an expired entry is dropped on lookup');
});

t.test('an already expired entry is not stored', async (t) => {
  const c = new ExpiringLruCache<string>(10);
  c.set('k', 'v', 100, 100);
  t.equal(c.size, 0);
});

t.test('the least recently used entry goes first', async (t) => {
  const c = new ExpiringLruCache<string>(2);
  c.set('a', 'A', 1000, 0);
  c.set('b', 'B', 1000, 0);
  t.equal(c.get('a', 1), 'A'); // a is now the most recently used
  c.set('c', 'C', 1000, 1);
  t.equal(c.get('b', 2), undefined, 'b evicted');
  t.equal(c.get('a', 2), 'A');
  t.equal(c.get('c', 2), 'C');
  t.equal(c.size, 2);
});

t.test('replacing a key does not evict another', async (t) => {
  const c = new ExpiringLruCache<string>(2);
  c.set('a', 'A', 1000, 0);
  c.set('b', 'B', 1000, 0);
  c.set('a', 'A2', 1000, 0);
  t.equal(c.get('a', 1), 'A2');
  t.equal(c.get('b', 1), 'B');
});

t.test('a zero-sized cache stores nothing', async (t) => {
  const c = new ExpiringLruCache<string>(0);
  c.set('a', 'A', 1000, 0);
  t.equal(c.get('a', 1), undefined);
  c.clear();
  t.equal(c.size, 0);
});
