// Content API, spec §8.2–§8.3: find for pages (html_path, id, translations, sites) and for images and
// documents — 302 with the Location rules (remaining parameters form-urlencoded, no bare '?'), or 404.
import t from 'tap';
import { startContentServer } from './content-server.js';

const API = 'http://api.lumenfield.test/api/v2';

t.test('content API: find', async (t) => {
  const s = await startContentServer(t);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const found = async (t: any, p: string, location: string, headers: Record<string, string> = {}) => {
    const r = await s.request(p, { headers });
    t.equal(r.status, 302, p);
    t.equal(r.headers['location'], location, p);
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const notFound = async (t: any, p: string, message = 'not found', headers: Record<string, string> = {}) => {
    const r = await s.request(p, { headers });
    t.equal(r.status, 404, p);
    t.strictSame(r.json(), { message }, p);
    t.notOk(r.headers['location'], p);
  };

  t.test('§8.2 pages by html_path', async (t) => {
    for (const [path, id] of [
      ['/journal/pruning-roses/', 7], ['journal/pruning-roses', 7], ['//journal//pruning-roses', 7], ['/fr/journal/', 22], ['/', 2], ['', 2],
      ['/fr/', 20], ['/fr/journal/tailler-les-rosiers/', 23], ['/about/rose-pruning-guide/', 18], ['/visit/opening-hours', 14],
    ] as Array<[string, number]>) {
      await found(t, `/api/v2/pages/find/?html_path=${encodeURIComponent(path)}`, `${API}/pages/${id}/`);
      await found(t, `/api/v2/pages/find?html_path=${encodeURIComponent(path)}`, `${API}/pages/${id}/`);
    }
    for (const path of ['/members/', '/members/newsletter/', '/journal/orchids-in-bloom/', '/nope/', '/journal/pruning-roses/nope/', '/dispatches/', '/fr/journal/economiser-les-graines/', '/en/', '/Journal/']) {
      await notFound(t, `/api/v2/pages/find/?html_path=${encodeURIComponent(path)}`);
    }
  });

  t.test('§8.2 sites: the Host, or site=', async (t) => {
    await found(t, '/api/v2/pages/find/?html_path=/dispatches/night-ferries/', `${API}/pages/42/`, { Host: 'journal.harbourline.test' });
    await found(t, '/api/v2/pages/find/?html_path=/', `${API}/pages/40/`, { Host: 'journal.harbourline.test' });
    await found(t, '/api/v2/pages/find/?html_path=/dispatches/night-ferries/&site=journal.harbourline.test', `${API}/pages/42/?site=journal.harbourline.test`);
    await notFound(t, '/api/v2/pages/find/?html_path=/journal/', 'not found', { Host: 'journal.harbourline.test' });
    await notFound(t, '/api/v2/pages/find/?id=7', 'not found', { Host: 'journal.harbourline.test' });
    await notFound(t, '/api/v2/pages/find/?html_path=/&site=nope', 'No Site matches the given query.');
  });

  t.test('§8.2 pages by id; html_path wins, then id', async (t) => {
    await found(t, '/api/v2/pages/find/?id=7', `${API}/pages/7/`);
    await found(t, '/api/v2/pages/find/?html_path=/journal/&id=7', `${API}/pages/6/`);
    await found(t, '/api/v2/pages/find/?html_path=/nope/&id=7', `${API}/pages/7/`);
    for (const q of ['id=abc', 'id=17', 'id=10', 'id=1', 'id=', 'id=99999999999999', '', 'fields=title', 'id=-7']) {
      await notFound(t, `/api/v2/pages/find/?${q}`);
    }
  });

  t.test('§8.2 Location: remaining parameters in order, form-urlencoded, never validated', async (t) => {
    await found(t, '/api/v2/pages/find/?html_path=/journal/&fields=_,id', `${API}/pages/6/?fields=_%2Cid`);
    await found(t, '/api/v2/pages/find/?fields=title&html_path=/journal/&limit=5', `${API}/pages/6/?fields=title&limit=5`);
    await found(t, '/api/v2/pages/find/?id=7&limit=abc&x=a%20b%2Bc%26d', `${API}/pages/7/?limit=abc&x=a+b%2Bc%26d`);
    await found(t, '/api/v2/pages/find/?id=7&q=%C3%A9', `${API}/pages/7/?q=%C3%A9`);
    // integer-like names keep their place (a JavaScript object would list them first)
    await found(t, '/api/v2/pages/find/?id=7&b=1&2=x&a=3&10=y', `${API}/pages/7/?b=1&2=x&a=3&10=y`);
    await found(t, '/api/v2/pages/find/?html_path=/journal/&z=1&1=2&0=3', `${API}/pages/6/?z=1&1=2&0=3`);
    // a repeated name: every value, in order, at its first occurrence (the query is bound as JSON
    // with one key per name)
    await found(t, '/api/v2/pages/find/?id=7&b=1&a=2&b=3', `${API}/pages/7/?b=1&b=3&a=2`);
    await found(t, '/api/v2/images/find/?9=a&id=1&fields=_', `${API}/images/1/?9=a&fields=_`);
    const head = await s.request('/api/v2/pages/find/?id=7', { method: 'HEAD' });
    t.equal(head.status, 302);
    t.equal(head.headers['location'], `${API}/pages/7/`);
    t.equal(head.text, '');
    const post = await s.request('/api/v2/pages/find/?id=7', { method: 'POST' });
    t.equal(post.status, 405);
    t.equal(post.headers['allow'], 'GET, HEAD');
  });

  t.test('§8.3 images and documents by id', async (t) => {
    await found(t, '/api/v2/images/find/?id=1', `${API}/images/1/`);
    await found(t, '/api/v2/images/find?id=9&fields=_,width', `${API}/images/9/?fields=_%2Cwidth`);
    await found(t, '/api/v2/documents/find/?id=2', `${API}/documents/2/`);
    await found(t, '/api/v2/documents/find?id=7', `${API}/documents/7/`);
    for (const q of ['id=8', 'id=x', 'id=', '', 'html_path=/', 'id=99']) await notFound(t, `/api/v2/images/find/?${q}`);
    for (const q of ['id=5', 'id=x', '', 'id=0']) await notFound(t, `/api/v2/documents/find/?${q}`);
    const head = await s.request('/api/v2/documents/find/?id=2', { method: 'HEAD' });
    t.equal(head.status, 302);
    t.equal(head.headers['location'], `${API}/documents/2/`);
  });
});
