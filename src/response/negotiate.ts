// Content negotiation (engine spec §6; PostgREST's Plan/Negotiate.hs): the client's Accept list
// (already sorted by q, then specificity) against what the target can produce. Pure: the answer is
// data (which representation, which handler, which Content-Type); sql/ builds the body from it.
//
// For each accepted range, in order, the first that something produces wins (PostgREST):
//   1. the vendored types, which no handler overrides: vnd.pgrst.object[+json][;nulls=stripped],
//      vnd.pgrst.array[+json][;nulls=stripped] (and vnd.pgrst.plan when db-plan-enabled);
//   2. with the default select only, the target's own handlers: a function's own media-type domain
//      (`returns "text/html"`), else the relation's aggregates — its `*/*` aggregate first, whatever
//      was asked, then the one for the asked type;
//   3. `anyelement` aggregates for the asked type (they override the built-ins);
//   4. the built-ins: JSON for `*/*` and application/json, CSV for text/csv, and (dbrest)
//      application/x-ndjson, one JSON object per line;
//   5. raw output of one column (dbrest, PostgREST ≤ v11's rules): text/plain, application/octet-
//      stream, and text/xml for an xml column.
// Only when no range finds anything, a second pass tries what PostgREST answers with 406 and dbrest
// serves: `type/*` against handlers, and structured suffixes — `application/vnd.x+json` by the JSON
// representation (or an application/json handler), `…+xml` (and application/xml, text/xml) by an
// application/xml or text/xml handler or one xml value; the Content-Type is then the asked type.
import type { MediaHandler } from '../catalog/types.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { MediaRange } from '../request/types.js';
import { acceptEntriesAsNamed, parseAccept } from '../request/media-type.js';

export type ReadMedia =
  | 'json'
  | 'object'
  | 'csv'
  /** application/geo+json: a FeatureCollection of the rows through PostGIS's ST_AsGeoJSON. */
  | 'geojson'
  /** application/x-ndjson: one JSON object per line (dbrest). */
  | 'ndjson'
  | 'array-stripped'
  | 'object-stripped'
  | 'plan'
  /** An aggregate handler renders the rows (`handler`). */
  | 'handler'
  /** The function's own result, a media-type domain, sent as it is (`handler` is its entry). */
  | 'value'
  /** One column's values, concatenated, sent as text or bytes (`raw`). */
  | 'raw';

/** How raw output is sent: text/plain, application/octet-stream, text/xml. */
export type RawOutput = 'text' | 'binary' | 'xml';

export type PlanOption = 'analyze' | 'verbose' | 'settings' | 'buffers' | 'wal';

/** `Accept: application/vnd.pgrst.plan+json; for="application/json"; options=analyze|buffers`. */
export interface PlanRequest {
  readonly format: 'json' | 'text';
  readonly options: ReadonlyArray<PlanOption>;
  /** The media type whose query is explained (`for=`, as PostgREST names it); json by default. */
  readonly forMedia: string;
  /** `for=` negotiated against the target: the statement explained is the one that media runs. */
  readonly target: Negotiated;
}

export interface Negotiated {
  readonly media: ReadMedia;
  /** Content-Type sent back (SQL may still replace it through `response.headers`). */
  readonly contentType: string;
  /** Set when media is 'plan'. */
  readonly plan?: PlanRequest;
  /** Set when media is 'handler' or 'value'. */
  readonly handler?: MediaHandler;
  /** Set when media is 'raw'. */
  readonly raw?: RawOutput;
}

/** What the target produces beyond the built-ins; built per request from schema-cache lookups. */
export interface MediaOffers {
  /**
   * The called function's own media type (a non-SETOF function returning a media-type domain),
   * or null. Only with the default select (PostgREST looks the target's handlers up only then).
   */
  readonly value: MediaHandler | null;
  /** Aggregates over the target relation's row type, by media type; empty unless the select is the default. */
  readonly own: ReadonlyMap<string, MediaHandler>;
  /** Aggregates over `anyelement`, by media type. */
  readonly any: ReadonlyMap<string, MediaHandler>;
  /** The result is one column (raw output possible): 'xml' for an xml column, else 'other'. */
  readonly raw: 'xml' | 'other' | null;
}

const NONE: ReadonlyMap<string, MediaHandler> = new Map();
export const NO_OFFERS: MediaOffers = { value: null, own: NONE, any: NONE, raw: null };

const JSON_CT = 'application/json; charset=utf-8';
const JSON_MEDIA: Negotiated = { media: 'json', contentType: JSON_CT };
const CSV_MEDIA: Negotiated = { media: 'csv', contentType: 'text/csv; charset=utf-8' };
const GEOJSON_MEDIA: Negotiated = { media: 'geojson', contentType: 'application/geo+json; charset=utf-8' };
const NDJSON_MEDIA: Negotiated = { media: 'ndjson', contentType: 'application/x-ndjson; charset=utf-8' };
const OBJECT_MEDIA: Negotiated = { media: 'object', contentType: 'application/vnd.pgrst.object+json; charset=utf-8' };
// PostgREST's exact strings (MediaType.toMime): no space before `nulls=stripped`.
const OBJECT_STRIPPED_MEDIA: Negotiated = { media: 'object-stripped', contentType: 'application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8' };
const ARRAY_STRIPPED_MEDIA: Negotiated = { media: 'array-stripped', contentType: 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8' };
const RAW_TEXT: Negotiated = { media: 'raw', raw: 'text', contentType: 'text/plain; charset=utf-8' };
const RAW_BINARY: Negotiated = { media: 'raw', raw: 'binary', contentType: 'application/octet-stream' };
const RAW_XML: Negotiated = { media: 'raw', raw: 'xml', contentType: 'text/xml; charset=utf-8' };

/**
 * The Content-Type of a handler's media type, as PostgREST's toContentType: the types it knows get
 * `; charset=utf-8` (octet-stream excepted); any other type is sent as named; a `*\/*` handler's
 * output is `application/octet-stream` unless SQL sets a Content-Type.
 */
export function contentTypeOf(mediaType: string): string {
  switch (mediaType) {
    case '*/*':
    case 'application/octet-stream':
      return 'application/octet-stream';
    case 'application/json':
    case 'application/geo+json':
    case 'text/csv':
    case 'text/plain':
    case 'text/xml':
    case 'application/openapi+json':
    case 'application/x-www-form-urlencoded':
      return `${mediaType}; charset=utf-8`;
    default:
      return mediaType;
  }
}


const PLAN_OPTION_ORDER: ReadonlyArray<PlanOption> = ['analyze', 'verbose', 'settings', 'buffers', 'wal'];

function planRequest(range: MediaRange, offers: MediaOffers): Negotiated | null {
  const format = range.subtype === 'vnd.pgrst.plan+json' ? 'json' : range.subtype === 'vnd.pgrst.plan+text' || range.subtype === 'vnd.pgrst.plan' ? 'text' : null;
  if (range.type !== 'application' || format === null) return null;
  const forValue = (range.params['for'] ?? 'application/json').replace(/^"|"$/g, '');
  const forRange = parseAccept(forValue)[0];
  // The planned media as if it had been asked for; one the target cannot answer is not a plan it has.
  const target = forRange === undefined ? null : match(forRange, offers, false) ?? fallback(forRange, offers);
  if (target === null || forRange === undefined) return null;
  const forMedia = forMime(forRange, forValue);
  const asked = (range.params['options'] ?? '').split('|');
  // PostgREST's Content-Type (MediaType.toMime): `for` always, options in its own order when any.
  const options = PLAN_OPTION_ORDER.filter((o) => asked.includes(o));
  const optionsPart = options.length === 0 ? '' : `; options=${options.join('|')}`;
  return {
    media: 'plan',
    contentType: `application/vnd.pgrst.plan+${format}; for="${forMedia}"${optionsPart}; charset=utf-8`,
    plan: { format, options, forMedia, target },
  };
}

/**
 * How PostgREST names the planned media in `for="…"` (decodeMediaType, then toMime): the types it
 * knows in their canonical spelling, any other as it was written.
 */
function forMime(range: MediaRange, written: string): string {
  const stripped = range.params['nulls'] === 'stripped';
  switch (`${range.type}/${range.subtype}`) {
    case 'application/json': case 'application/geo+json': case 'text/csv': case 'text/plain': case 'text/xml':
    case 'application/openapi+json': case 'application/x-www-form-urlencoded': case 'application/octet-stream': case '*/*':
      return `${range.type}/${range.subtype}`;
    case 'application/vnd.pgrst.object': case 'application/vnd.pgrst.object+json':
      return `application/vnd.pgrst.object+json${stripped ? ';nulls=stripped' : ''}`;
    case 'application/vnd.pgrst.array': case 'application/vnd.pgrst.array+json':
      return stripped ? 'application/vnd.pgrst.array+json;nulls=stripped' : 'application/json';
    default:
      return written;
  }
}

/** PostgREST decodes `nulls=stripped` only as the one parameter (`checkSingularNullStrip`). */
const onlyNullsStripped = (range: MediaRange): boolean => {
  if (range.params['nulls'] !== 'stripped') return false;
  for (const k in range.params) if (k !== 'nulls') return false;
  return true;
};

function vendored(range: MediaRange): Negotiated | null {
  switch (range.subtype) {
    case 'vnd.pgrst.object+json':
    case 'vnd.pgrst.object':
      return onlyNullsStripped(range) ? OBJECT_STRIPPED_MEDIA : OBJECT_MEDIA;
    case 'vnd.pgrst.array+json':
    case 'vnd.pgrst.array':
      // Without nulls=stripped it is plain JSON, answered as application/json (PostgREST).
      return onlyNullsStripped(range) ? ARRAY_STRIPPED_MEDIA : JSON_MEDIA;
    default:
      return null;
  }
}

const handlerMedia = (h: MediaHandler, contentType = contentTypeOf(h.mediaType)): Negotiated => ({ media: 'handler', contentType, handler: h });
const valueMedia = (h: MediaHandler, contentType = contentTypeOf(h.mediaType)): Negotiated => ({ media: 'value', contentType, handler: h });

const typeOf = (mediaType: string): string => mediaType.slice(0, mediaType.indexOf('/'));

/** Pass 1: PostgREST's matching of one range. */
function match(range: MediaRange, offers: MediaOffers, planEnabled: boolean): Negotiated | null {
  const anyType = range.type === '*';
  const anySubtype = range.subtype === '*';
  if (range.type === 'application') {
    if (planEnabled) {
      const plan = planRequest(range, offers);
      if (plan) return plan;
    }
    const v = vendored(range);
    if (v) return v;
  }
  const value = offers.value;
  // Handlers are looked up by the asked type's name; a target without any (the common case) skips
  // building it.
  if (value !== null || offers.own.size > 0 || offers.any.size > 0) {
    const mt = anyType ? '*/*' : `${range.type}/${range.subtype}`;
    if (value !== null) {
      // A function's own media type. PostgREST lets */* and type/* through only to JSON (its FIXME,
      // issue #3391: they should admit the domain); dbrest admits the domain.
      const vt = value.mediaType;
      if (vt === '*/*' || vt === mt || anyType || (anySubtype && typeOf(vt) === range.type)) return valueMedia(value);
    }
    const own = offers.own.get('*/*') ?? offers.own.get(mt);
    if (own !== undefined) return handlerMedia(own);
    const any = offers.any.get(mt);
    if (any !== undefined) return handlerMedia(any);
  }
  if (anyType || (range.type === 'application' && (anySubtype || range.subtype === 'json'))) return JSON_MEDIA;
  if (range.type === 'application' && range.subtype === 'x-ndjson') return NDJSON_MEDIA;
  // PostgREST's built-in (BuiltinAggGeoJson): built by PostGIS, so without it PostgreSQL's 42883.
  if (range.type === 'application' && range.subtype === 'geo+json') return GEOJSON_MEDIA;
  if (range.type === 'text') {
    if (range.subtype === 'csv') return CSV_MEDIA;
    if (offers.raw !== null && range.subtype === 'plain') return RAW_TEXT;
    if (offers.raw === 'xml' && range.subtype === 'xml') return RAW_XML;
  } else if (offers.raw !== null && range.type === 'application' && range.subtype === 'octet-stream') return RAW_BINARY;
  return null;
}

function firstOfType(handlers: ReadonlyMap<string, MediaHandler>, type: string): MediaHandler | undefined {
  for (const [mt, h] of handlers) if (mt !== '*/*' && typeOf(mt) === type) return h;
  return undefined;
}

/** Pass 2 (dbrest): `type/*` against handlers, and +json / +xml structured suffixes. */
function fallback(range: MediaRange, offers: MediaOffers): Negotiated | null {
  // PostgREST's own vendored types (vnd.pgrst.plan when not enabled) stay refused, and so does the
  // OpenAPI document's type anywhere but the root (PostgREST: 406, not JSON under that name).
  if (range.type === '*' || range.subtype.startsWith('vnd.pgrst.') || (range.type === 'application' && range.subtype === 'openapi+json')) return null;
  if (range.subtype === '*') {
    const h = firstOfType(offers.own, range.type) ?? firstOfType(offers.any, range.type);
    if (h) return handlerMedia(h);
    // text/* of rows: CSV (a function's own media type was matched, or refused, in pass 1).
    if (range.type === 'text' && offers.value === null) return CSV_MEDIA;
    return null;
  }
  const mt = `${range.type}/${range.subtype}`;
  if (range.subtype.endsWith('+json')) {
    const contentType = `${mt}; charset=utf-8`;
    if (offers.value?.mediaType === 'application/json') return valueMedia(offers.value, contentType);
    const h = offers.own.get('application/json') ?? offers.any.get('application/json');
    return h ? handlerMedia(h, contentType) : { media: 'json', contentType };
  }
  // …+xml, and application/xml or text/xml by the other XML type's handler (or one xml value).
  if (range.subtype.endsWith('+xml') || range.subtype === 'xml') {
    const vt = offers.value?.mediaType;
    if (offers.value && (vt === 'application/xml' || vt === 'text/xml')) return valueMedia(offers.value, mt);
    const h =
      offers.own.get('application/xml') ?? offers.own.get('text/xml') ?? offers.any.get('application/xml') ?? offers.any.get('text/xml');
    if (h) return handlerMedia(h, mt);
    if (offers.raw === 'xml') return { media: 'raw', raw: 'xml', contentType: mt };
  }
  return null;
}

export interface NegotiateOptions {
  readonly planEnabled?: boolean;
  /** The raw Accept header, named in the 406 message when none of it could be parsed. */
  readonly acceptHeader?: string;
}

/** The representation for `accept` (sorted, see parseAccept), or DBRST107 (406). */
export function negotiateMedia(accept: ReadonlyArray<MediaRange>, offers: MediaOffers, opts: NegotiateOptions = {}): Result<Negotiated> {
  const planEnabled = opts.planEnabled ?? false;
  for (const range of accept) {
    const hit = match(range, offers, planEnabled);
    if (hit !== null) return ok(hit);
  }
  for (const range of accept) {
    const hit = fallback(range, offers);
    if (hit !== null) return ok(hit);
  }
  return err(notAcceptable(accept, opts.acceptHeader));
}

/** Negotiation of a target without handlers (the built-ins and vendored types only). */
export function negotiateRead(accept: ReadonlyArray<MediaRange>, opts: NegotiateOptions = {}): Result<Negotiated> {
  return negotiateMedia(accept, NO_OFFERS, opts);
}

function notAcceptable(accept: ReadonlyArray<MediaRange>, header: string | undefined) {
  // PostgREST names every entry of the header as it read it, garbage included (`Accept: undefined`
  // → "undefined", `Accept: ;;;` → ""), not only the entries we could parse.
  const asked = header === undefined || header.trim() === '' ? accept.map((m) => `${m.type}/${m.subtype}`) : acceptEntriesAsNamed(header);
  return errors.DBRST107(`None of these media types are available: ${asked.join(', ')}`);
}
