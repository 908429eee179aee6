// The embedded default's schema (examples/quickstart: films ↔ directors) as a test database, with a
// probe that tells whether a request reached PostgreSQL: the pre-request function fails every
// request carrying `X-Probe: trip` with 418. A request refused before any SQL runs answers its own
// error instead; the same header on an ordinary request shows the probe works.
import path from 'node:path';
import { SignJWT, type JWTPayload } from 'jose';
import { startTestServer, type TestServer } from '../../helpers/server.js';

export const SECRET = 'security-tests-secret-of-at-least-32-chars';
export const bearer = async (claims: JWTPayload) => ({
  Authorization: `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET))}`,
});

export const TRIP = { 'X-Probe': 'trip' } as const;

const PROBE = `
CREATE FUNCTION security_probe() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('request.headers', true)::json->>'x-probe' = 'trip' THEN
    RAISE SQLSTATE 'PT418' USING MESSAGE = 'the request reached the database';
  END IF;
END $$;
`;

export const QUICKSTART = path.resolve(process.cwd(), 'examples', 'quickstart', 'schema.sql');

export async function startQuickstart(
  t: { teardown(fn: () => unknown): void },
  config: Record<string, string> = {},
  extraSql: ReadonlyArray<string> = [],
): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [QUICKSTART, PROBE, ...extraSql],
    config: { 'db-anon-role': 'web_anon', 'db-pre-request': 'security_probe', 'jwt-secret': SECRET, ...config },
  });
}

/** `select=id,directors(id,films(…))`: issue #26's finding 1, n levels of directors+films (depth 2n). */
export const exponential = (n: number) => `id,${'directors(id,films('.repeat(n)}id${'))'.repeat(n)}`;

/** `select=id,d0:directors(id),…`: finding 2, n sibling embeds. */
export const siblings = (n: number) => `id,${Array.from({ length: n }, (_, i) => `d${i}:directors(id)`).join(',')}`;
