// Raw output (text/plain, application/octet-stream, text/xml of one column or one value: PostgREST
// ≤ v11's rules, kept by dbrest where PostgREST v12+ answers 406), structured-suffix and `type/*`
// fallbacks (dbrest: only where PostgREST answers 406), Accept ordering, and raw request bodies.
import t from 'tap';
import { accept, startMediaServer } from './media-server.js';

const PNG_A = Buffer.from('89504e470d0a1a0a00ff', 'hex');
const PNG_B = Buffer.from('89504e470d0a1a0a01fe', 'hex');

t.test('raw output of one value or one column', async (t) => {
  const s = await startMediaServer(t);

  t.test('a scalar text result as text/plain', async (t) => {
    const r = await s.request('/rpc/plain_text', accept('text/plain'));
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    t.equal(r.text, 'plain ünïcode');
    t.equal(r.headers['content-range'], '0-0/*');
  });

  t.test('a scalar bytea result as application/octet-stream: the bytes themselves', async (t) => {
    const r = await s.request('/rpc/plain_bytes', accept('application/octet-stream'));
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'application/octet-stream');
    t.same(r.bytes, Buffer.from([0x00, 0xff, 0x10]));
    t.equal(r.headers['content-length'], '3');
    const text = await s.request('/rpc/plain_text', accept('application/octet-stream'));
    t.same(text.bytes, Buffer.from('plain ünïcode', 'utf8'), 'text as its UTF-8 bytes');
    const png = await s.request('/rpc/ret_image', accept('application/octet-stream'));
    t.same(png.bytes, PNG_A, 'a bytea domain too');
    t.equal(png.headers['content-type'], 'application/octet-stream');
  });

  t.test('a scalar xml result as text/xml; text is not xml', async (t) => {
    const r = await s.request('/rpc/plain_xml', accept('text/xml'));
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'text/xml; charset=utf-8');
    t.equal(r.text, '<plain/>');
    const app = await s.request('/rpc/plain_xml', accept('application/xml'));
    t.equal(app.headers['content-type'], 'application/xml', 'application/xml too (second pass)');
    t.equal(app.text, '<plain/>');
    const refused = await s.request('/rpc/plain_text', accept('text/xml'));
    t.equal(refused.status, 406);
    t.equal(refused.json().code, 'DBRST107');
  });

  t.test('GET /table?select=one column: the values concatenated', async (t) => {
    const img = await s.request('/images?select=img&name=in.(A.png,B.png)&order=name', accept('application/octet-stream'));
    t.equal(img.status, 200);
    t.equal(img.headers['content-type'], 'application/octet-stream');
    t.same(img.bytes, Buffer.concat([PNG_A, PNG_B]));
    t.equal(img.headers['content-range'], '0-1/*');
    const one = await s.request('/images?select=img&name=eq.B.png', accept('application/octet-stream'));
    t.same(one.bytes, PNG_B);
    const note = await s.request('/images?select=note&order=name.desc', accept('text/plain'));
    t.equal(note.headers['content-type'], 'text/plain; charset=utf-8');
    t.equal(note.text, 'secondfirst');
    const doc = await s.request('/images?select=doc&order=name', accept('text/xml'));
    t.equal(doc.headers['content-type'], 'text/xml; charset=utf-8');
    t.equal(doc.text, '<a/><b/>');
    const aliased = await s.request('/images?select=picture:img&name=eq.A.png', accept('application/octet-stream'));
    t.same(aliased.bytes, PNG_A, 'an alias names the one column');
    const none = await s.request('/images?select=img&name=eq.nothing', accept('application/octet-stream'));
    t.equal(none.status, 200);
    t.equal(none.text, '', 'no rows: an empty body');
  });

  t.test('a set-returning function with select=one column', async (t) => {
    const r = await s.request('/rpc/get_images?select=img', accept('application/octet-stream'));
    t.equal(r.status, 200);
    t.same(r.bytes, Buffer.concat([PNG_A, PNG_B]));
    const post = await s.request('/rpc/get_images?select=note', { method: 'POST', headers: { Accept: 'text/plain' } });
    t.equal(post.text, 'firstsecond');
  });

  t.test('more than one column (or the default select): 406', async (t) => {
    for (const path of ['/images?select=img,name', '/images', '/images?select=*', '/rpc/get_images']) {
      const r = await s.request(path, accept('application/octet-stream'));
      t.equal(r.status, 406, path);
      t.same(r.json(), { code: 'DBRST107', details: null, hint: null, message: 'None of these media types are available: application/octet-stream' });
    }
    t.equal((await s.request('/images?select=note', accept('text/plain, application/json'))).headers['content-type'], 'text/plain; charset=utf-8');
    t.equal((await s.request('/images?select=note,name', accept('text/plain, application/json'))).headers['content-type'], 'application/json; charset=utf-8', 'the next acceptable type');
  });

  t.test('HEAD: the Content-Type, no body', async (t) => {
    const r = await s.request('/images?select=img', accept('application/octet-stream', 'HEAD'));
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'application/octet-stream');
    t.equal(r.headers['content-range'], '0-1/*');
    t.equal(r.text, '');
  });
});

t.test('structured suffixes and type/* (dbrest; PostgREST answers these 406)', async (t) => {
  const s = await startMediaServer(t);

  t.test('…+json is served by the JSON representation, under the asked type', async (t) => {
    const r = await s.request('/projects?id=eq.1', accept('application/vnd.cms.project+json'));
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'application/vnd.cms.project+json; charset=utf-8');
    t.same(r.json(), [{ id: 1, name: 'Windows 7', client_id: 1 }]);
    const call = await s.request('/rpc/welcome', accept('application/vnd.x+json'));
    t.equal(call.text, '"Welcome to PostgREST"');
    const override = await s.request('/ov_json', accept('application/vnd.x+json'));
    t.equal(override.text, '{"overridden": "true"}', 'or by the relation\'s application/json handler');
    t.equal(override.headers['content-type'], 'application/vnd.x+json; charset=utf-8');
  });

  t.test('…+xml is served by an application/xml or text/xml handler', async (t) => {
    const r = await s.request('/projects?id=in.(1,2)&order=id', accept('application/vnd.cms.projects+xml'));
    t.equal(r.status, 200);
    t.equal(r.headers['content-type'], 'application/vnd.cms.projects+xml');
    t.equal(r.text, '<projects><project id="1">Windows 7</project><project id="2">Windows 10</project></projects>');
    const plain = await s.request('/projects?id=eq.3', accept('application/xml'));
    t.equal(plain.headers['content-type'], 'application/xml', 'the handler\'s own type by name');
    t.equal(plain.text, '<projects><project id="3">IOS</project></projects>');
    const xmltest = await s.request('/xmltest', accept('application/atom+xml'));
    t.equal(xmltest.text, '<myxml>foo</myxml>bar<foobar><baz/></foobar>', 'a text/xml handler');
    const value = await s.request('/rpc/bookmark_xml', accept('application/vnd.cms.bookmark+xml'));
    t.equal(value.status, 200);
    t.equal(value.headers['content-type'], 'application/vnd.cms.bookmark+xml');
    t.equal(value.text, '<bookmark id="1"/>');
    const raw = await s.request('/images?select=doc&order=name', accept('application/vnd.docs+xml'));
    t.equal(raw.text, '<a/><b/>', 'one xml column');
    const none = await s.request('/lines', accept('application/vnd.x+xml'));
    t.equal(none.status, 406, 'nothing xml for lines');
    t.equal(none.json().message, 'None of these media types are available: application/vnd.x+xml');
  });

  t.test('an exact match anywhere in the list comes before a suffix fallback', async (t) => {
    const r = await s.request('/lines', accept('application/vnd.cms.lines+json, application/vnd.geo2+json;q=0.5'));
    t.equal(r.headers['content-type'], 'application/vnd.geo2+json');
  });

  t.test('type/*', async (t) => {
    const app = await s.request('/projects?id=eq.1', accept('application/*'));
    t.equal(app.headers['content-type'], 'application/json; charset=utf-8', 'application/* is JSON');
    const tsv = await s.request('/projects?id=eq.1', accept('text/*'));
    t.equal(tsv.headers['content-type'], 'text/tab-separated-values', 'a handler of that type');
    const csv = await s.request('/shop_bles', accept('text/*'));
    t.equal(csv.headers['content-type'], 'text/csv; charset=utf-8', 'else CSV');
    t.equal(csv.text, 'id,name\n1,shop-1');
  });
});

t.test('Accept ordering', async (t) => {
  const s = await startMediaServer(t);
  t.equal((await s.request('/lines', accept('text/csv;q=0.5, application/vnd.twkb'))).headers['content-type'], 'application/vnd.twkb');
  t.equal((await s.request('/lines', accept('application/vnd.twkb;q=0.1, text/csv'))).headers['content-type'], 'text/csv; charset=utf-8');
  const specific = await s.request('/projects?id=eq.1', accept('*/*, text/tab-separated-values'));
  t.equal(specific.headers['content-type'], 'text/tab-separated-values', 'equal q: the more specific range first (PostgREST)');
  const stripped = await s.request('/projects?id=eq.5', accept('application/json, application/vnd.pgrst.array+json;nulls=stripped'));
  t.equal(stripped.headers['content-type'], 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8');
  t.same(stripped.json(), [{ id: 5, name: 'Orphan' }]);
  const array = await s.request('/projects?id=eq.5', accept('application/vnd.pgrst.array+json'));
  t.equal(array.headers['content-type'], 'application/json; charset=utf-8', 'vnd.pgrst.array without nulls=stripped is plain JSON');
  t.same(array.json(), [{ id: 5, name: 'Orphan', client_id: null }]);
  const bare = await s.request('/projects?id=eq.5', accept('application/vnd.pgrst.array;nulls=stripped'));
  t.equal(bare.headers['content-type'], 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8', 'without +json too');
  const object = await s.request('/projects?id=eq.5', accept('application/vnd.pgrst.object+json;nulls=stripped'));
  t.equal(object.headers['content-type'], 'application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8');
  t.same(object.json(), { id: 5, name: 'Orphan' });
});

t.test('raw request bodies for a single unnamed parameter', async (t) => {
  const s = await startMediaServer(t);
  const post = (fn: string, contentType: string, body: string | Buffer, acceptType?: string) =>
    s.request(`/rpc/${fn}`, { method: 'POST', headers: { 'Content-Type': contentType, ...(acceptType ? { Accept: acceptType } : {}) }, body });

  t.test('text/plain → text', async (t) => {
    const json = await post('echo_text', 'text/plain', 'héllo');
    t.equal(json.status, 200);
    t.equal(json.text, '"héllo"');
    const raw = await post('echo_text', 'text/plain; charset=utf-8', 'héllo', 'text/plain');
    t.equal(raw.headers['content-type'], 'text/plain; charset=utf-8');
    t.equal(raw.text, 'héllo');
  });

  t.test('application/octet-stream → bytea', async (t) => {
    const bytes = Buffer.from([0, 1, 2, 0xfe, 0xff]);
    const raw = await post('echo_bytes', 'application/octet-stream', bytes, 'application/octet-stream');
    t.equal(raw.status, 200);
    t.same(raw.bytes, bytes);
    const json = await post('echo_bytes', 'application/octet-stream', bytes);
    t.equal(json.text, '"\\\\x000102feff"', 'JSON: the bytea text form');
  });

  t.test('text/xml and application/xml → xml', async (t) => {
    for (const ct of ['text/xml', 'application/xml']) {
      const r = await post('echo_xml', ct, '<note><to>Ann</to></note>', 'text/xml');
      t.equal(r.status, 200, ct);
      t.equal(r.headers['content-type'], 'text/xml; charset=utf-8');
      t.equal(r.text, '<note><to>Ann</to></note>');
    }
    const bad = await post('echo_xml', 'text/xml', '<note>');
    t.equal(bad.status, 400, 'not well-formed: invalid XML content (2200N)');
  });
});
