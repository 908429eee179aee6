// Content API: hostile sizes never reach a 5xx — deeply nested `fields` brackets (the parser keeps its
// own stack), search words longer than a tsvector lexeme, very long html_path and query strings.
import t from 'tap';
import { startContentServer, getJson } from './content-server.js';

t.test('content API: large and deep inputs', async (t) => {
  const s = await startContentServer(t);
  for (const n of [2, 200, 3000]) {
    const nested = await getJson(s, `/api/v2/pages/7/?fields=${'feed_image('.repeat(n)}id${')'.repeat(n)}`);
    t.equal(nested.status, 400, `${n} nested relations`);
    t.strictSame(nested.body, { message: 'unknown fields: feed_image' });
    const open = await getJson(s, `/api/v2/pages/?fields=${'a('.repeat(n)}`);
    t.strictSame(open.body, { message: 'fields error: unexpected end of input (did you miss out a close bracket?)' }, `${n} open brackets`);
    const closed = await getJson(s, `/api/v2/images/?fields=${'title('.repeat(n)}x${')'.repeat(n + 1)}`);
    t.strictSame(closed.body, { message: `fields error: unexpected char ')' at position ${n * 7 + 1}` }, `${n} brackets and one too many`);
  }
  t.strictSame((await getJson(s, '/api/v2/pages/7/?fields=feed_image(_,id),-title')).body.feed_image, { id: 2 }, 'a closed sub-list continues its parent list');
  const long = await getJson(s, `/api/v2/pages/?search=roses%20${'a'.repeat(5000)}`);
  t.strictSame(long.body, { meta: { total_count: 0 }, items: [] }, 'a word longer than any lexeme matches nothing');
  t.same((await getJson(s, `/api/v2/pages/?search=roses%20${'a'.repeat(5000)}&search_operator=or`)).body.items.map((i: any) => i.id), [18, 7]);
  t.same((await getJson(s, `/api/v2/pages/?search=${'word%20'.repeat(3000)}`)).body.meta.total_count, 0);
  t.equal((await getJson(s, `/api/v2/pages/find/?html_path=${'x/'.repeat(3000)}`)).status, 404);
  const many = Array.from({ length: 500 }, (_, i) => `p${i}=1`).join('&');
  const r = await getJson(s, `/api/v2/pages/?${many}`);
  t.equal(r.status, 400);
  t.ok(r.body.message.startsWith('query parameter is not an operation or a recognised field: p0, p1, p10, p100'));
});
