// Response header helpers. Pure.

/** Set a header, replacing any existing one of the same name in another case. */
export function setHeader(headers: Record<string, string | string[]>, name: string, value: string): void {
  for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
  put(headers, name, value);
}

/**
 * headers[name] = value, also for a name SQL may set that an assignment would not store: `__proto__`
 * (assigning a string to it changes nothing), which PostgREST sends as any other header.
 */
function put(headers: Record<string, string | string[]>, name: string, value: string | string[]): void {
  if (name === '__proto__') Object.defineProperty(headers, name, { value, writable: true, enumerable: true, configurable: true });
  else headers[name] = value;
}

/**
 * Apply the headers SQL set with `response.headers`: the first value of a name replaces ours (a
 * Content-Type from SQL wins); further values of the same name are added (several Set-Cookie).
 */
export function applyHeaders(headers: Record<string, string | string[]>, list: ReadonlyArray<readonly [string, string]>): void {
  const seen = new Map<string, string>(); // lower-case name → the key it was stored under
  for (const [name, value] of list) {
    const key = seen.get(name.toLowerCase());
    if (key === undefined) {
      setHeader(headers, name, value);
      seen.set(name.toLowerCase(), name);
    } else {
      const prev = headers[key]!;
      put(headers, key, Array.isArray(prev) ? [...prev, value] : [prev as string, value]);
    }
  }
}

/**
 * PostgREST's `Content-Location` of a read: `/<relation>` and the query string in canonical form —
 * parameters sorted by name (stably), each name and value percent-encoded except for
 * `A-Z a-z 0-9 - _ . ~` (QueryParams.qsCanonical; Query/QuerySpec.hs "Canonical location").
 */
export function canonicalLocation(relation: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  if (pairs.length === 0) return `/${relation}`;
  const sorted = [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `/${relation}?${sorted.map(([k, v]) => `${urlEncode(k)}=${urlEncode(v)}`).join('&')}`;
}

/** Network.HTTP.Base.urlEncode: UTF-8, every byte but the unreserved characters as %XX. */
const urlEncode = (s: string): string =>
  UNRESERVED.test(s) ? s : encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
/** Nothing to encode (most names and values: `id`, `eq.5`, `id.desc`): skip the encoder. */
const UNRESERVED = /^[A-Za-z0-9\-_.~]*$/;
