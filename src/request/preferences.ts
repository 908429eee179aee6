// `Prefer` request headers (RFC 7240) → Preferences, as PostgREST's Preferences.fromHeaders reads them:
// the header may repeat and each value is a comma list; tokens match exactly (case-sensitive); the
// first occurrence of each preference wins; what we do not understand is kept in `invalid` so that
// `handling=strict` can refuse it (DBRST122). Pure; whether e.g. a timezone exists is decided later.
import type { Preferences } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The exact tokens PostgREST accepts, by the field they set. */
const TOKENS: ReadonlyArray<readonly [string, keyof Preferences, string]> = [
  ['return=minimal', 'return', 'minimal'],
  ['return=headers-only', 'return', 'headers-only'],
  ['return=representation', 'return', 'representation'],
  ['count=exact', 'count', 'exact'],
  ['count=planned', 'count', 'planned'],
  ['count=estimated', 'count', 'estimated'],
  ['resolution=merge-duplicates', 'resolution', 'merge-duplicates'],
  ['resolution=ignore-duplicates', 'resolution', 'ignore-duplicates'],
  ['missing=default', 'missing', 'default'],
  ['missing=null', 'missing', 'null'],
  ['handling=strict', 'handling', 'strict'],
  ['handling=lenient', 'handling', 'lenient'],
  ['tx=commit', 'tx', 'commit'],
  ['tx=rollback', 'tx', 'rollback'],
  ['params=single-object', 'params', 'single-object'],
];
const BY_TOKEN = new Map(TOKENS.map(([token, field, value]) => [token, { field, value }]));

/** `max-affected=` takes a non-negative integer; anything else is an invalid preference. */
function maxAffected(value: string): number | null {
  if (!/^[0-9]{1,15}$/.test(value)) return null;
  return Number(value);
}

/** No preference set. */
const BLANK: Omit<Preferences, 'invalid'> = {
  return: null,
  count: null,
  resolution: null,
  missing: null,
  handling: null,
  tx: null,
  maxAffected: null,
  params: null,
  timezone: null,
};
/** Most requests send no Prefer: one shared answer (frozen: nobody changes a request's preferences). */
const NONE: Preferences = Object.freeze({ ...BLANK, invalid: Object.freeze([]) as ReadonlyArray<string> });

export function parsePreferences(headerValues: ReadonlyArray<string>): Preferences {
  if (headerValues.length === 0) return NONE;
  const prefs: Mutable<Omit<Preferences, 'invalid'>> = { ...BLANK };
  const invalid: string[] = [];
  let timezoneSeen = false;
  for (const header of headerValues) {
    for (const raw of header.split(',')) {
      const token = raw.trim();
      // PostgREST would report an empty item (`a,,b`, a trailing comma) as an invalid preference;
      // it carries no request, so we skip it rather than fail `handling=strict` over punctuation.
      if (token === '') continue;
      const known = BY_TOKEN.get(token);
      if (known !== undefined) {
        const field = known.field as Exclude<keyof Preferences, 'invalid' | 'maxAffected'>;
        if (prefs[field] === null) (prefs as Record<string, unknown>)[field] = known.value;
        continue;
      }
      if (token.startsWith('timezone=')) {
        // Never invalid here (PostgREST checks the name against pg_timezone_names later); first wins.
        if (!timezoneSeen) {
          timezoneSeen = true;
          const tz = token.slice('timezone='.length).trim();
          prefs.timezone = tz === '' ? null : tz;
        }
        continue;
      }
      if (token.startsWith('max-affected=')) {
        const n = maxAffected(token.slice('max-affected='.length).trim());
        if (n !== null) {
          if (prefs.maxAffected === null) prefs.maxAffected = n;
          continue;
        }
      }
      invalid.push(token);
    }
  }
  return { ...prefs, invalid };
}
