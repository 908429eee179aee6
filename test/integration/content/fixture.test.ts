// Content API: the data served equals the shared demo fixture (../shared/fixtures/content-demo.json),
// which the example's own seed (examples/content/30-seed.sql) was converted from. Every visible page,
// image and document is fetched through its detail view and compared field by field with the
// fixture; the hidden ones are 404.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { FIXTURE_PATH, startContentServer, getJson } from './content-server.js';

t.test('content API serves the demo fixture', async (t) => {
  const s = await startContentServer(t);
  const fx = JSON.parse(readFileSync(FIXTURE_PATH, 'utf8'));
  const base = fx.settings.api_base_url as string;
  const pages = new Map<number, any>(fx.pages.map((p: any) => [p.id, p]));
  const images = new Map<number, any>(fx.images.map((i: any) => [i.id, i]));
  const documents = new Map<number, any>(fx.documents.map((d: any) => [d.id, d]));
  const restricted = new Set(fx.collections.filter((c: any) => c.restricted).map((c: any) => c.id));
  const types = new Map<string, Array<{ name: string; kind: string }>>(fx.page_types.map((pt: any) => [pt.type, pt.fields]));
  const byteSort = (a: string[]) => a.slice().sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));

  const sites: Array<{ host: string; visible: number[] }> = [
    { host: 'www.lumenfield.test', visible: [2, 3, 4, 5, 18, 6, 7, 8, 9, 11, 13, 14, 15, 20, 21, 22, 23] },
    { host: 'journal.harbourline.test', visible: [40, 41, 42, 43, 44, 46, 47] },
  ];
  t.equal(fx.sites.length, 2);
  for (const site of sites) {
    const listing = await getJson(s, '/api/v2/pages/?limit=20&fields=_,id', { Host: site.host });
    t.same(listing.body.items.map((i: any) => i.id), site.visible, `${site.host}: visible pages in tree order`);
    for (const id of site.visible) {
      const p = pages.get(id);
      const r = await getJson(s, `/api/v2/pages/${id}/?fields=*`, { Host: site.host });
      t.equal(r.status, 200, `page ${id}`);
      const b = r.body;
      t.equal(b.id, p.id);
      t.equal(b.title, p.title, `page ${id} title`);
      t.equal(b.meta.type, p.type);
      t.equal(b.meta.detail_url, `${base}/api/v2/pages/${id}/`);
      t.equal(b.meta.slug, p.slug);
      t.equal(b.meta.locale, p.locale);
      t.equal(b.meta.show_in_menus, p.show_in_menus);
      t.equal(b.meta.seo_title, p.seo_title);
      t.equal(b.meta.search_description, p.search_description);
      t.equal(b.meta.first_published_at, p.first_published_at);
      t.equal(b.meta.expires_at, p.expire_at);
      t.equal(b.meta.alias_of?.id ?? null, p.alias_of && site.visible.includes(p.alias_of) ? p.alias_of : null, `page ${id} alias_of`);
      t.equal(b.meta.parent?.id ?? null, p.parent && site.visible.includes(p.parent) ? p.parent : null, `page ${id} parent`);
      for (const f of types.get(p.type)!) {
        const v = p.fields[f.name] ?? null;
        if (f.kind === 'image') {
          const img = v === null ? null : images.get(v);
          t.equal(b[f.name]?.id ?? null, img && !restricted.has(img.collection) ? v : null, `page ${id} ${f.name}`);
        } else if (f.kind === 'document') {
          const doc = v === null ? null : documents.get(v);
          t.equal(b[f.name]?.id ?? null, doc && !restricted.has(doc.collection) ? v : null, `page ${id} ${f.name}`);
        } else {
          t.equal(b[f.name], v, `page ${id} ${f.name}`);
        }
      }
    }
  }
  for (const p of fx.pages) {
    const visible = sites.some((site) => site.visible.includes(p.id));
    if (!p.live || p.private || p.id === 1) {
      t.notOk(visible, `page ${p.id} is hidden`);
      t.equal((await getJson(s, `/api/v2/pages/${p.id}/`)).status, 404);
    }
  }

  const imgList = await getJson(s, '/api/v2/images/?fields=*');
  t.same(imgList.body.items.map((i: any) => i.id), fx.images.filter((i: any) => !restricted.has(i.collection)).map((i: any) => i.id));
  for (const img of fx.images) {
    const r = await getJson(s, `/api/v2/images/${img.id}/`);
    if (restricted.has(img.collection)) {
      t.equal(r.status, 404, `image ${img.id} is hidden`);
      continue;
    }
    t.strictSame(r.body, {
      id: img.id,
      meta: { type: 'wagtailimages.Image', detail_url: `${base}/api/v2/images/${img.id}/`, tags: byteSort(img.tags), download_url: fx.settings.media_url + img.file },
      title: img.title, width: img.width, height: img.height,
    }, `image ${img.id}`);
  }
  for (const doc of fx.documents) {
    const r = await getJson(s, `/api/v2/documents/${doc.id}/`);
    if (restricted.has(doc.collection)) {
      t.equal(r.status, 404, `document ${doc.id} is hidden`);
      continue;
    }
    t.strictSame(r.body, {
      id: doc.id,
      meta: { type: 'wagtaildocs.Document', detail_url: `${base}/api/v2/documents/${doc.id}/`, tags: byteSort(doc.tags), download_url: `${base}/documents/${doc.id}/${doc.file}` },
      title: doc.title,
    }, `document ${doc.id}`);
  }
});
