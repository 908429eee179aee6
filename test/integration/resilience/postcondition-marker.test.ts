// The postcondition marker (sql/mutate.ts) is random per process: a request body or a user's
// function whose error text carries the old fixed marker, or anything shaped like it, is answered as
// the database error it is, never mistaken for one of dbrest's own postconditions (which would turn
// a failed insert into a 406/400 DBRST11x and hide the real cause).
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';
import { WRITE_CONFIG, tableRows } from '../write/write-server.js';

// A function that raises exactly what the fixed marker used to look like (22P02, the same message
// shape as dbrest's integer cast), and one that casts such a text itself.
const FUNCTIONS = `
CREATE FUNCTION public.raise_lookalike(mark text) RETURNS SETOF public.items LANGUAGE plpgsql AS $$
BEGIN
  RAISE invalid_text_representation USING MESSAGE = format('invalid input syntax for type integer: "%s"', mark);
END $$;
CREATE FUNCTION public.cast_lookalike(mark text) RETURNS integer LANGUAGE sql AS $$ SELECT mark::integer $$;
GRANT EXECUTE ON FUNCTION public.raise_lookalike(text), public.cast_lookalike(text) TO write_anon;
`;

const LOOKALIKES = [
  'dbrest-postcondition DBRST116 2', // the old fixed marker
  'dbrest-postcondition DBRST124 7',
  'dbrest-postcondition-0123456789abcdef01234567 DBRST116 3', // the new shape, a guessed suffix
  'x "dbrest-postcondition DBRST110 9" y',
];

t.test('a body or a function raising the marker text is a plain database error', async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'write.sql'), FUNCTIONS], config: WRITE_CONFIG });
  const before = await tableRows(s, 'items');

  for (const mark of LOOKALIKES) {
    t.test(`body: ${mark}`, async (t) => {
      // items.id is an integer: the body's text fails its cast with a 22P02 naming the text.
      const res = await s.request('/items', {
        method: 'POST',
        headers: { Prefer: 'return=representation', Accept: 'application/vnd.pgrst.object+json' },
        body: { id: mark, name: 'n' },
      });
      t.equal(res.status, 400);
      const body = res.json();
      t.equal(body.code, '22P02', 'the database error, not a DBRST postcondition');
      t.equal(body.message, `invalid input syntax for type integer: "${mark}"`);
      t.same(await tableRows(s, 'items'), before, 'nothing written');
    });

    t.test(`PATCH with max-affected, body: ${mark}`, async (t) => {
      const res = await s.request('/items?id=gt.0', {
        method: 'PATCH',
        headers: { Prefer: 'handling=strict, max-affected=1' },
        body: { qty: mark },
      });
      t.equal(res.status, 400);
      t.equal(res.json().code, '22P02');
      t.equal(res.json().message, `invalid input syntax for type integer: "${mark}"`);
    });

    t.test(`function raising: ${mark}`, async (t) => {
      const res = await s.request('/rpc/raise_lookalike', {
        method: 'POST',
        headers: { Accept: 'application/vnd.pgrst.object+json' },
        body: { mark },
      });
      t.equal(res.status, 400);
      t.same(res.json(), { code: '22P02', details: null, hint: null, message: `invalid input syntax for type integer: "${mark}"` });
    });

    t.test(`function casting: ${mark}`, async (t) => {
      const res = await s.request('/rpc/cast_lookalike', { method: 'POST', body: { mark } });
      t.equal(res.status, 400);
      t.equal(res.json().code, '22P02');
      t.equal(res.json().message, `invalid input syntax for type integer: "${mark}"`);
    });
  }

  t.test('dbrest\'s own postconditions still answer as before', async (t) => {
    const strict = await s.request('/items?id=gt.0', { method: 'PATCH', headers: { Prefer: 'handling=strict, max-affected=1' }, body: { qty: 3 } });
    t.equal(strict.status, 400);
    t.same(strict.json(), { code: 'DBRST124', details: `The query affects ${before.length} rows`, hint: null, message: 'Query result exceeds max-affected preference constraint' });
    const singular = await s.request('/rpc/all_items', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    t.equal(singular.status, 406);
    t.equal(singular.json().code, 'DBRST116');
    t.same(await tableRows(s, 'items'), before, 'both rolled back');
  });
});
