// Turning raw values (from files, env, flags) into typed config values, and the checks that span keys.
// Everything here returns problems as data — a user's mistake is never thrown. Pure; no I/O.

import {
  APP_SETTINGS_KEY, CONFIG_KEYS, envNames, type ConfigKey, type KeyType, type StringFormat,
} from './keys.js';
import { parseRoutes as parseRouteGroups } from './routes.js';
import type { AppConfig, RouteGroup } from './types.js';

export interface ConfigProblem {
  /** The key (`db-pool`, `routes[1].path`, `app.settings.x`), or `config-file` for the file itself. */
  readonly key: string;
  readonly message: string;
  /** A close valid spelling, shown as "did you mean <suggestion>?". */
  readonly suggestion?: string;
}

/** One thing wrong with a value; `path` is appended to the key name (`[0].method`). */
export interface ValueIssue {
  readonly path?: string;
  readonly message: string;
  readonly suggestion?: string;
}

export type Coerced<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: ReadonlyArray<ValueIssue> };

const good = <T>(value: T): Coerced<T> => ({ ok: true, value });
const bad = (message: string, suggestion?: string, path?: string): Coerced<never> => ({
  ok: false,
  issues: [{ message, ...(suggestion !== undefined ? { suggestion } : {}), ...(path !== undefined ? { path } : {}) }],
});

/** A short rendering of a raw value for messages: strings quoted, long values cut. */
export function showRaw(raw: unknown): string {
  let s: string;
  try {
    s = typeof raw === 'string' ? JSON.stringify(raw) : JSON.stringify(raw) ?? String(raw);
  } catch {
    s = String(raw);
  }
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

// ── coercion ────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Coerce one raw value for `key`. Strings (env, .conf, flags) are parsed as the key's type; JSON/YAML values of
 * the right type pass through. `null`/`undefined`/`""` mean "unset" and yield the key's default (an emptyable
 * list yields `[]` for `""`), as PostgREST treats empty values.
 */
export function coerceValue(key: ConfigKey, raw: unknown): Coerced<unknown> {
  if (raw === null || raw === undefined) return good(key.default);
  // server-docs-path: "" and false mean off (not "unset": unset is the embedded default's /_docs).
  if (key.type.kind === 'string' && key.type.format === 'docs-path') return coerceDocsPath(raw);
  if (raw === '') return good(key.type.kind === 'list' && key.type.emptyable ? [] : key.default);
  const t = key.type;
  switch (t.kind) {
    case 'string': {
      const s = asText(raw);
      if (s === null) return bad(`expected a string, got ${showRaw(raw)}`);
      if (t.format) {
        const problem = checkFormat(t.format, s);
        if (problem) return bad(problem);
      }
      return good(s);
    }
    case 'secret': {
      if (typeof raw === 'object' && !Array.isArray(raw)) return good(JSON.stringify(raw)); // a JWK/JWKS object in JSON/YAML
      const s = asText(raw);
      return s === null ? bad('expected a string') : good(s);
    }
    case 'int': return coerceInt(t, raw);
    case 'bool': {
      const w = typeof raw === 'string' && t.words ? raw.trim().toLowerCase() : null;
      if (w !== null && w === t.words?.true) return good(true);
      if (w !== null && w === t.words?.false) return good(false);
      return coerceBool(raw);
    }
    case 'list': {
      const list = coerceList(raw, t.emptyable === true ? [] : key.default, t.uris === true);
      return list.ok && t.uris === true ? checkUriList(list.value as ReadonlyArray<string>) : list;
    }
    case 'enum': return coerceEnum(t.values, raw);
    case 'json': return parseRoutes(raw);
    case 'map': return coerceAppSettings(raw);
    default: return assertNever(t);
  }
}

function asText(raw: unknown): string | null {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  return null;
}

function coerceInt(t: Extract<KeyType, { kind: 'int' }>, raw: unknown): Coerced<number | string> {
  let n: number;
  const word = typeof raw === 'string' ? raw.trim().toLowerCase() : null;
  if (word !== null && t.words?.includes(word)) return good(word);
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw)) return bad(`expected an integer, got ${showRaw(raw)}`);
    n = raw;
  } else if (typeof raw === 'string' && /^\s*[+-]?\d+\s*$/.test(raw)) {
    n = Number(raw.trim());
  } else {
    return bad(`expected an integer${t.words ? t.words.map((w) => ` or ${w}`).join('') : ''}, got ${showRaw(raw)}`);
  }
  if (!Number.isSafeInteger(n)) return bad(`${showRaw(raw)} is too large`);
  if (n < t.min) return bad(`must be at least ${t.min}, got ${n}`);
  if (t.max !== undefined && n > t.max) return bad(`must be at most ${t.max}, got ${n}`);
  return good(n);
}

const TRUE_WORDS = new Set(['true', 'on', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'off', 'no', '0']);

function coerceBool(raw: unknown): Coerced<boolean> {
  if (typeof raw === 'boolean') return good(raw);
  if (typeof raw === 'number' && Number.isInteger(raw)) return good(raw > 0); // PostgREST: numbers > 0 are true
  if (typeof raw === 'string') {
    const w = raw.trim().toLowerCase();
    if (TRUE_WORDS.has(w)) return good(true);
    if (FALSE_WORDS.has(w)) return good(false);
  }
  return bad(`expected a boolean (true or false), got ${showRaw(raw)}`);
}

/** Between URIs in a string: spaces, or a comma before the next scheme (a multi-host URI keeps its commas). */
const URI_SEPARATOR = /\s+|,\s*(?=postgres(?:ql)?:\/\/)/;

function coerceList(raw: unknown, whenEmpty: unknown, uris = false): Coerced<unknown> {
  let items: string[];
  if (typeof raw === 'string') {
    items = uris ? raw.split(URI_SEPARATOR).map((s) => s.trim().replace(/,+$/, '')) : raw.split(',').map((s) => s.trim());
  } else if (Array.isArray(raw)) {
    items = [];
    for (const [i, item] of raw.entries()) {
      const s = asText(item);
      if (s === null) return bad(`expected a list of strings, item ${i} is ${showRaw(item)}`);
      items.push(s.trim());
    }
  } else {
    return bad(`expected a comma-separated string or a list, got ${showRaw(raw)}`);
  }
  items = items.filter((s) => s !== '');
  return good(items.length === 0 ? whenEmpty : items);
}

function coerceEnum(values: ReadonlyArray<string>, raw: unknown): Coerced<string> {
  if (typeof raw === 'number') {
    // YAML/JSON read `openapi-version: 3.1` as a number; match it numerically.
    const hit = values.find((v) => Number(v) === raw);
    if (hit !== undefined) return good(hit);
  }
  const s = asText(raw);
  if (s !== null && values.includes(s)) return good(s);
  const allowed = values.map((v) => `"${v}"`).join(', ');
  const suggestion = s === null ? undefined : closest(s.toLowerCase(), values);
  return bad(`${showRaw(raw)} is not allowed; use one of ${allowed}`, suggestion);
}

function coerceAppSettings(raw: unknown): Coerced<Record<string, string>> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad('expected an object of name → string');
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(raw)) {
    const c = coerceAppSetting(v);
    if (!c.ok) return { ok: false, issues: c.issues.map((i) => ({ ...i, path: `.${name}` })) };
    out[name] = c.value;
  }
  return good(out);
}

/** One `app.settings.<name>` value: strings, numbers and booleans become the GUC's text. */
export function coerceAppSetting(raw: unknown): Coerced<string> {
  if (typeof raw === 'string') return good(raw);
  if (typeof raw === 'number' || typeof raw === 'boolean') return good(String(raw));
  return bad(`expected a string, got ${showRaw(raw)}`);
}

// ── string formats ──────────────────────────────────────────────────────────────────────────────────────────

function checkFormat(format: StringFormat, s: string): string | null {
  switch (format) {
    case 'db-uri': return checkDbUri(s);
    case 'http-uri': return checkHttpUri(s);
    case 'string-or-uri': return s.includes(':') && !isAbsoluteUri(s) ? `${showRaw(s)} contains ':' but is not a valid URI` : null;
    case 'file-mode': return checkFileMode(s);
    case 'header-name': return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(s) ? null : `${showRaw(s)} is not a valid HTTP header name`;
    case 'docs-path': return checkDocsPath(s);
    default: return assertNever(format);
  }
}

/** The explorer's path when server-docs-path is `true`, and the embedded default's. */
export const DEFAULT_DOCS_PATH = '/_docs';

/** server-docs-path: false / "" / "false" / "off" → '' (off); true → /_docs; else a path, a trailing slash dropped. */
function coerceDocsPath(raw: unknown): Coerced<string> {
  const text = typeof raw === 'boolean' ? String(raw) : asText(raw);
  if (text === null) return bad(`expected a path such as /_docs, or false, got ${showRaw(raw)}`);
  const word = text.trim().toLowerCase();
  if (word === '' || word === 'false' || word === 'off') return good('');
  if (word === 'true' || word === 'on') return good(DEFAULT_DOCS_PATH);
  const path = text.length > 1 ? text.replace(/\/$/, '') : text;
  const problem = checkDocsPath(path);
  return problem ? bad(problem) : good(path);
}

/** One or more plain segments: no `.`/`..`, nothing to escape, and not the root (the OpenAPI document's). */
function checkDocsPath(s: string): string | null {
  if (!s.startsWith('/')) return `${showRaw(s)} must start with /, e.g. /_docs`;
  if (!/^(\/[A-Za-z0-9_~.-]+)+$/.test(s) || s.split('/').some((seg) => seg === '.' || seg === '..')) {
    return `${showRaw(s)} is not a plain path (segments of letters, digits, _ ~ . -), e.g. /_docs`;
  }
  return null;
}

/**
 * The explorer is not served under a mount prefix, nor over a mount's path: a docs path that is,
 * or lies under, or above, a group's prefix or an ungrouped mount's fixed start collides.
 */
export function docsPathCollision(docsPath: string, routes: ReadonlyArray<RouteGroup>): string | null {
  const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer + '/');
  for (const group of routes) {
    if (group.prefix !== '') {
      if (within(docsPath, group.prefix) || within(group.prefix, docsPath)) return `${docsPath} collides with the mount prefix ${group.prefix}`;
      continue;
    }
    for (const mount of group.routes) {
      // The literal start of the template, up to its first parameter.
      const segs = mount.path.split('/').filter((seg) => seg !== '');
      const stop = segs.findIndex((seg) => /^[:*{]/.test(seg));
      const fixed = '/' + (stop === -1 ? segs : segs.slice(0, stop)).join('/');
      if (fixed !== '/' && (within(docsPath, fixed) || within(fixed, docsPath))) return `${docsPath} collides with the mount ${mount.path}`;
    }
  }
  return null;
}

function isAbsoluteUri(s: string): boolean {
  if (/[\s<>"{}|\\^`]/.test(s)) return false; // characters RFC 3986 never allows unencoded
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

function checkHttpUri(s: string): string | null {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return `${showRaw(s)} is not a valid URI; for example https://example.com:8443/api`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${showRaw(s)} must start with http:// or https://`;
  if (u.hostname === '') return `${showRaw(s)} has no host`;
  return null;
}

function checkFileMode(s: string): string | null {
  if (!/^[0-7]{3,4}$/.test(s)) return `${showRaw(s)} is not an octal file mode like "660"`;
  const mode = parseInt(s, 8);
  if (mode < 0o600 || mode > 0o777) return `${showRaw(s)} must be between 600 and 777`;
  return null;
}

/** Every libpq connection parameter (PostgreSQL 18), for `key=value` strings and URI query parameters. */
export const LIBPQ_PARAMETERS: ReadonlyArray<string> = [
  'host', 'hostaddr', 'port', 'dbname', 'user', 'password', 'passfile', 'require_auth', 'channel_binding',
  'connect_timeout', 'client_encoding', 'options', 'application_name', 'fallback_application_name', 'keepalives',
  'keepalives_idle', 'keepalives_interval', 'keepalives_count', 'tcp_user_timeout', 'replication', 'gssencmode',
  'sslmode', 'requiressl', 'sslnegotiation', 'sslcompression', 'sslcert', 'sslkey', 'sslkeylogfile', 'sslpassword',
  'sslcertmode', 'sslrootcert', 'sslcrl', 'sslcrldir', 'sslsni', 'requirepeer', 'ssl_min_protocol_version',
  'ssl_max_protocol_version', 'min_protocol_version', 'max_protocol_version', 'krbsrvname', 'gsslib',
  'gssdelegation', 'service', 'target_session_attrs', 'load_balance_hosts', 'oauth_issuer', 'oauth_client_id',
  'oauth_client_secret', 'oauth_scope',
];

/**
 * A connection string as libpq recognises it (PostgREST's `pgConnString`): a `postgres://` / `postgresql://` URI,
 * or `key=value` pairs. `@path` (read the string from a file) is accepted here and resolved by the loader.
 * Returns the problem, or null.
 */
export function checkDbUri(s: string): string | null {
  if (s.startsWith('@')) return s.length > 1 ? null : '"@" must be followed by a file name';
  const uri = /^(postgres|postgresql):\/\//.exec(s);
  if (uri) return checkPgUri(s, uri[0].length);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    return `malformed connection string: the scheme must be postgres:// or postgresql:// (got ${showRaw(s.slice(0, s.indexOf('://') + 3))})`;
  }
  if (s.includes('=')) return checkKeyValue(s);
  return 'malformed connection string: use a URI like postgres://user:password@host:5432/dbname or key=value pairs like "host=localhost dbname=app"';
}

/** The parts of a postgres:// URI after the scheme; the user info ends at the last '@'. */
export function splitPgUri(rest: string): { userinfo: string; hosts: string; path: string; query: string | null } {
  const at = rest.lastIndexOf('@');
  const userinfo = at < 0 ? '' : rest.slice(0, at);
  const afterAt = rest.slice(at + 1);
  const q = afterAt.search(/[?#]/);
  const hostAndPath = q < 0 ? afterAt : afterAt.slice(0, q);
  const slash = hostAndPath.indexOf('/');
  const query = q >= 0 && afterAt[q] === '?' ? (afterAt.slice(q + 1).split('#')[0] ?? '') : null;
  return {
    userinfo,
    hosts: slash < 0 ? hostAndPath : hostAndPath.slice(0, slash),
    path: slash < 0 ? '' : hostAndPath.slice(slash + 1),
    query,
  };
}

function checkPgUri(s: string, start: number): string | null {
  if (/\s/.test(s)) return 'malformed connection string: a URI must not contain spaces (percent-encode them as %20)';
  // As libpq and PostgREST: the user info ends at the last '@' (a password may contain '?', '/' or ':').
  const { userinfo, hosts, path: dbPath, query } = splitPgUri(s.slice(start));
  for (const hp of hosts.split(',')) {
    if (hp === '' && hosts !== '') return 'malformed connection string: empty host in the host list';
    const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]*)(?::(\d*))?$/.exec(hp);
    if (!m) return `malformed connection string: cannot read host and port from ${showRaw(hp)}`;
    const port = m[2];
    if (port !== undefined && port !== '' && (Number(port) < 1 || Number(port) > 65535)) {
      return `malformed connection string: port ${port} is out of range`;
    }
  }
  try {
    decodeURIComponent(userinfo);
    decodeURIComponent(hosts);
    decodeURIComponent(dbPath);
  } catch {
    return 'malformed connection string: bad percent-encoding (write special characters in the password as %XX)';
  }
  if (query !== null) {
    for (const pair of query.split('&')) {
      if (pair === '') continue;
      const name = pair.split('=')[0] ?? '';
      let decoded: string;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        return 'malformed connection string: bad percent-encoding in the query string';
      }
      if (!LIBPQ_PARAMETERS.includes(decoded)) {
        const hint = closest(decoded, LIBPQ_PARAMETERS);
        return `malformed connection string: unknown connection parameter ${showRaw(decoded)}${hint ? ` (did you mean ${hint}?)` : ''}`;
      }
    }
  }
  return null;
}

/** db-read-uris: each item a postgres:// URI (key=value strings have spaces: they could not be listed). */
function checkUriList(items: ReadonlyArray<string>): Coerced<unknown> {
  for (const [i, item] of items.entries()) {
    const scheme = /^(postgres|postgresql):\/\//.exec(item);
    const problem = scheme ? checkPgUri(item, scheme[0].length) : 'expected a postgres:// or postgresql:// URI';
    if (problem) return bad(`item ${i + 1}: ${problem}`);
  }
  return good(items);
}

/** Parse libpq `key=value` pairs (values may be 'single quoted' with \' and \\ escapes). */
export function parseKeyValueConnString(s: string): Coerced<Array<{ key: string; value: string; start: number; end: number }>> {
  const pairs: Array<{ key: string; value: string; start: number; end: number }> = [];
  let i = 0;
  const n = s.length;
  const ws = (): void => {
    while (i < n && /\s/.test(s[i] as string)) i++;
  };
  for (;;) {
    ws();
    if (i >= n) return good(pairs);
    const keyStart = i;
    while (i < n && /[A-Za-z0-9_]/.test(s[i] as string)) i++;
    const key = s.slice(keyStart, i);
    if (key === '') return bad(`malformed connection string: expected a parameter name at ${showRaw(s.slice(i, i + 20))}`);
    ws();
    if (s[i] !== '=') return bad(`malformed connection string: missing "=" after ${showRaw(key)}`);
    i++;
    ws();
    const valueStart = i;
    let value = '';
    if (s[i] === "'") {
      i++;
      for (;;) {
        if (i >= n) return bad(`malformed connection string: unterminated quoted value for ${showRaw(key)}`);
        const c = s[i] as string;
        if (c === '\\' && i + 1 < n) {
          value += s[i + 1];
          i += 2;
          continue;
        }
        i++;
        if (c === "'") break;
        value += c;
      }
    } else {
      while (i < n && !/\s/.test(s[i] as string)) {
        if (s[i] === '\\' && i + 1 < n) {
          value += s[i + 1];
          i += 2;
          continue;
        }
        value += s[i];
        i++;
      }
    }
    pairs.push({ key, value, start: valueStart, end: i });
  }
}

function checkKeyValue(s: string): string | null {
  const parsed = parseKeyValueConnString(s);
  if (!parsed.ok) return parsed.issues[0]?.message ?? 'malformed db-uri';
  for (const { key } of parsed.value) {
    if (!LIBPQ_PARAMETERS.includes(key)) {
      const hint = closest(key, LIBPQ_PARAMETERS);
      return `malformed connection string: unknown connection parameter ${showRaw(key)}${hint ? ` (did you mean ${hint}?)` : ''}`;
    }
  }
  return null;
}

// ── routes ──────────────────────────────────────────────────────────────────────────────────────────────────

export { ROUTE_METHODS } from './routes.js';

/** The `routes` key (engine spec §5): mounts and groups of mounts; config/routes.ts has the rules. */
export function parseRoutes(raw: unknown): Coerced<RouteGroup[]> {
  return parseRouteGroups(raw, closest);
}

// ── checks across keys ──────────────────────────────────────────────────────────────────────────────────────

/** Checks that need the resolved config (several keys, or a value after `@file` was read). */
export function validateConfig(config: AppConfig, runtime: Runtime = process): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const schema of ['pg_catalog', 'information_schema']) {
    if (config.dbSchemas.includes(schema)) problems.push({ key: 'db-schemas', message: `schema ${schema} cannot be exposed` });
  }
  if (config.adminServerPort !== null && config.adminServerPort !== 0 && config.adminServerPort === config.serverPort
    && config.serverUnixSocket === null && config.adminServerUnixSocket === null) {
    problems.push({ key: 'admin-server-port', message: `cannot be the same as server-port (${config.serverPort})` });
  }
  if (config.jwtSecret !== null) {
    const problem = checkJwtSecret(config.jwtSecret, config.jwtSecretIsBase64);
    if (problem) problems.push({ key: 'jwt-secret', message: problem });
  }
  if (config.serverDocsPath) {
    const problem = docsPathCollision(config.serverDocsPath, config.routes);
    if (problem) problems.push({ key: 'server-docs-path', message: problem });
  }
  if (config.serverReuseport && config.serverUnixSocket === null) {
    const problem = reusePortUnsupported(runtime);
    if (problem) problems.push({ key: 'server-reuseport', message: problem });
  }
  return problems;
}

export interface Runtime {
  /** `process.version`: `v20.18.0`. */
  readonly version: string;
  /** `process.platform`. */
  readonly platform: string;
}

/** Where Node's listen option `reusePort` sets SO_REUSEPORT (Node's net docs list the platforms). */
const REUSEPORT_PLATFORMS = ['linux', 'freebsd', 'sunos', 'aix'];

/**
 * server-reuseport needs Node's `reusePort` listen option, new in Node 23.1 and 22.12: older Node
 * ignores it and a second instance fails with EADDRINUSE, so it is refused rather than accepted.
 */
export function reusePortUnsupported(rt: Runtime): string | null {
  const [major = 0, minor = 0] = rt.version.replace(/^v/, '').split('.').map(Number);
  if (!(major >= 23 && (major > 23 || minor >= 1)) && !(major === 22 && minor >= 12)) {
    return `needs Node 22.12 or 23.1 and later (SO_REUSEPORT through listen's reusePort option); this is Node ${rt.version}: run one instance per port, or upgrade Node`;
  }
  if (!REUSEPORT_PLATFORMS.includes(rt.platform)) {
    return `SO_REUSEPORT is not available on ${rt.platform} (Node supports it on Linux, FreeBSD, Solaris and AIX)`;
  }
  return null;
}

/** PostgREST's rule: a JWK or JWKS JSON, or a secret of at least 32 characters (after base64 decoding). */
export function checkJwtSecret(secret: string, isBase64: boolean): string | null {
  const trimmed = secret.trim();
  if (trimmed.startsWith('{')) {
    try {
      const j = JSON.parse(trimmed) as unknown;
      if (typeof j === 'object' && j !== null && ('kty' in j || 'keys' in j)) return null;
      return 'looks like JSON but is neither a JWK (with "kty") nor a JWKS (with "keys")';
    } catch {
      // not JSON: a plain secret that happens to start with '{'
    }
  }
  let length = secret.length;
  if (isBase64) {
    const b64 = trimmed.replace(/_/g, '/').replace(/-/g, '+').replace(/\./g, '=');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.replace(/=+$/, '').length % 4 === 1) {
      return 'is not valid base64 (jwt-secret-is-base64 is true)';
    }
    length = Buffer.from(b64, 'base64').length;
  }
  if (length < 32) return `must be at least 32 characters long (it has ${length})`;
  return null;
}

// ── did you mean ────────────────────────────────────────────────────────────────────────────────────────────

/** Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  const d: number[][] = Array.from({ length: m + 1 }, (_, i) => Array.from({ length: n + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      let v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = v;
    }
  }
  return (d[m] as number[])[n] as number;
}

/**
 * The closest candidate within a typo's reach, or undefined. The reach is `limit` edits, by default about one
 * edit per three characters of the input and at least two.
 */
export function closest(input: string, candidates: Iterable<string>, limit = Math.max(2, Math.floor(input.length / 3))): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const dist = editDistance(input, c);
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** `dbMaxRows`, `DB_MAX_ROWS`, `db_max_rows` → `db-max-rows`. */
function normaliseKeySpelling(s: string): string {
  return s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/_/g, '-').toLowerCase();
}

/** The config key an unknown key was probably meant to be. */
export function suggestKey(unknown: string): string | undefined {
  const names = CONFIG_KEYS.filter((k) => k !== APP_SETTINGS_KEY).flatMap((k) => [k.name, ...k.aliases]);
  if (unknown.startsWith('app.setting') || unknown.startsWith('app-setting') || unknown.startsWith('app_setting')) {
    const rest = unknown.replace(/^app[._-]settings?[._-]?/, '');
    return `app.settings.${rest}`;
  }
  const normal = normaliseKeySpelling(unknown);
  const hit = closest(normal, names);
  if (hit === undefined) return undefined;
  // Report the canonical name even when the alias was closer.
  return CONFIG_KEYS.find((k) => k.name === hit || k.aliases.includes(hit))?.name ?? hit;
}

/**
 * For an unknown `DBREST_*` variable: the env name it was probably meant to be. Only near misses (two edits in
 * the part after `DBREST_`) count, so unrelated variables such as DBREST_TEST_DB_URI are not mistaken for typos.
 */
export function suggestEnvName(unknown: string): string | undefined {
  const prefix = 'DBREST_';
  if (!unknown.startsWith(prefix)) return undefined;
  const suffixes = CONFIG_KEYS.filter((k) => k !== APP_SETTINGS_KEY).flatMap((k) => envNames(k).dbrest).map((n) => n.slice(prefix.length));
  const hit = closest(unknown.slice(prefix.length), suffixes, 2);
  return hit === undefined ? undefined : prefix + hit;
}

function assertNever(x: never): never {
  throw new Error(`unexpected value ${JSON.stringify(x)}`);
}
