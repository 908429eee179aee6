// negotiateMedia: Accept (parsed and sorted by parseAccept) against what a target offers, as
// PostgREST's Plan/Negotiate.hs, plus dbrest's second pass (type/*, +json, +xml).
import t from 'tap';
import type { MediaHandler } from '../../../src/catalog/types.js';
import { parseAccept } from '../../../src/request/media-type.js';
import { contentTypeOf, negotiateMedia, negotiateRead, NO_OFFERS, type MediaOffers } from '../../../src/response/negotiate.js';

const handler = (mediaType: string, name: string, relation: string | null, binary = false): MediaHandler => ({
  mediaType,
  binary,
  function: { schema: 'public', name },
  relation: relation === null ? null : { schema: 'public', name: relation },
  isAggregate: true,
});
const byType = (...hs: MediaHandler[]) => new Map(hs.map((h) => [h.mediaType, h]));

const twkb = handler('application/vnd.twkb', 'twkb_agg', 'lines', true);
const tsv = handler('text/tab-separated-values', 'tsv_agg', 'lines');
const someAny = handler('*/*', 'some_agg', 'lines', true);
const geo2 = handler('application/vnd.geo2+json', 'geo2_any', null);
const xmlAny = handler('application/xml', 'xml_any', null);
const html: MediaHandler = { mediaType: 'text/html', binary: false, function: { schema: 'public', name: 'page' }, relation: null, isAggregate: false };

const offers = (o: Partial<MediaOffers>): MediaOffers => ({ ...NO_OFFERS, ...o });

/** [media, contentType, handler function name] or [error code, status]. */
const pick = (accept: string | undefined, o: MediaOffers = NO_OFFERS, planEnabled = false) => {
  const r = negotiateMedia(parseAccept(accept), o, { planEnabled, ...(accept === undefined ? {} : { acceptHeader: accept }) });
  if (!r.ok) return [r.error.code, r.error.status];
  const n = r.value;
  return n.handler ? [n.media, n.contentType, n.handler.function.name] : n.raw ? [n.media, n.contentType, n.raw] : [n.media, n.contentType];
};

t.test('built-ins and vendored types, with PostgREST\'s Content-Type strings', async (t) => {
  const json = ['json', 'application/json; charset=utf-8'];
  t.strictSame(pick(undefined), json);
  t.strictSame(pick('*/*'), json);
  t.strictSame(pick('application/json'), json);
  t.strictSame(pick('application/*'), json);
  t.strictSame(pick('text/csv'), ['csv', 'text/csv; charset=utf-8']);
  t.strictSame(pick('application/vnd.pgrst.object+json'), ['object', 'application/vnd.pgrst.object+json; charset=utf-8']);
  t.strictSame(pick('application/vnd.pgrst.object'), ['object', 'application/vnd.pgrst.object+json; charset=utf-8']);
  t.strictSame(pick('application/vnd.pgrst.object+json;nulls=stripped'), ['object-stripped', 'application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8']);
  t.strictSame(pick('application/vnd.pgrst.array+json;nulls=stripped'), ['array-stripped', 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8']);
  t.strictSame(pick('application/vnd.pgrst.array;nulls=stripped'), ['array-stripped', 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8']);
  t.strictSame(pick('application/vnd.pgrst.array+json'), json, 'without nulls=stripped: plain JSON');
  t.strictSame(pick('application/vnd.pgrst.array+json;nulls=stripped;x=1'), json, 'nulls=stripped must be the only parameter');
  t.strictSame(pick('text/plain'), ['DBRST107', 406]);
  t.strictSame(pick('text/*'), ['csv', 'text/csv; charset=utf-8'], 'pass 2: text/* of rows is CSV');
  t.strictSame(pick('application/vnd.pgrst.plan+json'), ['DBRST107', 406], 'plans only when enabled');
  t.strictSame(pick('application/vnd.pgrst.plan+json', NO_OFFERS, true).slice(0, 1), ['plan']);
  t.strictSame(pick('text/plain, application/json'), json, 'the first acceptable (PostgREST #2170)');
});

t.test('a relation\'s aggregates, anyelement aggregates, overrides', async (t) => {
  const lines = offers({ own: byType(twkb, tsv), any: byType(geo2) });
  t.strictSame(pick('application/vnd.twkb', lines), ['handler', 'application/vnd.twkb', 'twkb_agg']);
  t.strictSame(pick('text/tab-separated-values', lines), ['handler', 'text/tab-separated-values', 'tsv_agg']);
  t.strictSame(pick('application/vnd.geo2+json', lines), ['handler', 'application/vnd.geo2+json', 'geo2_any']);
  t.strictSame(pick('*/*', lines), ['json', 'application/json; charset=utf-8'], '*/* is JSON unless the relation has a */* aggregate');
  t.strictSame(pick('application/vnd.twkb', offers({ any: byType(geo2) })), ['DBRST107', 406], 'not with another select (no own handlers)');
  const own = offers({ own: byType(handler('application/vnd.geo2+json', 'geo2_lines', 'lines')), any: byType(geo2) });
  t.strictSame(pick('application/vnd.geo2+json', own), ['handler', 'application/vnd.geo2+json', 'geo2_lines'], 'the relation\'s own wins');
  const ovJson = offers({ own: byType(handler('application/json', 'ov_json_agg', 'ov_json')) });
  t.strictSame(pick('application/json', ovJson), ['handler', 'application/json; charset=utf-8', 'ov_json_agg']);
  t.strictSame(pick('*/*', ovJson), ['json', 'application/json; charset=utf-8'], 'the override is looked up by its type only');
  const ovCsv = offers({ any: byType(handler('text/csv', 'csv_any', null)) });
  t.strictSame(pick('text/csv', ovCsv), ['handler', 'text/csv; charset=utf-8', 'csv_any'], 'anyelement overrides a built-in');
  const vendoredOverride = offers({ any: byType(handler('application/vnd.pgrst.object', 'obj_any', null)) });
  t.strictSame(pick('application/vnd.pgrst.object', vendoredOverride)[0], 'object', 'vendored types are never overridden');
});

t.test('a relation\'s */* aggregate answers anything but vendored types', async (t) => {
  const some = offers({ own: byType(someAny) });
  for (const a of ['*/*', 'magic/number', 'application/json', 'text/csv']) {
    t.strictSame(pick(a, some), ['handler', 'application/octet-stream', 'some_agg'], a);
  }
  t.strictSame(pick('application/vnd.pgrst.object+json', some)[0], 'object');
});

t.test('a function\'s own media type', async (t) => {
  const page = offers({ value: html, raw: 'other' });
  t.strictSame(pick('text/html', page), ['value', 'text/html', 'page']);
  t.strictSame(pick('*/*', page), ['value', 'text/html', 'page'], 'dbrest: */* admits it (PostgREST #3391)');
  t.strictSame(pick(undefined, page), ['value', 'text/html', 'page']);
  t.strictSame(pick('text/*', page), ['value', 'text/html', 'page']);
  t.strictSame(pick('application/json', page), ['json', 'application/json; charset=utf-8']);
  t.strictSame(pick('image/*', page), ['DBRST107', 406]);
  t.strictSame(pick('text/plain', page), ['raw', 'text/plain; charset=utf-8', 'text'], 'raw text of one value');
  const any: MediaHandler = { ...html, mediaType: '*/*', binary: true };
  for (const a of ['*/*', 'app/bingo', 'image/png']) {
    t.strictSame(pick(a, offers({ value: any })), ['value', 'application/octet-stream', 'page'], a);
  }
});

t.test('raw output of one column (dbrest; PostgREST ≤ v11)', async (t) => {
  const one = offers({ raw: 'other' });
  t.strictSame(pick('text/plain', one), ['raw', 'text/plain; charset=utf-8', 'text']);
  t.strictSame(pick('application/octet-stream', one), ['raw', 'application/octet-stream', 'binary']);
  t.strictSame(pick('text/xml', one), ['DBRST107', 406]);
  t.strictSame(pick('text/xml', offers({ raw: 'xml' })), ['raw', 'text/xml; charset=utf-8', 'xml']);
  t.strictSame(pick('application/octet-stream'), ['DBRST107', 406], 'not without one column');
});

t.test('pass 2: suffixes and type/*, only when nothing matched exactly', async (t) => {
  t.strictSame(pick('application/vnd.cms.bookmark+json'), ['json', 'application/vnd.cms.bookmark+json; charset=utf-8']);
  const withXml = offers({ any: byType(xmlAny, geo2) });
  t.strictSame(pick('application/vnd.cms.bookmark+xml', withXml), ['handler', 'application/vnd.cms.bookmark+xml', 'xml_any']);
  t.strictSame(pick('application/vnd.cms.bookmark+xml'), ['DBRST107', 406]);
  t.strictSame(pick('text/xml', withXml), ['handler', 'text/xml', 'xml_any'], 'text/xml by an application/xml handler');
  t.strictSame(pick('application/xml', offers({ raw: 'xml' })), ['raw', 'application/xml', 'xml'], 'application/xml: one xml value');
  t.strictSame(pick('application/vnd.x+json, application/vnd.geo2+json;q=0.1', withXml)[2], 'geo2_any', 'an exact match later in the list wins');
  t.strictSame(pick('application/vnd.pgrst.plan+json'), ['DBRST107', 406], 'vendored types never fall back');
  const lines = offers({ own: byType(twkb, tsv) });
  t.strictSame(pick('text/*', lines), ['handler', 'text/tab-separated-values', 'tsv_agg']);
  t.strictSame(pick('application/*', lines), ['json', 'application/json; charset=utf-8'], 'application/* is JSON in pass 1');
});

t.test('406 messages name what was asked', async (t) => {
  const r = negotiateMedia(parseAccept('text/plain, image/png;q=0.5'), NO_OFFERS);
  t.equal(!r.ok && r.error.message, 'None of these media types are available: text/plain, image/png');
  const junk = negotiateMedia(parseAccept('undefined'), NO_OFFERS, { acceptHeader: 'undefined' });
  t.equal(!junk.ok && junk.error.message, 'None of these media types are available: undefined');
  t.same(negotiateRead(parseAccept('text/csv')), { ok: true, value: { media: 'csv', contentType: 'text/csv; charset=utf-8' } });
});

t.test('contentTypeOf: charset only on the types PostgREST knows', async (t) => {
  t.equal(contentTypeOf('*/*'), 'application/octet-stream');
  t.equal(contentTypeOf('application/octet-stream'), 'application/octet-stream');
  t.equal(contentTypeOf('text/plain'), 'text/plain; charset=utf-8');
  t.equal(contentTypeOf('text/xml'), 'text/xml; charset=utf-8');
  t.equal(contentTypeOf('application/geo+json'), 'application/geo+json; charset=utf-8');
  t.equal(contentTypeOf('text/html'), 'text/html');
  t.equal(contentTypeOf('application/xml'), 'application/xml');
  t.equal(contentTypeOf('image/png'), 'image/png');
});

t.test('parseAccept: equal q, the more specific first (wai parseHttpAccept)', async (t) => {
  const order = (a: string) => parseAccept(a).map((m) => `${m.type}/${m.subtype}`);
  t.strictSame(order('*/*, text/csv'), ['text/csv', '*/*']);
  t.strictSame(order('text/*, */*, text/csv'), ['text/csv', 'text/*', '*/*']);
  t.strictSame(order('application/json, application/vnd.pgrst.object+json;nulls=stripped'), ['application/vnd.pgrst.object+json', 'application/json']);
  t.strictSame(order('*/*;q=0.9, text/*;q=0.5'), ['*/*', 'text/*'], 'q first');
});
