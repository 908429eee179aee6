// Request authentication: `Authorization: Bearer <JWT>` → the database role and claims of the request.
//   no bearer token            → `db-anon-role`, or DBRST302 (401) when that is unset;
//   token, no `jwt-secret`     → DBRST300 (500);
//   undecodable / bad signature / algorithm no configured key accepts → DBRST301 (401);
//   exp / nbf / iat / aud claim failures (30 s of clock skew allowed) → DBRST303 (401);
//   role from `jwt-role-claim-key`, else `db-anon-role`, else DBRST302.
// Every 401 carries a `WWW-Authenticate: Bearer …` challenge (RFC 6750). Verified tokens may be cached
// (`jwt-cache-max-lifetime`). Tokens and secrets are never logged nor echoed.
import { Buffer } from 'node:buffer';
import { compactVerify, errors as joseErrors } from 'jose';

import type { AppConfig } from '../config/types.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import { ExpiringLruCache } from './cache.js';
import { KNOWN_ALGORITHMS, loadKeys, type KeySet } from './keys.js';
import { parseRoleClaimKey, roleFromClaims, type RolePath } from './role.js';
import { opsCounters } from '../observe/counters.js';

export interface AuthResult {
  /** The role the request runs as (`SET ROLE`). */
  readonly role: string;
  /** The verified JWT claims (empty for an anonymous request). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** True when the role came from a verified token (42501 then gives 403 rather than 401). */
  readonly authenticated: boolean;
}

export interface Authenticator {
  /** `now` is epoch milliseconds (default `Date.now()`). */
  authenticate(authorizationHeader: string | undefined, now?: number): Promise<Result<AuthResult>>;
  /**
   * The answer when it needs no signature checked (no token: anonymous; a token the cache holds; a
   * missing secret or an empty token), else undefined: then `authenticate`. Lets a caller skip the
   * promise and the microtask turn an anonymous request would cost (http/handle.ts).
   */
  settled?(authorizationHeader: string | undefined, now?: number): Result<AuthResult> | undefined;
}

/** Clock skew tolerated on `exp`, `nbf` and `iat` (PostgREST's). */
export const ALLOWED_SKEW_SECONDS = 30;

/**
 * The token in an `Authorization` header: the credentials after a case-insensitive `Bearer` scheme
 * (possibly empty), or undefined when there is no header or another scheme (the request is then
 * anonymous, as in PostgREST).
 */
export function bearerToken(authorizationHeader: string | undefined): string | undefined {
  if (authorizationHeader === undefined) return undefined;
  const match = /^([^\s]*)(?:\s+([\s\S]*))?$/.exec(authorizationHeader.trim());
  if (!match || match[1]!.toLowerCase() !== 'bearer') return undefined;
  return (match[2] ?? '').trim();
}

/** Build the authenticator once per configuration; rejects when `jwt-secret` or the role claim key is invalid. */
/**
 * `authenticatorRole`: the role dbrest logs in as (null while unknown); a token naming it, or
 * `none` (SET ROLE none goes back to it), is refused.
 */
export async function createAuthenticator(cfg: AppConfig, authenticatorRole: () => string | null = () => null): Promise<Authenticator> {
  const rolePath = parseRoleClaimKey(cfg.jwtRoleClaimKey);
  if (!rolePath.ok) throw new Error(rolePath.error);

  let keys: KeySet | null = null;
  if (cfg.jwtSecret !== null && cfg.jwtSecret !== '') {
    const loaded = await loadKeys(cfg.jwtSecret, cfg.jwtSecretIsBase64);
    if (!loaded.ok) throw new Error(loaded.error);
    keys = loaded.value;
  }

  // On as PostgREST 14's (jwt-cache-max-entries alone); jwt-cache-max-lifetime, PostgREST 13's
  // key, only caps how long an entry is reused.
  const cache = cfg.jwtCacheMaxEntries > 0 ? new ExpiringLruCache<AuthResult>(cfg.jwtCacheMaxEntries) : null;

  return new JwtAuthenticator({
    keys,
    rolePath: rolePath.value,
    anonRole: cfg.dbAnonRole === '' ? null : cfg.dbAnonRole,
    audience: cfg.jwtAud === null || cfg.jwtAud === '' ? null : cfg.jwtAud,
    cache,
    cacheLifetimeMs: cfg.jwtCacheMaxLifetime * 1000,
    authenticatorRole,
  });
}

interface Settings {
  readonly keys: KeySet | null;
  readonly rolePath: RolePath;
  readonly anonRole: string | null;
  readonly audience: string | null;
  readonly cache: ExpiringLruCache<AuthResult> | null;
  readonly cacheLifetimeMs: number;
  readonly authenticatorRole: () => string | null;
}

class JwtAuthenticator implements Authenticator {
  private readonly anonymous: Result<AuthResult>;

  constructor(private readonly s: Settings) {
    this.anonymous =
      s.anonRole === null
        ? err(anonymousDisabled())
        // PostgREST (Auth/Jwt.hs parseClaims): request.jwt.claims always carries the role in force.
        : ok(Object.freeze({ role: s.anonRole, claims: Object.freeze({ role: s.anonRole }), authenticated: false }));
  }

  settled(authorizationHeader: string | undefined, now?: number): Result<AuthResult> | undefined {
    // No token: no clock read either.
    if (authorizationHeader === undefined) return this.anonymous;
    const token = bearerToken(authorizationHeader);
    if (token === undefined) return this.anonymous;
    if (this.s.keys === null) return err(errors.DBRST300('Server lacks JWT secret'));
    if (token === '') return err(invalidToken('DBRST301', 'Empty JWT is sent in Authorization header'));
    const cache = this.s.cache;
    if (cache === null) return undefined;
    const cached = cache.get(token, now ?? Date.now());
    if (cached === undefined) return undefined;
    opsCounters.jwtCacheHits++;
    return ok(cached);
  }

  async authenticate(authorizationHeader: string | undefined, now: number = Date.now()): Promise<Result<AuthResult>> {
    const known = this.settled(authorizationHeader, now);
    if (known !== undefined) return known;
    const token = bearerToken(authorizationHeader)!;
    if (this.s.cache !== null) opsCounters.jwtCacheMisses++;

    const claims = await verifySignature(token, this.s.keys!); // settled answered a missing secret
    if (!claims.ok) return claims;
    const invalid = validateClaims(claims.value, Math.floor(now / 1000), this.s.audience);
    if (invalid !== null) return err(invalid);

    const claimedRole = roleFromClaims(claims.value, this.s.rolePath);
    if (claimedRole !== undefined && (claimedRole === 'none' || claimedRole === this.s.authenticatorRole())) return err(authenticatorClaimed(claimedRole));
    const role = claimedRole ?? this.s.anonRole;
    if (role === null) return err(anonymousDisabled());
    const result: AuthResult = Object.freeze({
      role,
      // The role in force is the claims' `role` (PostgREST inserts it: the anonymous role for a
      // token without one, the resolved role for a jwt-role-claim-key elsewhere in the token).
      claims: deepFreeze(claims.value['role'] === role ? claims.value : { ...claims.value, role }),
      authenticated: claimedRole !== undefined,
    });

    if (this.s.cache !== null) {
      const exp = claims.value['exp'];
      const lifetimeEnd = this.s.cacheLifetimeMs > 0 ? now + this.s.cacheLifetimeMs : Infinity;
      const expiresAt = typeof exp === 'number' ? Math.min(exp * 1000, lifetimeEnd) : lifetimeEnd;
      this.s.cache.set(token, result, expiresAt, now);
    }
    return ok(result);
  }
}

// ---- verification ----------------------------------------------------------------------------

async function verifySignature(token: string, keys: KeySet): Promise<Result<Record<string, unknown>>> {
  const parts = token.split('.');
  if (parts.length !== 3) return err(invalidToken('DBRST301', `Expected 3 parts in JWT; got ${parts.length}`));

  // PostgREST (jose-jwt's parser): a header that is not base64url JSON naming an algorithm it knows
  // is "JWT cryptographic operation failed" without details; `alg: none` is refused by name.
  const header = decodeJsonObject(parts[0]!);
  const alg = header?.['alg'];
  if (alg === 'none') {
    return err(invalidToken('DBRST301', 'Wrong or unsupported encoding algorithm', "JWT is unsecured but expected 'alg' was not 'none'"));
  }
  if (header === null || typeof alg !== 'string' || !KNOWN_ALGORITHMS.has(alg)) {
    return err(invalidToken('DBRST301', 'JWT cryptographic operation failed'));
  }
  const kid = typeof header['kid'] === 'string' ? header['kid'] : undefined;

  // The allow-list comes from the keys: a key is a candidate only for the algorithms of its type.
  const candidates = keys.keys.filter(
    (k) => k.byAlgorithm.has(alg) && (kid === undefined || k.kid === undefined || k.kid === kid),
  );
  if (candidates.length === 0) {
    return err(invalidToken('DBRST301', 'No suitable key or wrong key type', 'No suitable key was found to decode the JWT'));
  }

  for (const key of candidates) {
    let payload: Uint8Array;
    try {
      ({ payload } = await compactVerify(token, key.byAlgorithm.get(alg)!, { algorithms: [alg] }));
    } catch (e) {
      if (e instanceof joseErrors.JWSSignatureVerificationFailed) continue; // try the next key
      return err(invalidToken('DBRST301', 'JWT cryptographic operation failed'));
    }
    const claims = parseJsonObject(Buffer.from(payload).toString('utf8'));
    if (claims === null) return err(invalidToken('DBRST303', 'Parsing claims failed'));
    return ok(claims);
  }
  return err(invalidToken('DBRST301', 'No suitable key or wrong key type', 'None of the keys was able to decode the JWT'));
}

/** PostgREST's order: exp, nbf, iat, aud; the first failure is reported. `null`-valued claims count as absent. */
function validateClaims(claims: Readonly<Record<string, unknown>>, nowSeconds: number, audience: string | null): ApiError | null {
  const timeChecks = [
    { claim: 'exp', fails: (t: number) => nowSeconds - ALLOWED_SKEW_SECONDS > t, message: 'JWT expired' },
    { claim: 'nbf', fails: (t: number) => nowSeconds + ALLOWED_SKEW_SECONDS < t, message: 'JWT not yet valid' },
    { claim: 'iat', fails: (t: number) => nowSeconds + ALLOWED_SKEW_SECONDS < t, message: 'JWT issued at future' },
  ];
  for (const { claim, fails, message } of timeChecks) {
    const value = claims[claim];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return invalidToken('DBRST303', `The JWT '${claim}' claim must be a number`);
    }
    if (fails(Math.floor(value))) return invalidToken('DBRST303', message);
  }

  const aud = claims['aud'];
  if (aud === undefined || aud === null) return null;
  const audiences = typeof aud === 'string' ? [aud] : aud;
  if (!Array.isArray(audiences) || !audiences.every((a) => typeof a === 'string')) {
    return invalidToken('DBRST303', "The JWT 'aud' claim must be a string or an array of strings");
  }
  // Without `jwt-aud` any audience is accepted; an empty array names no audience to refuse.
  if (audience !== null && audiences.length > 0 && !audiences.includes(audience)) {
    return invalidToken('DBRST303', 'JWT not in audience');
  }
  return null;
}

// ---- errors ----------------------------------------------------------------------------------

/**
 * DBRST304 (403): the token is genuine (signature and claims held), so this is not a 401 asking
 * for other credentials; it asks for a role requests may not take, as PostgreSQL refuses a SET ROLE
 * to a role not granted (42501, 403 for an authenticated request). Running as the authenticator
 * (or `none`, which resets to it) would bypass every grant the API's roles were given.
 */
function authenticatorClaimed(role: string): ApiError {
  return errors.DBRST304(`The JWT role claim names a role requests may not run as: ${JSON.stringify(role)}`, {
    hint: 'Sign the token with one of the roles the authenticator is granted, not the authenticator itself',
  });
}

function invalidToken(code: 'DBRST301' | 'DBRST303', message: string, details?: string): ApiError {
  const description = message.replace(/[\\"]/g, (c) => `\\${c}`);
  return errors[code](message, {
    details: details ?? null,
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"` },
  });
}

function anonymousDisabled(): ApiError {
  return errors.DBRST302('Anonymous access is disabled', { headers: { 'WWW-Authenticate': 'Bearer' } });
}

// ---- helpers ---------------------------------------------------------------------------------

function decodeJsonObject(segment: string): Record<string, unknown> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(segment)) return null;
  return parseJsonObject(Buffer.from(segment, 'base64url').toString('utf8'));
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
