// `application/x-www-form-urlencoded` text (a query string, a form body) → name/value pairs, as
// URLSearchParams reads it — `+` is a space, a malformed `%` escape stays as it is, a name without
// `=` has the value '', empty items are skipped — except that percent-escapes which decode to bytes
// that are not UTF-8 (`%FF`, `%C3%28`) make the whole text invalid (null) instead of silently
// becoming U+FFFD: a filter value, an argument or a stored field would otherwise be other text
// than the client sent. Pure.
import { Buffer, isUtf8 } from 'node:buffer';

export function parseUrlEncoded(text: string): Array<readonly [string, string]> | null {
  const pairs: Array<readonly [string, string]> = [];
  for (const item of text.split('&')) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = decodeComponent(eq === -1 ? item : item.slice(0, eq));
    const value = decodeComponent(eq === -1 ? '' : item.slice(eq + 1));
    if (name === null || value === null) return null;
    pairs.push([name, value]);
  }
  return pairs;
}

/** Runs of well-formed escapes, decoded together: a multi-byte character spans several. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

function decodeComponent(s: string): string | null {
  const spaced = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!spaced.includes('%')) return spaced;
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of spaced.matchAll(ESCAPES)) {
    parts.push(Buffer.from(spaced.slice(last, m.index), 'utf8'), Buffer.from(m[0].replace(/%/g, ''), 'hex'));
    last = m.index + m[0].length;
  }
  parts.push(Buffer.from(spaced.slice(last), 'utf8'));
  const bytes = Buffer.concat(parts);
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}
