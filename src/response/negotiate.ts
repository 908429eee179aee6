// Content negotiation: the first offered media type that the client's Accept list (already sorted by
// q) admits. Pure.
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { MediaRange } from '../request/types.js';

export type ReadMedia = 'json' | 'object' | 'csv' | 'array-stripped' | 'object-stripped' | 'plan';

interface Offer {
  readonly media: ReadMedia;
  readonly type: string;
  readonly subtype: string;
  /** Content-Type sent back. */
  readonly contentType: string;
  /** Only when the client asked for it by name (never via a wildcard). */
  readonly explicitOnly: boolean;
}

const READ_OFFERS: ReadonlyArray<Offer> = [
  { media: 'json', type: 'application', subtype: 'json', contentType: 'application/json; charset=utf-8', explicitOnly: false },
  { media: 'object', type: 'application', subtype: 'vnd.pgrst.object+json', contentType: 'application/vnd.pgrst.object+json; charset=utf-8', explicitOnly: true },
  { media: 'object', type: 'application', subtype: 'vnd.pgrst.object', contentType: 'application/vnd.pgrst.object+json; charset=utf-8', explicitOnly: true },
  { media: 'array-stripped', type: 'application', subtype: 'vnd.pgrst.array+json', contentType: 'application/vnd.pgrst.array+json; nulls=stripped; charset=utf-8', explicitOnly: true },
  { media: 'csv', type: 'text', subtype: 'csv', contentType: 'text/csv; charset=utf-8', explicitOnly: true },
];

export interface Negotiated {
  readonly media: ReadMedia;
  readonly contentType: string;
}

export function negotiateRead(accept: ReadonlyArray<MediaRange>): Result<Negotiated> {
  for (const range of accept) {
    for (const offer of READ_OFFERS) {
      const typeOk = range.type === '*' || range.type === offer.type;
      const subOk = range.subtype === '*' || range.subtype === offer.subtype;
      if (!typeOk || !subOk) continue;
      if (offer.explicitOnly && (range.type === '*' || range.subtype === '*')) continue;
      if (offer.media === 'array-stripped' && range.params['nulls'] !== 'stripped') {
        // `application/vnd.pgrst.array+json` without nulls=stripped is plain JSON.
        return ok({ media: 'json', contentType: 'application/vnd.pgrst.array+json; charset=utf-8' });
      }
      if (offer.media === 'object' && range.params['nulls'] === 'stripped') {
        return ok({ media: 'object-stripped', contentType: 'application/vnd.pgrst.object+json; nulls=stripped; charset=utf-8' });
      }
      return ok({ media: offer.media, contentType: offer.contentType });
    }
  }
  const asked = accept.map((m) => `${m.type}/${m.subtype}`).join(', ');
  return err(errors.DBRST107(`None of these media types are available: ${asked}`));
}
