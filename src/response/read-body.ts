// Shapes the JSON array text that PostgreSQL built into the negotiated representation. Pure.
import type { Buffer } from 'node:buffer';
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { ReadMedia } from './negotiate.js';

export function singularError(pageCount: number) {
  return errors.DBRST116('Cannot coerce the result to a single JSON object', {
    details: `The result contains ${pageCount} rows`,
  });
}

/** Drop null-valued keys, recursively (`nulls=stripped`). */
export function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = stripNulls(v);
    return out;
  }
  return value;
}

/** The single object of a one-element JSON array text, without re-parsing it. */
function unwrapSingle(arrayText: string): string {
  const trimmed = arrayText.trim();
  return trimmed.slice(1, -1).trim();
}

/**
 * The body is the text SQL built, sent as it is (not shaped here): it may come as the bytes
 * PostgreSQL sent (db/batch.ts's rawColumn), never decoded.
 */
export const sentAsBuilt = (media: ReadMedia): boolean => media !== 'object' && media !== 'object-stripped' && media !== 'array-stripped';

/** The body of `media` from the JSON array text SQL built (or its UTF-8 bytes: then sent as they are when sentAsBuilt). */
export function readBodyFor(media: ReadMedia, arrayText: string, pageCount: number): Result<string>;
export function readBodyFor(media: ReadMedia, arrayText: string | Buffer, pageCount: number): Result<string | Buffer>;
export function readBodyFor(media: ReadMedia, built: string | Buffer, pageCount: number): Result<string | Buffer> {
  if (typeof built !== 'string') return sentAsBuilt(media) ? ok(built) : shaped(media, built.toString('utf-8'), pageCount);
  return shaped(media, built, pageCount);
}

function shaped(media: ReadMedia, arrayText: string, pageCount: number): Result<string> {
  switch (media) {
    case 'json':
      return ok(arrayText);
    case 'object':
      return pageCount === 1 ? ok(unwrapSingle(arrayText)) : err(singularError(pageCount));
    case 'object-stripped':
      return pageCount === 1 ? ok(JSON.stringify(stripNulls(JSON.parse(arrayText)[0]))) : err(singularError(pageCount));
    case 'array-stripped':
      return ok(JSON.stringify(stripNulls(JSON.parse(arrayText))));
    case 'ndjson':
    case 'csv':
    case 'geojson':
      // Reads, calls and writes build these in SQL (sql/media.ts): the text is the body already.
      return ok(arrayText);
    case 'plan':
    // Handlers and raw output build their body in SQL (sql/media.ts); it is not shaped here.
    case 'handler':
    case 'value':
    case 'raw':
      return ok(arrayText);
  }
}
