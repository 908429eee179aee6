// `jwt-secret` → the keys a token may be verified with. Three forms (PostgREST's): a text secret
// (HMAC, at least 32 characters), a JSON Web Key, or a JSON Web Key Set; with `jwt-secret-is-base64`
// the value is base64-decoded first. Each key's algorithm allow-list is DERIVED FROM ITS KEY TYPE
// (narrowed by the JWK's own `alg`), never from a token: an HS* token is never checked against an RSA
// key's public bytes, and `alg: none` is accepted by no key. Nothing here logs key material.
import { importJWK, type CryptoKey, type JWK } from 'jose';

import { err, ok, type Result } from '../errors/types.js';

export type KeyMaterial = CryptoKey | Uint8Array;
export type KeyType = 'oct' | 'RSA' | 'EC' | 'OKP';

export interface VerificationKey {
  readonly kid: string | undefined;
  readonly kty: KeyType;
  /** The algorithms this key verifies, each with the key imported for that algorithm. */
  readonly byAlgorithm: ReadonlyMap<string, KeyMaterial>;
}

export interface KeySet {
  readonly keys: ReadonlyArray<VerificationKey>;
}

export const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
export const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
const EC_ALGORITHMS_BY_CURVE: Readonly<Record<string, string>> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };
const OKP_ALGORITHMS_BY_CURVE: Readonly<Record<string, ReadonlyArray<string>>> = { Ed25519: ['EdDSA', 'Ed25519'] };

/** Every signature algorithm some key type here can verify; anything else (`none`) is refused. */
export const KNOWN_ALGORITHMS: ReadonlySet<string> = new Set<string>([
  ...HMAC_ALGORITHMS,
  ...RSA_ALGORITHMS,
  ...Object.values(EC_ALGORITHMS_BY_CURVE),
  ...Object.values(OKP_ALGORITHMS_BY_CURVE).flat(),
]);

/** PostgREST refuses shorter text secrets. */
export const MIN_SECRET_LENGTH = 32;
const MIN_RSA_BITS = 2048;

/** JWK members that make a key private; dropped so only the public half is imported. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth'] as const;

/** Parse `jwt-secret`. The error is a sentence for the operator; it never quotes the secret. */
export async function loadKeys(secret: string, isBase64: boolean): Promise<Result<KeySet, string>> {
  const bytes = isBase64 ? decodeBase64Secret(secret) : Buffer.from(secret, 'utf8');
  if (bytes === null) return err('jwt-secret is not valid base64 (jwt-secret-is-base64 is true).');

  const json = parseJsonObject(bytes.toString('utf8'));
  if (json !== null && Array.isArray(json['keys'])) return loadJwks(json['keys']);
  if (json !== null && typeof json['kty'] === 'string') {
    const key = await loadJwk(json, 'the JWK in jwt-secret');
    if (!key.ok) return key;
    if (key.value === null) return err('The JWK in jwt-secret is not a signature verification key this server supports.');
    return ok({ keys: [key.value] });
  }

  if (bytes.length < MIN_SECRET_LENGTH) {
    return err(`The JWT secret must be at least ${MIN_SECRET_LENGTH} characters long.`);
  }
  const material = new Uint8Array(bytes);
  return ok({
    keys: [{ kid: undefined, kty: 'oct', byAlgorithm: new Map(HMAC_ALGORITHMS.map((alg) => [alg, material])) }],
  });
}

/** PostgREST's decoding: URL-safe characters accepted, surrounding whitespace ignored. */
function decodeBase64Secret(secret: string): Buffer | null {
  const normalized = secret.trim().replace(/-/g, '+').replace(/_/g, '/').replace(/\./g, '=');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normalized)) return null;
  if (normalized.replace(/=+$/, '').length % 4 === 1) return null;
  return Buffer.from(normalized, 'base64');
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  if (!text.trimStart().startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function loadJwks(entries: ReadonlyArray<unknown>): Promise<Result<KeySet, string>> {
  const keys: VerificationKey[] = [];
  for (const [i, entry] of entries.entries()) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      return err(`Key #${i} of the JWKS in jwt-secret is not a JSON object.`);
    }
    const key = await loadJwk(entry as Record<string, unknown>, `key #${i} of the JWKS in jwt-secret`);
    if (!key.ok) return key;
    if (key.value !== null) keys.push(key.value); // encryption or unsupported keys are skipped
  }
  if (keys.length === 0) return err('The JWKS in jwt-secret has no signature verification key this server supports.');
  return ok({ keys });
}

/** A usable key, null for a key that is not for signatures or of an unsupported type, or an error. */
async function loadJwk(jwk: Record<string, unknown>, where: string): Promise<Result<VerificationKey | null, string>> {
  const { kty, use, alg, kid } = jwk;
  const keyOps = jwk['key_ops'];
  if (use !== undefined && use !== 'sig') return ok(null);
  if (Array.isArray(keyOps) && !keyOps.includes('verify')) return ok(null);
  if (kid !== undefined && typeof kid !== 'string') return err(`The "kid" of ${where} must be a string.`);
  if (alg !== undefined && typeof alg !== 'string') return err(`The "alg" of ${where} must be a string.`);

  let algorithms: ReadonlyArray<string>;
  switch (kty) {
    case 'oct':
      if (typeof jwk['k'] !== 'string' || Buffer.from(jwk['k'], 'base64url').length === 0) {
        return err(`The "k" of ${where} must be a non-empty base64url string.`);
      }
      algorithms = HMAC_ALGORITHMS;
      break;
    case 'RSA':
      algorithms = RSA_ALGORITHMS;
      break;
    case 'EC': {
      const curveAlg = typeof jwk['crv'] === 'string' ? EC_ALGORITHMS_BY_CURVE[jwk['crv']] : undefined;
      if (curveAlg === undefined) return ok(null);
      algorithms = [curveAlg];
      break;
    }
    case 'OKP': {
      const curveAlgs = typeof jwk['crv'] === 'string' ? OKP_ALGORITHMS_BY_CURVE[jwk['crv']] : undefined;
      if (curveAlgs === undefined) return ok(null);
      algorithms = curveAlgs;
      break;
    }
    default:
      return ok(null);
  }
  if (alg !== undefined) {
    if (!algorithms.includes(alg)) return err(`${capitalize(where)} has kty "${String(kty)}", which cannot be used with alg "${alg}".`);
    // A JWK naming EdDSA or Ed25519 verifies both spellings of the same algorithm.
    algorithms = kty === 'OKP' ? algorithms : [alg];
  }

  const publicJwk: Record<string, unknown> = { ...jwk };
  if (kty !== 'oct') for (const member of PRIVATE_MEMBERS) delete publicJwk[member];
  delete publicJwk['key_ops']; // the imported key is used to verify, whatever the JWK allowed its owner
  delete publicJwk['use'];

  const byAlgorithm = new Map<string, KeyMaterial>();
  for (const algorithm of algorithms) {
    let material: KeyMaterial;
    try {
      material = await importJWK(publicJwk as JWK, algorithm);
    } catch (e) {
      return err(`${capitalize(where)} is not a valid ${String(kty)} key: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (kty === 'RSA' && !(material instanceof Uint8Array)) {
      const bits = (material.algorithm as { modulusLength?: unknown }).modulusLength;
      if (typeof bits !== 'number' || bits < MIN_RSA_BITS) {
        return err(`${capitalize(where)} is an RSA key of ${String(bits)} bits; at least ${MIN_RSA_BITS} are required.`);
      }
    }
    byAlgorithm.set(algorithm, material);
  }
  return ok({ kid: kid as string | undefined, kty: kty as KeyType, byAlgorithm });
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
