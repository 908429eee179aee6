// A mounted request's parts → the function's arguments by name (engine spec §5), and the media-type
// checks around them: which `Accept` the mount can answer (406), which request body it takes (415).
// Values stay text (cast to the parameter's type in SQL; a bad value is PostgreSQL's 22P02, a 400);
// only a JSON body is checked here, so it gets the engine's DBRST102 rather than a cast error. Pure.
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { CallArgValue } from '../plan/call-plan.js';
import type { ContentType } from '../request/api-request.js';
import type { MediaRange } from '../request/types.js';
import { isXmlMedia, isXmlType as isXmlArgType, xmlBytesProblem, xmlRefused } from '../request/xml-guard.js';
import type { Binding } from './check.js';

export interface MountInput {
  readonly method: string;
  /** Path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** Query string pairs in order, decoded. */
  readonly query: ReadonlyArray<readonly [string, string]>;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: Readonly<Record<string, string>>;
  readonly body: Buffer | null;
  /** The media type chosen from the mount's `produces` (null when it has none). */
  readonly media: string | null;
}

const JSON_TYPES = new Set(['json', 'jsonb']);

export function bindArguments(bindings: ReadonlyArray<Binding>, input: MountInput): Result<Map<string, CallArgValue>> {
  const values = new Map<string, CallArgValue>();
  for (const b of bindings) {
    const v = sourceValue(b, input);
    if (v === undefined) {
      // Absent: the parameter's default, else NULL (the function decides what a missing part means).
      if (!b.hasDefault) values.set(b.name, null);
      continue;
    }
    if (b.source.kind === 'body' && JSON_TYPES.has(b.type) && !isJson(v as Buffer)) {
      return err(errors.DBRST102('Empty or invalid json', { details: 'The request body is not valid JSON' }));
    }
    values.set(b.name, b.source.kind === 'body' && b.type !== 'bytea' ? (v as Buffer).toString('utf8') : v);
  }
  return ok(values);
}

function sourceValue(b: Binding, input: MountInput): CallArgValue | undefined {
  const s = b.source;
  switch (s.kind) {
    case 'path':
      return input.params[s.name];
    case 'query': {
      if (b.list) {
        const all = input.query.filter(([k]) => k === s.name).map(([, v]) => v);
        return all.length === 0 ? undefined : all;
      }
      // The first occurrence wins (a later one is not an argument).
      return input.query.find(([k]) => k === s.name)?.[1];
    }
    case 'query-all':
      return queryJson(input.query);
    case 'header':
      return input.headers[s.name.toLowerCase()];
    case 'cookie':
      return input.cookies[s.name];
    case 'body':
      return input.body ?? undefined;
    case 'method':
      return input.method;
    case 'media':
      return input.media ?? undefined;
  }
}

/**
 * The whole query string as JSON text (`?a=1&b=2&b=3` → `{"a":"1","b":["2","3"]}`), keys in the order
 * of their first occurrence. JSON.stringify of an
 * object would put integer-like keys first (`?b=1&2=x` → `{"2":"x","b":"1"}`), losing the request's order.
 */
export function queryJson(pairs: ReadonlyArray<readonly [string, string]>): string {
  return `{${Array.from(queryMap(pairs), ([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

/** `?a=1&b=2&b=3` → `{"a": "1", "b": ["2", "3"]}`. */
export function queryObject(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string | string[]> {
  return Object.fromEntries(queryMap(pairs));
}

function queryMap(pairs: ReadonlyArray<readonly [string, string]>): Map<string, string | string[]> {
  const out = new Map<string, string | string[]>();
  for (const [k, v] of pairs) {
    const prev = out.get(k);
    out.set(k, prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]);
  }
  return out;
}

function isJson(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

// ---- media types ----------------------------------------------------------------------------------

const isJsonType = (t: ContentType) => (t.type === 'application' && t.subtype === 'json') || t.subtype.endsWith('+json');
const isXmlType = isXmlMedia;

function rangeMatches(range: string, t: ContentType): boolean {
  const [type, subtype] = range.split('/') as [string, string];
  return (type === '*' || type === t.type) && (subtype === '*' || subtype === t.subtype);
}

/**
 * Whether a request body of type `ct` may reach the mount. `consumes` (the mount's or group's) decides
 * when set; otherwise a body bound to a json/jsonb argument must be JSON (`application/json`, any
 * `+json`, or no Content-Type, as PostgREST assumes), an xml argument XML; text and bytea take any.
 */
export function checkBodyType(bindings: ReadonlyArray<Binding>, consumes: ReadonlyArray<string>, ct: ContentType | null, hasBody: boolean): Result<null> {
  const target = bindings.find((b) => b.source.kind === 'body');
  if (!target || !hasBody) return ok(null);
  let accepted: boolean;
  if (consumes.length > 0) accepted = ct !== null && consumes.some((c) => rangeMatches(c, ct));
  else if (JSON_TYPES.has(target.type)) accepted = ct === null || isJsonType(ct);
  else if (target.type === 'xml') accepted = ct !== null && isXmlType(ct);
  else accepted = true;
  if (accepted) return ok(null);
  const given = ct ? `${ct.type}/${ct.subtype}` : 'none';
  return err(errors.DBRST602(`Unsupported Content-Type: ${given}`, {
    details: consumes.length > 0 ? `This route takes ${consumes.join(', ')}` : null,
  }));
}

/**
 * A mounted body that is XML input is refused with a DTD before PostgreSQL parses it
 * (request/xml-guard.ts). XML input: a body bound to an xml argument, or one sent as XML (an XML
 * Content-Type) whatever its argument's type, since the function may parse text with xmlparse (a
 * log-in function taking text may), or one whose Content-Type could not be read (the function may read it more
 * leniently than we do). A json/jsonb argument's body is JSON (checked as such).
 */
export function checkBodyXml(bindings: ReadonlyArray<Binding>, ct: ContentType | null, ctHeader: string | undefined, body: Buffer | null): Result<null> {
  const target = bindings.find((b) => b.source.kind === 'body');
  if (!target || body === null || JSON_TYPES.has(target.type)) return ok(null);
  const xmlInput = isXmlArgType(target.type) || (ct !== null ? isXmlMedia(ct) : ctHeader !== undefined);
  if (!xmlInput) return ok(null);
  const problem = xmlBytesProblem(body);
  return problem === null ? ok(null) : err(xmlRefused('The request body', problem));
}

/**
 * `Accept` (sorted by q) against the media types a mount produces, in their order of preference: the
 * first range that one of them satisfies decides. A range matches exactly, by wildcard (`*\/*`,
 * `application/*`), or by structured suffix: `application/vnd.x.Thing+json` is served as
 * `application/json` and `…+xml` as `application/xml` or `text/xml` when those are offered (RFC 6839).
 * Returns the offer and the client's range that chose it.
 */
export function negotiateProduces(accept: ReadonlyArray<MediaRange>, produces: ReadonlyArray<string>): { offer: string; range: MediaRange } | null {
  for (const r of accept) {
    for (const offer of produces) {
      const [type, subtype] = offer.split('/') as [string, string];
      if ((r.type === '*' || r.type === type) && (r.subtype === '*' || r.subtype === subtype)) return { offer, range: r };
    }
    const suffix = r.subtype.lastIndexOf('+');
    if (suffix !== -1) {
      const structured = r.subtype.slice(suffix + 1);
      const offer = produces.find((o) => o === `application/${structured}` || (structured === 'xml' && o === 'text/xml'));
      if (offer) return { offer, range: r };
    }
    if ((r.type === 'text' || r.type === 'application') && r.subtype === 'xml') {
      const offer = produces.find((o) => o === 'application/xml' || o === 'text/xml');
      if (offer) return { offer, range: r };
    }
  }
  return null;
}
