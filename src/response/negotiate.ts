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

export type PlanOption = 'analyze' | 'verbose' | 'settings' | 'buffers' | 'wal';

/** `Accept: application/vnd.pgrst.plan+json; for="application/json"; options=analyze|buffers`. */
export interface PlanRequest {
  readonly format: 'json' | 'text';
  readonly options: ReadonlyArray<PlanOption>;
  /** The media type whose query is explained (`for=`); json by default. */
  readonly forMedia: string;
}

export interface Negotiated {
  readonly media: ReadMedia;
  readonly contentType: string;
  /** Set when media is 'plan'. */
  readonly plan?: PlanRequest;
}

const PLAN_OPTIONS = new Set<PlanOption>(['analyze', 'verbose', 'settings', 'buffers', 'wal']);

function planRequest(range: MediaRange): Negotiated | null {
  const format = range.subtype === 'vnd.pgrst.plan+json' ? 'json' : range.subtype === 'vnd.pgrst.plan+text' || range.subtype === 'vnd.pgrst.plan' ? 'text' : null;
  if (range.type !== 'application' || format === null) return null;
  const forMedia = (range.params['for'] ?? 'application/json').replace(/^"|"$/g, '');
  const options = (range.params['options'] ?? '').split('|').filter((o): o is PlanOption => PLAN_OPTIONS.has(o as PlanOption));
  return {
    media: 'plan',
    contentType: `application/vnd.pgrst.plan+${format}; for="${forMedia}"; charset=utf-8`,
    plan: { format, options, forMedia },
  };
}

export function negotiateRead(accept: ReadonlyArray<MediaRange>, opts: { readonly planEnabled?: boolean } = {}): Result<Negotiated> {
  for (const range of accept) {
    if (opts.planEnabled) {
      const plan = planRequest(range);
      if (plan) return ok(plan);
    }
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
