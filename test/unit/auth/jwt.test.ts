import { generateKeyPairSync } from 'node:crypto';

import { CompactSign, SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import t from 'tap';

import { bearerToken, createAuthenticator, type AuthResult } from '../../../src/auth/jwt.js';
import type { AppConfig } from '../../../src/config/types.js';
import type { ApiError, Result } from '../../../src/errors/types.js';

const SECRET = 'reallyreallyreallyreallyverysafe'; // 32 characters
const NOW = 1_700_000_000_000; // epoch ms
const NOW_S = NOW / 1000;

// Only the settings authentication reads; the rest of AppConfig is irrelevant here.
function config(overrides: Partial<AppConfig> = {}): AppConfig {
  const auth: Pick<AppConfig,
    'dbAnonRole' | 'jwtSecret' | 'jwtSecretIsBase64' | 'jwtAud' | 'jwtRoleClaimKey' | 'jwtCacheMaxLifetime' | 'jwtCacheMaxEntries'
  > = {
    dbAnonRole: 'web_anon', jwtSecret: SECRET, jwtSecretIsBase64: false, jwtAud: null, jwtRoleClaimKey: '.role',
    jwtCacheMaxLifetime: 0, jwtCacheMaxEntries: 1000,
  };
  return { ...auth, ...overrides } as AppConfig;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const b64url = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');

type SigningKey = Parameters<SignJWT['sign']>[0];
async function sign(payload: JWTPayload, key: SigningKey, alg = 'HS256', kid?: string): Promise<string> {
  return new SignJWT(payload).setProtectedHeader(kid === undefined ? { alg } : { alg, kid }).sign(key);
}

async function auth(cfg: AppConfig, header: string | undefined, now = NOW): Promise<Result<AuthResult>> {
  return (await createAuthenticator(cfg)).authenticate(header, now);
}

function expectOk(t: Tap, r: Result<AuthResult>): AuthResult {
  if (!r.ok) {
    t.fail(`expected success, got ${r.error.code}: ${r.error.message} (${String(r.error.details)})`);
    throw new Error('unreachable');
  }
  return r.value;
}

function expectErr(t: Tap, r: Result<AuthResult>, code: string, message: string): ApiError {
  if (r.ok) {
    t.fail(`expected ${code}, got role ${r.value.role}`);
    throw new Error('unreachable');
  }
  t.equal(r.error.code, code, 'code');
  t.equal(r.error.message, message, 'message');
  return r.error;
}


interface Tap {
  fail(message: string): unknown;
  equal(found: unknown, wanted: unknown, message: string): unknown;
}

const invalidTokenHeader = (message: string): Record<string, string> => ({
  'WWW-Authenticate': `Bearer error="invalid_token", error_description="${message}"`,
});

// ---- HMAC ----------------------------------------------------------------------------------

t.test('HS256 with a text secret', async (t) => {
  const token = await sign({ role: 'web_user', sub: 'u1' }, text(SECRET));
  const r = expectOk(t, await auth(config(), `Bearer ${token}`));
  t.same(r, { role: 'web_user', claims: { role: 'web_user', sub: 'u1' }, authenticated: true });
});

t.test('HS384 and HS512 with a text secret', async (t) => {
  for (const alg of ['HS384', 'HS512']) {
    const token = await sign({ role: 'web_user' }, text(SECRET), alg);
    t.equal(expectOk(t, await auth(config(), `Bearer ${token}`)).role, 'web_user', alg);
  }
});

t.test('the Bearer scheme is case-insensitive', async (t) => {
  const token = await sign({ role: 'web_user' }, text(SECRET));
  t.equal(expectOk(t, await auth(config(), `bearer ${token}`)).role, 'web_user');
  t.equal(expectOk(t, await auth(config(), `BEARER   ${token}`)).role, 'web_user');
});

t.test('a text secret shorter than 32 characters is refused at startup', async (t) => {
  await t.rejects(createAuthenticator(config({ jwtSecret: 'short' })), /at least 32 characters/);
});

t.test('base64 secret (jwt-secret-is-base64)', async (t) => {
  const raw = Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 37 + 11) % 256));
  const token = await sign({ role: 'web_user' }, new Uint8Array(raw), 'HS512');
  const cfg = config({ jwtSecret: raw.toString('base64'), jwtSecretIsBase64: true });
  t.equal(expectOk(t, await auth(cfg, `Bearer ${token}`)).role, 'web_user');
  // URL-safe alphabet accepted too
  const urlSafe = config({ jwtSecret: raw.toString('base64url'), jwtSecretIsBase64: true });
  t.equal(expectOk(t, await auth(urlSafe, `Bearer ${token}`)).role, 'web_user');
  // the same secret as text does not verify
  expectErr(t, await auth(config({ jwtSecret: raw.toString('base64') }), `Bearer ${token}`), 'DBRST301', 'No suitable key or wrong key type');
  await t.rejects(createAuthenticator(config({ jwtSecret: 'not base64!!', jwtSecretIsBase64: true })), /not valid base64/);
});

t.test('wrong key', async (t) => {
  const token = await sign({ role: 'web_user' }, text('another-secret-that-is-32-chars-long'));
  const e = expectErr(t, await auth(config(), `Bearer ${token}`), 'DBRST301', 'No suitable key or wrong key type');
  t.equal(e.status, 401);
  t.equal(e.details, 'None of the keys was able to decode the JWT');
  t.same(e.headers, invalidTokenHeader('No suitable key or wrong key type'));
});

t.test('tampered payload', async (t) => {
  const token = await sign({ role: 'web_user' }, text(SECRET));
  const [h, , s] = token.split('.');
  const forged = `${h}.${b64url('{"role":"postgres"}')}.${s}`;
  expectErr(t, await auth(config(), `Bearer ${forged}`), 'DBRST301', 'No suitable key or wrong key type');
});

// ---- asymmetric keys -----------------------------------------------------------------------

t.test('RS256 with a public JWK; PS256 with the same key', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const cfg = config({ jwtSecret: JSON.stringify(await exportJWK(publicKey)) });
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'rsa_user' }, privateKey, 'RS256')}`)).role, 'rsa_user');
  const { privateKey: psKey } = await generateKeyPair('PS256', { extractable: true });
  // a PS256 token signed by another key fails; by the configured key (re-imported for PS256) succeeds
  expectErr(t, await auth(cfg, `Bearer ${await sign({ role: 'x' }, psKey, 'PS256')}`), 'DBRST301', 'No suitable key or wrong key type');
  const privateJwk = await exportJWK(privateKey);
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'ps_user' }, privateJwk, 'PS256')}`)).role, 'ps_user');
});

t.test('a private JWK in jwt-secret is used by its public half', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const cfg = config({ jwtSecret: JSON.stringify(await exportJWK(privateKey)) });
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'rsa_user' }, privateKey, 'RS256')}`)).role, 'rsa_user');
  t.ok(publicKey);
});

t.test('ES256 with an EC JWK', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const cfg = config({ jwtSecret: JSON.stringify(await exportJWK(publicKey)) });
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'ec_user' }, privateKey, 'ES256')}`)).role, 'ec_user');
  // ES384 is not an algorithm of a P-256 key
  const { privateKey: p384 } = await generateKeyPair('ES384', { extractable: true });
  expectErr(t, await auth(cfg, `Bearer ${await sign({ role: 'x' }, p384, 'ES384')}`), 'DBRST301', 'No suitable key or wrong key type');
});

t.test('EdDSA with an Ed25519 JWK', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
  const cfg = config({ jwtSecret: JSON.stringify(await exportJWK(publicKey)) });
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'ed_user' }, privateKey, 'EdDSA')}`)).role, 'ed_user');
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'ed_user' }, privateKey, 'Ed25519')}`)).role, 'ed_user');
});

t.test('JWKS: the key is selected by kid, or each key is tried', async (t) => {
  const a = await generateKeyPair('RS256', { extractable: true });
  const b = await generateKeyPair('ES256', { extractable: true });
  const c = await generateKeyPair('RS256', { extractable: true });
  const jwks = {
    keys: [
      { ...(await exportJWK(a.publicKey)), kid: 'key-a', use: 'sig' },
      { ...(await exportJWK(b.publicKey)), kid: 'key-b', alg: 'ES256' },
      { ...(await exportJWK(c.publicKey)), kid: 'key-c' },
      { kty: 'oct', k: Buffer.from(SECRET).toString('base64url'), use: 'enc' }, // an encryption key: skipped
    ],
  };
  const cfg = config({ jwtSecret: JSON.stringify(jwks) });
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'a' }, a.privateKey, 'RS256', 'key-a')}`)).role, 'a');
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'b' }, b.privateKey, 'ES256', 'key-b')}`)).role, 'b');
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'c' }, c.privateKey, 'RS256')}`)).role, 'c', 'no kid: every RSA key tried');
  const wrongKid = expectErr(t, await auth(cfg, `Bearer ${await sign({ role: 'c' }, c.privateKey, 'RS256', 'key-a')}`),
    'DBRST301', 'No suitable key or wrong key type');
  t.equal(wrongKid.details, 'None of the keys was able to decode the JWT', 'kid names a key that does not verify');
  const unknownKid = expectErr(t, await auth(cfg, `Bearer ${await sign({ role: 'c' }, c.privateKey, 'RS256', 'nope')}`),
    'DBRST301', 'No suitable key or wrong key type');
  t.equal(unknownKid.details, 'No suitable key was found to decode the JWT', 'no key has that kid');
  // the encryption key was skipped: an HS256 token with that secret is refused
  expectErr(t, await auth(cfg, `Bearer ${await sign({ role: 'x' }, text(SECRET))}`), 'DBRST301', 'No suitable key or wrong key type');
});

t.test('JWKS with an oct key', async (t) => {
  const jwks = { keys: [{ kty: 'oct', k: Buffer.from('short-is-fine-in-a-jwk').toString('base64url'), alg: 'HS256', kid: 'h' }] };
  const cfg = config({ jwtSecret: JSON.stringify(jwks) });
  t.equal(expectOk(t, await auth(cfg, `Bearer ${await sign({ role: 'h' }, text('short-is-fine-in-a-jwk'), 'HS256', 'h')}`)).role, 'h');
  // its alg narrows the list
  expectErr(t, await auth(cfg, `Bearer ${await sign({ role: 'h' }, text('short-is-fine-in-a-jwk'), 'HS512')}`), 'DBRST301', 'No suitable key or wrong key type');
});

t.test('invalid key configurations are refused at startup', async (t) => {
  await t.rejects(createAuthenticator(config({ jwtSecret: '{"kty":"RSA","n":"AQAB"}' })), /not a valid RSA key/);
  await t.rejects(createAuthenticator(config({ jwtSecret: '{"kty":"EC","crv":"P-256","alg":"RS256","x":"a","y":"b"}' })), /cannot be used with alg "RS256"/);
  await t.rejects(createAuthenticator(config({ jwtSecret: '{"keys":[]}' })), /no signature verification key/);
  await t.rejects(createAuthenticator(config({ jwtSecret: '{"kty":"XYZ"}' })), /not a signature verification key/);
  const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
  await t.rejects(createAuthenticator(config({ jwtSecret: JSON.stringify(weak) })), /at least 2048/);
  await t.rejects(createAuthenticator(config({ jwtRoleClaimKey: 'role' })), /jwt-role-claim-key/);
});

// ---- algorithm confusion -------------------------------------------------------------------

t.test('alg none is refused', async (t) => {
  const unsigned = `${b64url('{"alg":"none","typ":"JWT"}')}.${b64url('{"role":"postgres"}')}.`;
  const e = expectErr(t, await auth(config(), `Bearer ${unsigned}`), 'DBRST301', 'Wrong or unsupported encoding algorithm');
  t.same(e.headers, invalidTokenHeader('Wrong or unsupported encoding algorithm'));
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  const rsa = config({ jwtSecret: JSON.stringify(await exportJWK(publicKey)) });
  expectErr(t, await auth(rsa, `Bearer ${unsigned}`), 'DBRST301', 'Wrong or unsupported encoding algorithm');
  const noAlg = `${b64url('{"typ":"JWT"}')}.${b64url('{"role":"postgres"}')}.sig`;
  expectErr(t, await auth(config(), `Bearer ${noAlg}`), 'DBRST301', 'JWT cryptographic operation failed');
});

t.test('an HS256 token signed with the RSA public key is refused', async (t) => {
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk: JWK = await exportJWK(publicKey);
  const secretText = JSON.stringify(publicJwk);
  const cfg = config({ jwtSecret: secretText });
  // the attacker HMACs with the public key bytes in every form they might guess
  for (const guess of [secretText, publicJwk.n!]) {
    const forged = await sign({ role: 'postgres' }, text(guess), 'HS256');
    expectErr(t, await auth(cfg, `Bearer ${forged}`), 'DBRST301', 'No suitable key or wrong key type');
  }
});

t.test('an RS256 token against an HMAC secret is refused', async (t) => {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const token = await sign({ role: 'postgres' }, privateKey, 'RS256');
  const e = expectErr(t, await auth(config(), `Bearer ${token}`), 'DBRST301', 'No suitable key or wrong key type');
  t.equal(e.details, 'No suitable key was found to decode the JWT');
});

// ---- malformed tokens ----------------------------------------------------------------------

t.test('token shape errors', async (t) => {
  const two = expectErr(t, await auth(config(), 'Bearer abc.def'), 'DBRST301', 'Expected 3 parts in JWT; got 2');
  t.same(two.headers, invalidTokenHeader('Expected 3 parts in JWT; got 2'));
  expectErr(t, await auth(config(), 'Bearer a.b.c.d.e'), 'DBRST301', 'Expected 3 parts in JWT; got 5');
  expectErr(t, await auth(config(), 'Bearer !!.b.c'), 'DBRST301', 'JWT cryptographic operation failed');
  expectErr(t, await auth(config(), `Bearer ${b64url('[1]')}.b.c`), 'DBRST301', 'JWT cryptographic operation failed');
  expectErr(t, await auth(config(), `Bearer ${b64url('{"alg":"HS999"}')}.b.c`), 'DBRST301', 'JWT cryptographic operation failed');
  const empty = expectErr(t, await auth(config(), 'Bearer '), 'DBRST301', 'Empty JWT is sent in Authorization header');
  t.equal(empty.status, 401);
  expectErr(t, await auth(config(), 'Bearer'), 'DBRST301', 'Empty JWT is sent in Authorization header');
});

t.test('a payload that is not a JSON object', async (t) => {
  const token = await new CompactSign(text('not json')).setProtectedHeader({ alg: 'HS256' }).sign(text(SECRET));
  const e = expectErr(t, await auth(config(), `Bearer ${token}`), 'DBRST303', 'Parsing claims failed');
  t.same(e.headers, invalidTokenHeader('Parsing claims failed'));
});

// ---- claims --------------------------------------------------------------------------------

t.test('expired', async (t) => {
  const token = await sign({ role: 'web_user', exp: NOW_S - 31 }, text(SECRET));
  const e = expectErr(t, await auth(config(), `Bearer ${token}`), 'DBRST303', 'JWT expired');
  t.equal(e.status, 401);
  t.same(e.headers, invalidTokenHeader('JWT expired'));
});

t.test('expired within the 30 s skew is accepted', async (t) => {
  const token = await sign({ role: 'web_user', exp: NOW_S - 30 }, text(SECRET));
  t.equal(expectOk(t, await auth(config(), `Bearer ${token}`)).role, 'web_user');
});

t.test('nbf in the future', async (t) => {
  const future = await sign({ role: 'web_user', nbf: NOW_S + 31 }, text(SECRET));
  expectErr(t, await auth(config(), `Bearer ${future}`), 'DBRST303', 'JWT not yet valid');
  const withinSkew = await sign({ role: 'web_user', nbf: NOW_S + 30 }, text(SECRET));
  t.equal(expectOk(t, await auth(config(), `Bearer ${withinSkew}`)).role, 'web_user');
});

t.test('iat in the future', async (t) => {
  const token = await sign({ role: 'web_user', iat: NOW_S + 60 }, text(SECRET));
  expectErr(t, await auth(config(), `Bearer ${token}`), 'DBRST303', 'JWT issued at future');
});

t.test('time claims must be numbers', async (t) => {
  for (const claim of ['exp', 'nbf', 'iat']) {
    const token = await sign({ role: 'web_user', [claim]: 'tomorrow' }, text(SECRET));
    expectErr(t, await auth(config(), `Bearer ${token}`), 'DBRST303', `The JWT '${claim}' claim must be a number`);
  }
});

t.test('audience', async (t) => {
  const cfg = config({ jwtAud: 'https://api.example.com' });
  const wrong = await sign({ role: 'web_user', aud: 'https://other.example.com' }, text(SECRET));
  const e = expectErr(t, await auth(cfg, `Bearer ${wrong}`), 'DBRST303', 'JWT not in audience');
  t.same(e.headers, invalidTokenHeader('JWT not in audience'));
  const right = await sign({ role: 'web_user', aud: 'https://api.example.com' }, text(SECRET));
  t.equal(expectOk(t, await auth(cfg, `Bearer ${right}`)).role, 'web_user');
  const array = await sign({ role: 'web_user', aud: ['https://other.example.com', 'https://api.example.com'] }, text(SECRET));
  t.equal(expectOk(t, await auth(cfg, `Bearer ${array}`)).role, 'web_user', 'an array containing jwt-aud');
  const wrongArray = await sign({ role: 'web_user', aud: ['https://other.example.com'] }, text(SECRET));
  expectErr(t, await auth(cfg, `Bearer ${wrongArray}`), 'DBRST303', 'JWT not in audience');
  const noAud = await sign({ role: 'web_user' }, text(SECRET));
  t.equal(expectOk(t, await auth(cfg, `Bearer ${noAud}`)).role, 'web_user', 'no aud claim');
  t.equal(expectOk(t, await auth(config(), `Bearer ${wrong}`)).role, 'web_user', 'no jwt-aud: any audience');
  const notString = await sign({ role: 'web_user', aud: 42 } as unknown as JWTPayload, text(SECRET));
  expectErr(t, await auth(config(), `Bearer ${notString}`), 'DBRST303', "The JWT 'aud' claim must be a string or an array of strings");
});

// ---- role ----------------------------------------------------------------------------------

t.test('nested role claim path', async (t) => {
  const cfg = config({ jwtRoleClaimKey: '.app_metadata.roles[1]' });
  const token = await sign({ app_metadata: { roles: ['viewer', 'editor'] } }, text(SECRET));
  t.same(expectOk(t, await auth(cfg, `Bearer ${token}`)), {
    role: 'editor', claims: { app_metadata: { roles: ['viewer', 'editor'] }, role: 'editor' }, authenticated: true,
  });
});

t.test('quoted claim key', async (t) => {
  const cfg = config({ jwtRoleClaimKey: '."https://example.com/role"' });
  const token = await sign({ 'https://example.com/role': 'author' }, text(SECRET));
  t.equal(expectOk(t, await auth(cfg, `Bearer ${token}`)).role, 'author');
});

t.test('a non-string role claim is used as its JSON text', async (t) => {
  const token = await sign({ role: 42 } as unknown as JWTPayload, text(SECRET));
  t.equal(expectOk(t, await auth(config(), `Bearer ${token}`)).role, '42');
});

t.test('missing role claim: the anonymous role, or DBRST302 without one', async (t) => {
  const token = await sign({ sub: 'u1' }, text(SECRET));
  t.same(expectOk(t, await auth(config(), `Bearer ${token}`)), { role: 'web_anon', claims: { sub: 'u1', role: 'web_anon' }, authenticated: false });
  const e = expectErr(t, await auth(config({ dbAnonRole: null }), `Bearer ${token}`), 'DBRST302', 'Anonymous access is disabled');
  t.equal(e.status, 401);
  t.same(e.headers, { 'WWW-Authenticate': 'Bearer' });
});

// ---- no token, no secret -------------------------------------------------------------------

t.test('no Authorization header', async (t) => {
  t.same(expectOk(t, await auth(config(), undefined)), { role: 'web_anon', claims: { role: 'web_anon' }, authenticated: false });
  const e = expectErr(t, await auth(config({ dbAnonRole: null }), undefined), 'DBRST302', 'Anonymous access is disabled');
  t.equal(e.status, 401);
  t.same(e.headers, { 'WWW-Authenticate': 'Bearer' });
});

t.test('another scheme is anonymous', async (t) => {
  t.equal(expectOk(t, await auth(config(), 'Basic dXNlcjpwYXNz')).role, 'web_anon');
});

t.test('no secret configured', async (t) => {
  const cfg = config({ jwtSecret: null });
  const token = await sign({ role: 'web_user' }, text(SECRET));
  const e = expectErr(t, await auth(cfg, `Bearer ${token}`), 'DBRST300', 'Server lacks JWT secret');
  t.equal(e.status, 500);
  t.equal(e.headers, undefined);
  t.equal(expectOk(t, await auth(cfg, undefined)).role, 'web_anon', 'no token: anonymous');
  expectErr(t, await auth(config({ jwtSecret: '' }), `Bearer ${token}`), 'DBRST300', 'Server lacks JWT secret');
});

t.test('bearerToken', async (t) => {
  t.equal(bearerToken(undefined), undefined);
  t.equal(bearerToken('Bearer abc'), 'abc');
  t.equal(bearerToken('bEaReR  abc '), 'abc');
  t.equal(bearerToken('Bearer'), '');
  t.equal(bearerToken('Basic abc'), undefined);
  t.equal(bearerToken('Bearerabc'), undefined);
});

// ---- cache ---------------------------------------------------------------------------------

t.test('cache: a hit returns the same result', async (t) => {
  const authenticator = await createAuthenticator(config({ jwtCacheMaxLifetime: 3600 }));
  const token = await sign({ role: 'web_user', exp: NOW_S + 600 }, text(SECRET));
  const first = expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW));
  const second = expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW + 1000));
  t.equal(second, first, 'the cached object');
  t.ok(Object.isFrozen(first) && Object.isFrozen(first.claims), 'immutable');
});

t.test('cache disabled by jwt-cache-max-entries = 0: every call verifies', async (t) => {
  const authenticator = await createAuthenticator(config({ jwtCacheMaxLifetime: 3600, jwtCacheMaxEntries: 0 }));
  const token = await sign({ role: 'web_user' }, text(SECRET));
  const first = expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW));
  const second = expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW));
  t.not(second, first);
  t.same(second, first);
});

t.test('cache: entries expire with the token', async (t) => {
  const authenticator = await createAuthenticator(config({ jwtCacheMaxLifetime: 3600 }));
  const token = await sign({ role: 'web_user', exp: NOW_S + 10 }, text(SECRET));
  const first = expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW));
  t.equal(expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW + 9_000)), first, 'before exp: cached');
  const withinSkew = expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW + 20_000));
  t.not(withinSkew, first, 'after exp: verified again (and accepted within the skew)');
  expectErr(t, await authenticator.authenticate(`Bearer ${token}`, NOW + 41_000), 'DBRST303', 'JWT expired');
});

t.test('cache: entries expire after jwt-cache-max-lifetime', async (t) => {
  const authenticator = await createAuthenticator(config({ jwtCacheMaxLifetime: 5 }));
  const token = await sign({ role: 'web_user' }, text(SECRET));
  const first = expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW));
  t.equal(expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW + 4_999)), first);
  t.not(expectOk(t, await authenticator.authenticate(`Bearer ${token}`, NOW + 5_000)), first);
});

t.test('cache: on by default (jwt-cache-max-lifetime 0), each entry until its exp, as PostgREST 14', async (t) => {
  const authenticator = await createAuthenticator(config({}));
  const forever = await sign({ role: 'web_user' }, text(SECRET));
  const first = expectOk(t, await authenticator.authenticate(`Bearer ${forever}`, NOW));
  t.equal(expectOk(t, await authenticator.authenticate(`Bearer ${forever}`, NOW + 86_400_000)), first, 'no exp: kept a day later');
  const expiring = await sign({ role: 'web_user', exp: NOW_S + 10 }, text(SECRET));
  const once = expectOk(t, await authenticator.authenticate(`Bearer ${expiring}`, NOW));
  t.equal(expectOk(t, await authenticator.authenticate(`Bearer ${expiring}`, NOW + 9_000)), once, 'before exp: cached');
  expectErr(t, await authenticator.authenticate(`Bearer ${expiring}`, NOW + 41_000), 'DBRST303', 'JWT expired');
});

t.test('cache: bounded by jwt-cache-max-entries', async (t) => {
  const authenticator = await createAuthenticator(config({ jwtCacheMaxLifetime: 3600, jwtCacheMaxEntries: 1 }));
  const a = await sign({ role: 'a' }, text(SECRET));
  const b = await sign({ role: 'b' }, text(SECRET));
  const firstA = expectOk(t, await authenticator.authenticate(`Bearer ${a}`, NOW));
  expectOk(t, await authenticator.authenticate(`Bearer ${b}`, NOW));
  t.not(expectOk(t, await authenticator.authenticate(`Bearer ${a}`, NOW)), firstA, 'a was evicted by b');
});

t.test('cache: failures are not cached', async (t) => {
  const authenticator = await createAuthenticator(config({ jwtCacheMaxLifetime: 3600, jwtAud: 'x' }));
  const token = await sign({ role: 'web_user', aud: 'y' }, text(SECRET));
  expectErr(t, await authenticator.authenticate(`Bearer ${token}`, NOW), 'DBRST303', 'JWT not in audience');
  expectErr(t, await authenticator.authenticate(`Bearer ${token}`, NOW), 'DBRST303', 'JWT not in audience');
});
