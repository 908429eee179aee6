import t from 'tap';
import { resolveEmbedRange, resolveRootRange, restrictRange } from '../../../src/plan/range.js';

const root = (params: { offset: number; limit: number | null } | null, header: { first: number; last: number | null } | null, max: number | null = null) => {
  const r = resolveRootRange(params, header, max);
  return r.ok ? r.value : r.error;
};

t.test('limit and offset', async (t) => {
  t.same(root(null, null), { offset: 0, limit: null }, 'everything');
  t.same(root({ offset: 0, limit: 10 }, null), { offset: 0, limit: 10 });
  t.same(root({ offset: 5, limit: null }, null), { offset: 5, limit: null });
  t.same(root({ offset: 5, limit: 0 }, null), { offset: 5, limit: 0 }, 'limit=0 is a real limit');
});

t.test('Range header intersected with limit/offset', async (t) => {
  t.same(root(null, { first: 0, last: 9 }), { offset: 0, limit: 10 });
  t.same(root(null, { first: 10, last: null }), { offset: 10, limit: null }, 'open ended');
  t.same(root({ offset: 0, limit: 5 }, { first: 2, last: 9 }), { offset: 2, limit: 3 });
  t.same(root({ offset: 4, limit: null }, { first: 2, last: 9 }), { offset: 4, limit: 6 });
  t.same(root({ offset: 0, limit: 0 }, { first: 2, last: 9 }), { offset: 0, limit: 0 }, 'limit=0 wins over the header');
});

t.test('db-max-rows caps', async (t) => {
  t.same(root(null, null, 100), { offset: 0, limit: 100 });
  t.same(root({ offset: 3, limit: 500 }, null, 100), { offset: 3, limit: 100 });
  t.same(root({ offset: 3, limit: 5 }, null, 100), { offset: 3, limit: 5 });
  t.same(root(null, { first: 0, last: 999 }, 10), { offset: 0, limit: 10 });
  t.same(restrictRange({ offset: 1, limit: null }, null), { offset: 1, limit: null });
});

t.test('invalid ranges are DBRST103 416', async (t) => {
  t.same(root(null, { first: 5, last: 2 }), {
    code: 'DBRST103',
    status: 416,
    message: 'Requested range not satisfiable',
    details: 'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
    hint: null,
  });
  t.same(root({ offset: 0, limit: -1 }, null), {
    code: 'DBRST103',
    status: 416,
    message: 'Requested range not satisfiable',
    details: 'Limit should be greater than or equal to zero.',
    hint: null,
  });
  t.match(root({ offset: 10, limit: null }, { first: 0, last: 5 }), { code: 'DBRST103', details: 'Limit should be greater than or equal to zero.' }, 'disjoint header and offset');
  t.same(root({ offset: -1, limit: null }, null), { offset: 0, limit: null }, 'a negative offset is a no-op');
});

t.test('embedded ranges', async (t) => {
  t.same(resolveEmbedRange(null, null), { ok: true, value: { offset: 0, limit: null } });
  t.same(resolveEmbedRange({ offset: 1, limit: 2 }, 1), { ok: true, value: { offset: 1, limit: 1 } });
  t.same(resolveEmbedRange({ offset: 0, limit: 0 }, 10), { ok: true, value: { offset: 0, limit: 0 } });
  t.match(resolveEmbedRange({ offset: 0, limit: -2 }, null), { ok: false, error: { code: 'DBRST103' } });
});
