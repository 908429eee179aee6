// XML from the network never reaches PostgreSQL's XML parser with a DTD (issue #26, finding 4): an
// internal entity referenced many times costs the backend seconds of CPU per request, and the
// libxml2 some builds bundle is old. Pure; the callers turn a refusal into DBRST608 (400).
//
// The rule is stricter than "no <!DOCTYPE in the prolog", so no spelling can slip past it: outside a
// DTD, well-formed XML has `<!` only to open a comment (`<!--`) or a CDATA section (`<![CDATA[`);
// attribute values and character data cannot hold a raw `<`. So every `<!` followed by anything
// else is refused, wherever it is: `<!DOCTYPE` after a BOM, the XML declaration, comments or
// processing instructions, in any letter case, and `<!ENTITY` anywhere. Comments are not skipped,
// so `<!-- … --><!DOCTYPE …>` cannot hide one; a `<!x` inside a comment or CDATA is refused too
// (conservative: such documents are rare, and telling them apart is what a DTD parser would do).
import { errors } from '../errors/catalog.js';
import type { ApiError } from '../errors/types.js';
import type { ContentType } from './api-request.js';

const COMMENT = '--';
const CDATA = '[CDATA[';

/** Why this XML text is refused, or null when it has no DTD nor any other declaration. */
export function xmlDeclarationProblem(text: string): string | null {
  for (let i = text.indexOf('<!'); i !== -1; i = text.indexOf('<!', i + 2)) {
    if (text.startsWith(COMMENT, i + 2) || text.startsWith(CDATA, i + 2)) continue;
    const word = /^[A-Za-z]*/.exec(text.slice(i + 2, i + 12))![0].toUpperCase();
    return word === 'DOCTYPE' ? 'It has a document type declaration (<!DOCTYPE …>)'
      : word === 'ENTITY' ? 'It declares an entity (<!ENTITY …>)'
      : `It has a markup declaration (<!${word || '…'})`;
  }
  return null;
}

/**
 * The same for a body still in bytes: UTF-8 is read as text; a body that looks like UTF-16 or
 * UTF-32 (a BOM of theirs, or NUL bytes) is refused, since its `<!` would not be seen as bytes.
 */
export function xmlBytesProblem(body: Buffer): string | null {
  if (body.length >= 2 && ((body[0] === 0xfe && body[1] === 0xff) || (body[0] === 0xff && body[1] === 0xfe))) {
    return 'It is not UTF-8 (a UTF-16 or UTF-32 byte order mark)';
  }
  if (body.includes(0)) return 'It is not UTF-8 text (it has NUL bytes)';
  return xmlDeclarationProblem(body.toString('utf8'));
}

/** A value bound to xml: text, bytes, or a list of them (VARIADIC, xml[] from a JSON array). */
export function xmlValueProblem(v: unknown): string | null {
  if (typeof v === 'string') return xmlDeclarationProblem(v);
  if (Buffer.isBuffer(v)) return xmlBytesProblem(v);
  if (Array.isArray(v)) {
    for (const e of v) {
      const problem = xmlValueProblem(e);
      if (problem !== null) return problem;
    }
  }
  return null;
}

/**
 * The values of `keys` in a JSON object or array of objects, as PostgreSQL will read them (JSON
 * escapes decoded: `\u003c!DOCTYPE` is `<!DOCTYPE`). Invalid JSON is left to PostgreSQL, which
 * refuses it before any value is cast to xml.
 */
export function jsonXmlProblem(text: string, keys: ReadonlyArray<string>): { key: string; problem: string } | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  for (const row of Array.isArray(doc) ? doc : [doc]) {
    if (typeof row !== 'object' || row === null) continue;
    for (const key of keys) {
      const problem = xmlValueProblem((row as Record<string, unknown>)[key]);
      if (problem !== null) return { key, problem };
    }
  }
  return null;
}

/** The 400 for XML input with a DTD; `what` names the input (`The request body`, `Argument doc`). */
export function xmlRefused(what: string, problem: string): ApiError {
  return errors.DBRST608(`${what} is XML with a DTD or another markup declaration, which is not accepted`, {
    details: problem,
    hint: 'Send the document without <!DOCTYPE …> and without entity declarations',
  });
}

/** An XML media type: application/xml, text/xml, or any `+xml` (RFC 7303). */
export function isXmlMedia(t: ContentType): boolean {
  return ((t.type === 'application' || t.type === 'text') && t.subtype === 'xml') || t.subtype.endsWith('+xml');
}

/** PostgreSQL types that parse their text as XML: xml and arrays of it (element type `xml`). */
export function isXmlType(type: string): boolean {
  const t = type.replace(/^pg_catalog\./, '').replace(/(\[\])+$/, '');
  return t === 'xml';
}
