// Which document the root path answers with, from the Accept header. Pure.
//
// PostgREST answers `application/openapi+json`, `application/json` and `*/*` with its Swagger 2.0
// document, always as `application/openapi+json; charset=utf-8`, and anything else with 406. dbrest
// adds OpenAPI 3.1: asked for by the media type's `version` parameter (the parameter the
// application/openapi+json registration defines), or made the default by `openapi-version`.
import { acceptEntriesAsNamed } from '../../request/media-type.js';
import { errors } from '../../errors/catalog.js';
import { err, ok, type Result } from '../../errors/types.js';
import type { MediaRange } from '../../request/types.js';

export type OpenApiVersion = '2.0' | '3.1';

export interface NegotiatedDocument {
  readonly version: OpenApiVersion;
  readonly contentType: string;
}

/** PostgREST's exact header for the 2.0 document; the 3.1 one names its version. */
export const CONTENT_TYPES: Readonly<Record<OpenApiVersion, string>> = {
  '2.0': 'application/openapi+json; charset=utf-8',
  '3.1': 'application/openapi+json; version=3.1; charset=utf-8',
};

/** `3.1`, `3.1.0`, `2`, `2.0` → a served version; anything else is not available. */
function versionParam(v: string): OpenApiVersion | null {
  if (/^3\.1(\.\d+)?$/.test(v)) return '3.1';
  if (/^2(\.0)?$/.test(v)) return '2.0';
  return null;
}

/** `accept` is sorted by preference (request/media-type.ts): the first range served wins. */
export function negotiateOpenApi(accept: ReadonlyArray<MediaRange>, configured: OpenApiVersion, acceptHeader?: string): Result<NegotiatedDocument> {
  const pick = (version: OpenApiVersion) => ok({ version, contentType: CONTENT_TYPES[version] });
  for (const range of accept) {
    if (range.type === 'application' && range.subtype === 'openapi+json') {
      const asked = range.params['version'];
      if (asked === undefined) return pick(configured);
      const version = versionParam(asked);
      if (version !== null) return pick(version);
    } else if ((range.type === 'application' && range.subtype === 'json') || (range.type === '*' && range.subtype === '*')) {
      return pick(configured);
    }
  }
  // Every entry of the header as PostgREST names it, garbage included (response/negotiate.ts).
  const asked = (acceptHeader === undefined || acceptHeader.trim() === '' ? accept.map((m) => `${m.type}/${m.subtype}`) : acceptEntriesAsNamed(acceptHeader)).join(', ');
  return err(errors.DBRST107(`None of these media types are available: ${asked}`));
}
