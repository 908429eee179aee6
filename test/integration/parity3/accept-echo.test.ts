// Issue 12 rest, item 3: an Accept header dbrest cannot serve is echoed in DBRST107 as PostgREST
// names it (wai's parseHttpAccept + decodeMediaType; CustomMediaSpec "media type parser fails →
// sends media type as is"): every entry, garbage included, spaces removed, cut at its first `;`,
// ordered by weight then specificity.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const message = (asked: string) => ({ code: 'DBRST107', details: null, hint: null, message: `None of these media types are available: ${asked}` });

t.test('unparseable and unknown Accept values are echoed in DBRST107', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'spread.sql')],
    config: { 'db-schemas': 'spread', 'db-anon-role': 'postgres' },
  });
  const cases: Array<[string, string]> = [
    [';;;', ''],
    ['text/', 'text/'],
    ['application/unknown', 'application/unknown'],
    ['undefined', 'undefined'],
    ['text/, foo', 'text/, foo'],
    ['text/, application/unknown;q=0.5, foo/bar; charset=x', 'foo/bar, text/, application/unknown'],
    ['text/ plain', 'text/plain'],
  ];
  for (const [accept, asked] of cases) {
    for (const path of ['/factories', '/']) {
      const res = await s.request(path, { headers: { Accept: accept } });
      t.equal(res.status, 406, `${path} Accept: ${accept} status`);
      t.equal(res.headers['content-type'], 'application/json; charset=utf-8', `${path} Accept: ${accept} content-type`);
      t.same(res.json(), message(asked), `${path} Accept: ${accept} body`);
    }
  }
  const ok = await s.request('/factories?id=eq.1', { headers: { Accept: 'text/, application/json' } });
  t.equal(ok.status, 200, 'a servable entry after garbage still wins');
  t.same(ok.json(), [{ id: 1, name: 'Factory A' }]);
});
