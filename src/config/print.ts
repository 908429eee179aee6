// Rendering the resolved configuration and its problems for `dbrest check-config`:
//
//   db-pool = 10                                   (default)
//   db-uri = "postgres://app:********@db/app"      (env DBREST_DB_URI)
//   jwt-secret = ********                          (file dbrest.conf)
//
// Values are written in PostgREST's `.conf` syntax; secrets are masked. Colours come from chalk, which turns
// itself off for pipes and honours FORCE_COLOR; chalk 5 ignores NO_COLOR (https://no-color.org), so chalkFor
// adds that. Nothing here forces colours on.

import chalk, { Chalk, chalkStderr, type ChalkInstance } from 'chalk';

import { APP_SETTINGS_PREFIX, SCALAR_KEYS, type ConfigKey } from './keys.js';
import type { LoadedConfig } from './load.js';
import type { AppConfig, RouteGroup } from './types.js';
import { parseKeyValueConnString, type ConfigProblem } from './validate.js';

export const MASK = '********';

/** `postgres://user:secret@host/db` → `postgres://user:********@host/db`; `password=x` in key=value strings and URI queries too. */
export function maskDbUri(uri: string): string {
  if (/^(postgres|postgresql):\/\//.test(uri)) {
    const schemeEnd = uri.indexOf('://') + 3;
    const rest = uri.slice(schemeEnd);
    // The user info ends at the last '@' (a password may contain '?', '/' or ':'), as libpq reads it.
    const at = rest.lastIndexOf('@');
    let userinfo = at < 0 ? '' : rest.slice(0, at + 1);
    const colon = userinfo.indexOf(':');
    if (colon >= 0) userinfo = `${userinfo.slice(0, colon)}:${MASK}@`;
    const after = rest.slice(at + 1).replace(/([?&]password=)[^&#]*/gi, `$1${MASK}`);
    return uri.slice(0, schemeEnd) + userinfo + after;
  }
  if (uri.includes('=')) {
    const parsed = parseKeyValueConnString(uri);
    if (!parsed.ok) return uri.replace(/(password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)/gi, `$1${MASK}`);
    let out = uri;
    for (const p of [...parsed.value].reverse()) {
      if (p.key === 'password') out = out.slice(0, p.start) + MASK + out.slice(p.end);
    }
    return out;
  }
  return uri;
}

/** An app.settings name that probably holds a secret. */
const SECRET_SETTING = /secret|password|passwd|token|private|credential|api[-_]?key/i;

const quote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r')}"`;

/** One value in `.conf` syntax, masked when the key is secret. Unset values print as `""`, as PostgREST's dump does. */
export function formatValue(key: ConfigKey, value: unknown): string {
  if (value === null || value === undefined) return '""';
  if (key.secret === 'value') return MASK;
  if (key.secret === 'uri-password' && typeof value === 'string') return quote(maskDbUri(value));
  if (key.secret === 'uri-password' && Array.isArray(value)) return quote(value.map((v) => maskDbUri(String(v))).join(','));
  switch (key.type.kind) {
    case 'int':
    case 'bool': return String(value);
    case 'list': return quote((value as ReadonlyArray<string>).join(','));
    case 'json': return quote(JSON.stringify(value));
    default: return quote(String(value));
  }
}

export function formatAppSetting(name: string, value: string): string {
  return SECRET_SETTING.test(name) ? MASK : quote(value);
}

export interface RenderOptions {
  /** A chalk instance; defaults to chalkFor('stdout'). */
  readonly chalk?: ChalkInstance;
  /**
   * What `serve` would really use when it differs from the loaded config (the embedded default's
   * anonymous role and mounts); `sources` then names where each changed key comes from.
   */
  readonly effective?: { readonly config: AppConfig; readonly sources: Readonly<Record<string, string>> };
  /** The route mounts by the file they come from (default: all of them from the `routes` key's origin). */
  readonly routeSources?: ReadonlyArray<{ readonly source: string; readonly groups: ReadonlyArray<RouteGroup> }>;
}

/** chalk's detection for the stream (TTY, FORCE_COLOR, --no-color), switched off by a non-empty NO_COLOR. */
export function chalkFor(stream: 'stdout' | 'stderr', env: NodeJS.ProcessEnv = process.env): ChalkInstance {
  const noColor = env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '';
  if (noColor && env['FORCE_COLOR'] === undefined) return new Chalk({ level: 0 });
  return stream === 'stdout' ? chalk : chalkStderr;
}

/** The resolved config: one line per key, sorted, `key = value   (source)`. */
export function renderConfig(loaded: LoadedConfig, options: RenderOptions = {}): string {
  const c = options.chalk ?? chalkFor('stdout');
  const config = options.effective?.config ?? loaded.config;
  const rows: Array<{ name: string; value: string; masked: boolean; source: string; fromDefault: boolean }> = [];
  for (const k of SCALAR_KEYS) {
    const value = (config as unknown as Record<string, unknown>)[k.field];
    const override = options.effective?.sources[k.name];
    rows.push({
      name: k.name,
      // Mounts are listed one per line below the keys.
      value: k.field === 'routes' && config.routes.length > 0 ? `${countMounts(config.routes)} mounts, listed below` : formatValue(k, value),
      masked: k.secret !== 'none' && value !== null,
      source: override ?? describeSource(loaded, k.name),
      fromDefault: override === undefined && (loaded.sources[k.name] ?? 'default') === 'default',
    });
  }
  for (const [name, value] of Object.entries(loaded.config.appSettings)) {
    const keyName = APP_SETTINGS_PREFIX + name;
    rows.push({
      name: keyName,
      value: formatAppSetting(name, value),
      masked: SECRET_SETTING.test(name),
      source: describeSource(loaded, keyName),
      fromDefault: false,
    });
  }
  rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const width = Math.min(72, Math.max(...rows.map((r) => r.name.length + 3 + r.value.length)));
  const header = loaded.file === null
    ? c.dim('# no config file; defaults, environment and flags')
    : c.dim(`# config file: ${loaded.file}`);
  const lines = rows.map((r) => {
    const plain = `${r.name} = ${r.value}`;
    const pad = ' '.repeat(Math.max(1, width - plain.length + 3));
    const value = r.masked ? c.yellow(r.value) : r.fromDefault ? r.value : c.green(r.value);
    return `${c.cyan(r.name)} = ${value}${pad}${c.dim(`(${r.source})`)}`;
  });
  const routes = config.routes.length > 0
    ? ['', c.bold('routes:'), ...renderRoutes(options.routeSources ?? [{ source: describeSource(loaded, 'routes'), groups: config.routes }], c)]
    : [];
  return [header, ...lines, ...routes].join('\n') + '\n';
}

const countMounts = (groups: ReadonlyArray<RouteGroup>) => groups.reduce((n, g) => n + g.routes.length, 0);

/** One line per mount: `GET  /api/v2/pages/  → call content.pages  (examples/content/routes.json)`. */
export function renderRoutes(sources: NonNullable<RenderOptions['routeSources']>, c: ChalkInstance = chalkFor('stdout')): string[] {
  const rows = sources.flatMap(({ source, groups }) => groups.flatMap((g) => g.routes.map((m) => {
    const name = g.schema !== null && !m.target.name.includes('.') ? `${g.schema}.${m.target.name}` : m.target.name;
    return { method: m.methods.join(','), path: m.path, target: `${m.target.kind} ${name}`, source };
  })));
  const [method, at, target] = (['method', 'path', 'target'] as const).map((key) => Math.max(...rows.map((r) => r[key].length))) as [number, number, number];
  return rows.map((r) => `  ${r.method.padEnd(method)}  ${c.green(r.path.padEnd(at))}  → ${r.target.padEnd(target)}  ${c.dim(`(${r.source})`)}`);
}

function describeSource(loaded: LoadedConfig, keyName: string): string {
  const source = loaded.sources[keyName] ?? 'default';
  const origin = loaded.origins[keyName];
  switch (source) {
    case 'default': return 'default';
    case 'file': return 'file';
    case 'env': return origin ? `env ${origin}` : 'env';
    case 'flag': return origin ? `flag ${origin}` : 'flag';
  }
}

/** `✖ db-shemas: unknown key (in dbrest.conf) (did you mean db-schemas?)` */
export function formatProblem(p: ConfigProblem, options: RenderOptions = {}): string {
  const c = options.chalk ?? chalkFor('stderr');
  const hint = p.suggestion !== undefined ? ` (did you mean ${p.suggestion}?)` : '';
  return c.red(`✖ ${p.key}: ${p.message}${hint}`);
}

export function renderProblems(problems: ReadonlyArray<ConfigProblem>, options: RenderOptions = {}): string {
  return problems.map((p) => formatProblem(p, options)).join('\n') + (problems.length > 0 ? '\n' : '');
}
