// `jwt-role-claim-key`: a tiny path language into the JWT claims (PostgREST's JSPath):
//   path    = 1*( "." key *( "[" digits "]" ) )
//   key     = 1*( letter / digit / "_" / "$" / "@" )  /  DQUOTE *( any but DQUOTE ) DQUOTE
// e.g. `.role`, `."https://example.com/role"`, `.app_metadata.roles[0]`.
import { err, ok, type Result } from '../errors/types.js';

export type RolePathStep =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'index'; readonly index: number };

export type RolePath = ReadonlyArray<RolePathStep>;

export const DEFAULT_ROLE_CLAIM_KEY = '.role';

const BARE_KEY_CHAR = /[\p{L}\p{N}_$@]/u;

/** Parse a role claim key; the error is a sentence naming the offending position. */
export function parseRoleClaimKey(source: string): Result<RolePath, string> {
  const steps: RolePathStep[] = [];
  let i = 0;
  const fail = (what: string): Result<RolePath, string> =>
    err(`failed to parse jwt-role-claim-key value (${source}): ${what} at position ${i + 1}`);

  if (source.length === 0) return fail('expected a period (.)');
  while (i < source.length) {
    if (source[i] !== '.') return fail('expected a period (.)');
    i += 1;
    if (source[i] === '"') {
      const close = source.indexOf('"', i + 1);
      if (close === -1) return fail('unterminated quoted attribute name');
      steps.push({ kind: 'key', key: source.slice(i + 1, close) });
      i = close + 1;
    } else {
      const start = i;
      // Iterate by code point so letters outside the BMP are one step.
      while (i < source.length) {
        const ch = String.fromCodePoint(source.codePointAt(i)!);
        if (!BARE_KEY_CHAR.test(ch)) break;
        i += ch.length;
      }
      if (i === start) return fail('expected an attribute name [a..z0..9_$@] or a "quoted name"');
      steps.push({ kind: 'key', key: source.slice(start, i) });
    }
    while (source[i] === '[') {
      const close = source.indexOf(']', i);
      const digits = close === -1 ? '' : source.slice(i + 1, close);
      if (!/^\d+$/.test(digits)) return fail('expected an array index [0..n]');
      steps.push({ kind: 'index', index: Number(digits) });
      i = close + 1;
    }
  }
  return ok(steps);
}

/** The value at `path` in `claims`, or undefined when any step is missing or of the wrong type. */
export function evaluateRolePath(claims: unknown, path: RolePath): unknown {
  let current: unknown = claims;
  for (const step of path) {
    if (step.kind === 'key') {
      if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
      if (!Object.prototype.hasOwnProperty.call(current, step.key)) return undefined;
      current = (current as Record<string, unknown>)[step.key];
    } else {
      if (!Array.isArray(current) || step.index >= current.length) return undefined;
      current = current[step.index];
    }
  }
  return current;
}

/**
 * The role named by the claim at `path`: a string as is, any other JSON value in its JSON text
 * (PostgREST's behaviour); undefined when absent or null.
 */
export function roleFromClaims(claims: Readonly<Record<string, unknown>>, path: RolePath): string | undefined {
  const value = evaluateRolePath(claims, path);
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
