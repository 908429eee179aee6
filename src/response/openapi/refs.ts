// References between parts of an OpenAPI document. Pure.
//
// A `$ref` is a URI fragment holding a JSON Pointer (RFC 6901): `~` and `/` in a name are escaped
// as `~0` and `~1`, and characters a fragment cannot hold are percent-encoded (RFC 3986 §3.5), so a
// relation named `a/b` or `my table` still resolves. Plain names (`films`, `rowFilter.films.id`)
// read exactly as in PostgREST's document.

/** Characters a URI fragment may hold as they are (ASCII pchar, `/`, `?`); anything else non-ASCII too (IRI). */
const FRAGMENT_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?\u0080-\uffff]/;

function encodeFragment(s: string): string {
  let out = '';
  for (const ch of s) out += FRAGMENT_SAFE.test(ch) ? ch : [...Buffer.from(ch, 'utf8')].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');
  return out;
}

/** `#/<section…>/<name>` with the name escaped. */
export function pointerRef(...path: ReadonlyArray<string>): string {
  return '#/' + path.map((p) => encodeFragment(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
}

/**
 * OpenAPI 3.x component names must match `^[a-zA-Z0-9._-]+$`. A name that does is used as it is;
 * any other character becomes `_x<hex>_` (`my table` → `my_x20_table`), deterministic and readable.
 */
export function componentName(name: string): string {
  if (/^[a-zA-Z0-9._-]+$/.test(name)) return name;
  let out = '';
  for (const ch of name) out += /[a-zA-Z0-9._-]/.test(ch) ? ch : `_x${ch.codePointAt(0)!.toString(16)}_`;
  return out;
}
