// Content API fuzz: 6,000 generated query strings (seeded PRNG, bounded lengths, a few long values) against the listing,
// detail and find endpoints of pages, images and documents. Every answer must be 200, 302, 400 or
// 404; errors carry a JSON body with a string `message`; nothing is ever a 5xx.
import t from 'tap';
import { startContentServer } from './content-server.js';
import { prng } from '../../helpers/prng.js';

const NAMES = [
  'limit', 'offset', 'fields', 'order', 'search', 'search_operator', 'format', '_', 'type', 'child_of', 'ancestor_of',
  'descendant_of', 'translation_of', 'locale', 'site', 'id', 'title', 'slug', 'show_in_menus', 'seo_title',
  'search_description', 'first_published_at', 'expires_at', 'alias_of', 'date', 'intro', 'body', 'feed_image',
  'reading_time', 'hero_image', 'attachment', 'tags', 'width', 'height', 'html_path', 'parent', 'foo', '', 'a%00b', '%ZZ', 'fields[]',
];
const ATOMS = [
  '', '0', '1', '2', '6', '7', '17', '-1', '+3', '1.5', '99999999999999999999', 'root', 'true', 'false', 'True', 'abc',
  'blog.BlogPage', 'blog.blogpage', 'content.StandardPage,blog.BlogPage', 'wagtailcore.Page', 'wagtailimages.Image', 'x.y.z',
  'www.lumenfield.test', 'journal.harbourline.test:80', 'journal.harbourline.test:99', 'fr', 'en', 'de', 'and', 'or',
  'random', '-title', 'title,-id', 'random,id', 'tags', '2024-02-12', '2024-02-30', '2024-02-12T08:30:00Z', '2024-02-12T08:30:00%2B01:00',
  '*', '_', '*,-title', '_,id', 'feed_image(width,height)', 'feed_image(_,id', 'title,,id', 'parent(id)', '-*', 'id,*', '*,title',
  'roses', 'kitchen%20garden', '%C3%80%20propos', '%00', '%FF', '%E2%82%AC', '%F0%9F%8C%B9', '%', '%2', '%20', '+', '\'', '"', '\\', '%27%3B--',
  '/journal/pruning-roses/', '/fr/journal/', '/', '//', '..', '(', ')', ',', '-', '%0A', '%09',
];
const PATHS = [
  '/api/v2/pages/', '/api/v2/pages', '/api/v2/images/', '/api/v2/documents', '/api/v2/pages/7/', '/api/v2/pages/18',
  '/api/v2/pages/2/', '/api/v2/pages/17/', '/api/v2/images/1/', '/api/v2/images/8', '/api/v2/documents/2/', '/api/v2/documents/5/',
  '/api/v2/pages/find/', '/api/v2/images/find', '/api/v2/documents/find/', '/api/v2/pages/abc/', '/api/v2/pages/99999999999999999999/',
];
const HOSTS = [undefined, 'journal.harbourline.test', 'www.lumenfield.test:80', 'unknown.example:81'];

/** Every message the API may answer with (§9), plus the engine's own 404 and bad-encoding 400. */
const KNOWN: ReadonlyArray<RegExp> = [
  /^query parameter is not an operation or a recognised field: /, /^type doesn't exist$/, /^field filter error\. /,
  /^(child_of|descendant_of|ancestor_of|translation_of) must be a positive integer$/,
  /^(parent|ancestor|descendant|translation_of) page doesn't exist$/, /^filtering by descendant_of with child_of is not supported$/,
  /^No (Locale|Site|Page|Image|Document) matches the given query\.$/, /^Your query returned multiple sites\./,
  /^cannot order by '.*' \(unknown field\)$/s, /^random ordering (cannot be combined with other fields|with offset is not supported)$/,
  /^search_operator must be 'and' or 'or'$/, /^filtering by tag with a search query is not supported$/, /^search is disabled$/,
  /^(offset|limit) must be a positive integer$/, /^limit cannot be higher than 20$/, /^fields error: /, /^unknown fields: /,
  /^'.*' does not support nested fields$/s, /^not found$/, /^failed to parse the query string$/,
];

function generate(rand: () => number, n: number): Array<{ path: string; host: string | undefined }> {
  const pick = <T,>(a: ReadonlyArray<T>): T => a[Math.floor(rand() * a.length)]!;
  const value = (): string => {
    // now and then a long value: one atom repeated (deep brackets, long words, many items)
    if (rand() < 0.04) return pick(['a(', 'feed_image(', ')', 'a', 'x,', '-', 'word%20', '%C3%A9', '/x', '1']).repeat(50 + Math.floor(rand() * 300));
    const parts = 1 + Math.floor(rand() * 3);
    let v = '';
    for (let i = 0; i < parts; i++) {
      if (rand() < 0.15) v += String.fromCharCode(33 + Math.floor(rand() * 94)).replace(/[&#%+]/g, '');
      else v += pick(ATOMS);
      if (i < parts - 1 && rand() < 0.5) v += pick([',', '', '-', '(', ')', ' ']);
    }
    return v.slice(0, 120);
  };
  const out: Array<{ path: string; host: string | undefined }> = [];
  for (let i = 0; i < n; i++) {
    const count = Math.floor(rand() * 5);
    const params: string[] = [];
    for (let j = 0; j < count; j++) params.push(rand() < 0.1 ? pick(NAMES) : `${pick(NAMES)}=${value()}`);
    const path = pick(PATHS);
    // find is only interesting with an id or html_path that may exist
    if (path.includes('/find') && rand() < 0.5) params.splice(Math.floor(rand() * (params.length + 1)), 0, `id=${pick(['1', '2', '7', '9'])}`);
    out.push({ path: `${path}${params.length > 0 || rand() < 0.3 ? '?' : ''}${params.join('&')}`, host: rand() < 0.2 ? pick(HOSTS) : undefined });
  }
  return out;
}

t.test('content API fuzz: 6,000 query strings, never a 5xx', async (t) => {
  const s = await startContentServer(t);
  const cases = generate(prng(20261123), 6000);
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const res = await s.request(c.path, { headers: c.host ? { Host: c.host } : {} });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      let problem: string | null = null;
      if (![200, 302, 400, 404].includes(res.status)) problem = `status ${res.status}`;
      else if (res.status === 200) {
        try {
          const body = JSON.parse(res.text);
          if (typeof body !== 'object' || body === null) problem = 'a 200 without a JSON object';
        } catch {
          problem = 'a 200 without JSON';
        }
      } else if (res.status === 302) {
        if (!res.headers['location']?.startsWith('http://api.lumenfield.test/api/v2/')) problem = `a 302 to ${res.headers['location']}`;
      } else {
        try {
          const body = JSON.parse(res.text);
          if (typeof body.message !== 'string') problem = 'an error without a string message';
          else if (!KNOWN.some((re) => re.test(body.message))) problem = `an unexpected message`;
        } catch {
          problem = 'an error without a JSON body';
        }
        if (!/^application\/json/.test(res.headers['content-type'] ?? '')) problem = `an error as ${res.headers['content-type']}`;
      }
      if (problem) failures.push(`${c.host ?? '-'} ${c.path}: ${problem} ${res.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  t.same(failures.slice(0, 20), [], 'every answer is 200/302/400/404 with a JSON message on errors');
  t.equal(failures.length, 0);
  t.ok((statuses.get(200) ?? 0) > 500, `a fair share of successes (${JSON.stringify([...statuses])})`);
  t.ok((statuses.get(400) ?? 0) > 500, 'and of 400s');
  t.ok((statuses.get(404) ?? 0) > 100, 'and of 404s');
  t.ok((statuses.get(302) ?? 0) > 10, 'and of 302s');
});
