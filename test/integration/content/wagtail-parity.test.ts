// Content API, issue #28 items 14–21: where the spec was settled in Wagtail's favour (a real Wagtail
// 7.3.4 answers so over the demo fixture). Each block names the spec section it checks.
import t from 'tap';
import { startContentServer, getJson, ids } from './content-server.js';

const SITE_A = [2, 3, 4, 5, 18, 6, 7, 8, 9, 11, 13, 14, 15, 20, 21, 22, 23];
const SITE_B = [40, 41, 42, 43, 44, 46, 47];
const API = 'http://api.lumenfield.test/api/v2';

t.test('content API: Wagtail parity', async (t) => {
  const s = await startContentServer(t);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const err = async (t: any, p: string, status: number, message: string) => {
    const r = await getJson(s, p);
    t.equal(r.status, status, p);
    t.strictSame(r.body, { message }, p);
  };

  t.test('§5 the Host hostname without one trailing dot', async (t) => {
    t.same(await ids(s, '/api/v2/pages/?fields=_,id', { Host: 'journal.harbourline.test.' }), SITE_B);
    t.same(await ids(s, '/api/v2/pages/?fields=_,id', { Host: 'JOURNAL.harbourline.test.:80' }), SITE_B, 'with a port, any case');
    t.same(await ids(s, '/api/v2/pages/?fields=_,id', { Host: 'journal.harbourline.test..' }), SITE_A, 'two dots: no such site, the default');
    t.equal((await getJson(s, '/api/v2/pages/42/', { Host: 'journal.harbourline.test.' })).status, 200, 'detail');
    const find = await s.request('/api/v2/pages/find/?html_path=/dispatches/night-ferries/', { headers: { Host: 'journal.harbourline.test.' } });
    t.equal(find.headers.location, `${API}/pages/42/`, 'find');
  });

  t.test('§7.1 letters, digits and whitespace in fields are Unicode\'s', async (t) => {
    await err(t, `/api/v2/pages/?fields=${encodeURIComponent('été')}`, 400, 'unknown fields: été');
    await err(t, `/api/v2/pages/?fields=${encodeURIComponent('title,Москва,東京,Ωmega_2')}`, 400, 'unknown fields: Ωmega_2, Москва, 東京');
    await err(t, `/api/v2/pages/?fields=${encodeURIComponent('title,\u00a0id')}`, 400, 'fields error: unexpected whitespace at position 6');
    await err(t, `/api/v2/pages/?fields=${encodeURIComponent('title\u2003')}`, 400, 'fields error: unexpected whitespace at position 5');
    await err(t, `/api/v2/pages/?fields=${encodeURIComponent('ti€tle')}`, 400, "fields error: unexpected char '€' at position 2");
    await err(t, `/api/v2/pages/?fields=${encodeURIComponent('*é')}`, 400, "fields error: unexpected char 'é' at position 1");
    await err(t, `/api/v2/pages/?fields=${encodeURIComponent('é,-é(x)')}`, 400, "fields error: unexpected char '(' at position 4");
    await err(t, `/api/v2/pages/7/?fields=${encodeURIComponent('feed_image(wïdth)')}`, 400, 'unknown fields: wïdth');
  });

  t.test('§6.5 tags= (empty) is one empty tag name', async (t) => {
    t.same(await ids(s, '/api/v2/images/?tags='), []);
    t.same(await ids(s, '/api/v2/documents/?tags='), []);
    t.same(await ids(s, '/api/v2/images/?tags=harbour,'), [], 'an empty name after a comma too');
    t.same(await ids(s, '/api/v2/images/?tags=harbour'), [5, 6]);
    t.equal((await getJson(s, '/api/v2/images/?tags=')).body.meta.total_count, 0);
  });

  t.test('§6.9 search_operator in any letter case; empty is the default', async (t) => {
    const both = [2, 5, 8];
    const either = [2, 3, 4, 5, 6, 8];
    t.same(await ids(s, '/api/v2/pages/?search=kitchen%20garden&search_operator=AND'), both);
    t.same(await ids(s, '/api/v2/pages/?search=kitchen%20garden&search_operator=Or'), either);
    t.same(await ids(s, '/api/v2/pages/?search=kitchen%20garden&search_operator=OR'), either);
    t.same(await ids(s, '/api/v2/pages/?search=kitchen%20garden&search_operator='), both, 'empty: and');
    t.same(await ids(s, '/api/v2/images/?search=harbour%20night&search_operator=oR'), [5, 6, 7]);
    await err(t, '/api/v2/pages/?search=roses&search_operator=%20or', 400, "search_operator must be 'and' or 'or'");
  });

  t.test('§8.3 images and documents find keep every parameter but id, html_path included', async (t) => {
    const loc = async (p: string) => (await s.request(p)).headers.location;
    t.equal(await loc('/api/v2/images/find/?html_path=/x/&id=1'), `${API}/images/1/?html_path=%2Fx%2F`);
    t.equal(await loc('/api/v2/documents/find/?id=2&html_path=a&fields=_'), `${API}/documents/2/?html_path=a&fields=_`);
    t.equal(await loc('/api/v2/pages/find/?id=7&html_path=/nope/&fields=_'), `${API}/pages/7/?fields=_`, 'pages still drop html_path');
  });

  t.test('§4.4 order=locale orders by the locale\'s language code', async (t) => {
    const en = SITE_A.filter((id) => id < 20);
    const fr = [20, 21, 22, 23];
    t.same(await ids(s, '/api/v2/pages/?order=locale&fields=_,id'), [...en, ...fr]);
    t.same(await ids(s, '/api/v2/pages/?order=-locale&fields=_,id'), [...fr, ...en]);
    t.same(await ids(s, '/api/v2/pages/?order=-locale,-title&fields=_,id&limit=4'), [21, 23, 22, 20], 'then by title (byte order: À after T)');
    t.same(await ids(s, '/api/v2/pages/?type=blog.BlogPage&order=-locale'), [23, 18, 7, 8, 9, 11]);
    const off = await startContentServer(t, ['UPDATE content.settings SET i18n_enabled = false']);
    const r = await getJson(off, '/api/v2/pages/?order=locale');
    t.strictSame(r.body, { message: "cannot order by 'locale' (unknown field)" }, 'no locale field without i18n');
  });

  t.test('§6.3 several bad field filters: the first in the query string is reported', async (t) => {
    await err(t, '/api/v2/pages/?show_in_menus=x&id=y', 400, "field filter error. 'x' is not a valid value for show_in_menus (expected 'true' or 'false', got 'x')");
    await err(t, '/api/v2/pages/?id=y&show_in_menus=x', 400, "field filter error. 'y' is not a valid value for id (expected an integer)");
    await err(t, '/api/v2/pages/?type=blog.BlogPage&reading_time=a&date=b', 400, "field filter error. 'a' is not a valid value for reading_time (expected an integer)");
    await err(t, '/api/v2/pages/?type=blog.BlogPage&date=b&reading_time=a', 400, "field filter error. 'b' is not a valid value for date (expected a date, YYYY-MM-DD)");
    await err(t, '/api/v2/images/?height=h&width=w&id=i', 400, "field filter error. 'h' is not a valid value for height (expected an integer)");
    // a repeated name counts at its first place, with its last value
    await err(t, '/api/v2/images/?width=1&height=h&width=w', 400, "field filter error. 'w' is not a valid value for width (expected an integer)");
  });

  t.test('§11.16 strict integers on every endpoint: pages/find/?id=+7 is a 404', async (t) => {
    // (in a query string `+` is a space: `%2B` is the plus sign)
    for (const id of ['%2B7', '+7', '%2B07', '%207', '7%20', '07x', '%EF%BC%97']) {
      await err(t, `/api/v2/pages/find/?id=${id}`, 404, 'not found');
      await err(t, `/api/v2/images/find/?id=${id.replace('7', '3')}`, 404, 'not found');
    }
    t.equal((await s.request('/api/v2/pages/find/?id=007')).headers.location, `${API}/pages/7/`, 'leading zeros are digits');
  });
});
