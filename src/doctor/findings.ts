// What `dbrest doctor` reports: findings with a level and the SQL (or setting) that fixes each, and
// the checks that need no database (the configuration's). Pure.
import type { AppConfig } from '../config/types.js';

/** error: a hole or a risk of losing data; warn: a likely mistake; info: worth knowing, not a problem. */
export type Level = 'error' | 'warn' | 'info';

export interface Finding {
  readonly level: Level;
  /** Stable name of the check (for --json consumers and tests). */
  readonly check: string;
  /** What it is about: a role, a relation, a function, a setting. */
  readonly subject: string;
  readonly message: string;
  /** The SQL (or configuration) that fixes it. */
  readonly fix: string;
}

/** A problem is anything above info: doctor exits 1 when it finds one. */
export const isProblem = (f: Finding): boolean => f.level !== 'info';

/**
 * JWT secrets published in documentation and examples (PostgREST's tutorial, Supabase's local
 * default, and the look-alikes copied from them): anyone can sign tokens with them.
 */
export const PUBLIC_JWT_SECRETS: ReadonlyArray<string> = [
  'reallyreallyreallyreallyverysafe',
  'super-secret-jwt-token-with-at-least-32-characters-long',
  'your-super-secret-jwt-token-with-at-least-32-characters-long',
  'secret-with-at-least-32-characters-long',
];

/** 48 random base64 bytes have ~40 distinct characters; a typed pattern (aaaa…, abcabc…) has a handful. */
const MIN_DISTINCT = 10;

const GENERATE = 'jwt-secret = "@/path/to/secret"  -- a file holding e.g. the output of: openssl rand -base64 48';

export function configFindings(config: AppConfig): Finding[] {
  const out: Finding[] = [];
  const secret = config.jwtSecret;
  // A JWK/JWKS is a key, not a password; config validation already refuses secrets under 32 characters.
  if (secret !== null && !secret.trim().startsWith('{')) {
    const distinct = new Set<string | number>(config.jwtSecretIsBase64 ? [...Buffer.from(secret.trim(), 'base64')] : [...secret]).size;
    if (PUBLIC_JWT_SECRETS.includes(secret.trim())) {
      out.push({ level: 'error', check: 'jwt-secret-public', subject: 'jwt-secret', message: 'jwt-secret is a published example value: anyone can sign a token with any role', fix: GENERATE });
    } else if (distinct < MIN_DISTINCT) {
      out.push({ level: 'error', check: 'jwt-secret-weak', subject: 'jwt-secret', message: `jwt-secret has only ${distinct} distinct characters: a made-up secret like that can be guessed offline from one token`, fix: GENERATE });
    }
  }
  if (config.dbPreRequest === null) {
    out.push({
      level: 'info',
      check: 'no-pre-request',
      subject: 'db-pre-request',
      message: 'no db-pre-request: no function sees each request before it runs (to refuse banned users, rate-limit, check headers)',
      fix: 'db-pre-request = "api.check_request"  -- CREATE FUNCTION api.check_request() RETURNS void … RAISE to refuse',
    });
  }
  return out;
}
