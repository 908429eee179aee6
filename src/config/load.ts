// Resolve the configuration from its four sources, per key:
//
//   flags  >  DBREST_* env  >  PGRST_* env  >  config file  >  defaults
//
// The file is found by cosmiconfig (module name `dbrest`) or named explicitly; PostgREST's `.conf` syntax is read
// by conf-syntax.ts. Every user mistake becomes a ConfigProblem — loadConfig never throws for bad input — and every
// key records where its value came from, for `check-config`. This module does the I/O; the rules live in keys.ts
// and validate.ts.

import { readFile, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cosmiconfig, getDefaultSearchPlaces } from 'cosmiconfig';

import { parseConf } from './conf-syntax.js';
import {
  APP_SETTINGS_KEY, APP_SETTINGS_PREFIX, APP_SETTING_FLAG_FIELD, DBREST_ENV_PREFIX, PGRST_ENV_PREFIX, SCALAR_KEYS,
  IGNORED_KEYS, envNames, envSuffix, findKey, flagName, type ConfigKey,
} from './keys.js';
import type { AppConfig } from './types.js';
import {
  checkDbUri, closest, coerceAppSetting, coerceValue, suggestEnvName, suggestKey, validateConfig, type ConfigProblem,
} from './validate.js';

export type ConfigSource = 'default' | 'file' | 'env' | 'flag';

export interface LoadConfigOptions {
  /** A config file named on the command line; when absent cosmiconfig searches `cwd`. */
  readonly file?: string | undefined;
  /** Search `cwd` for a config file when none is named (default true; tests pass false). */
  readonly search?: boolean | undefined;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Flag values keyed by AppConfig field (commander's camelCase: `dbMaxRows`), plus `appSetting: ['k=v', …]`. */
  readonly flags: Readonly<Record<string, unknown>>;
}

export interface LoadedConfig {
  readonly config: AppConfig;
  /** Per key name (`db-pool`, `app.settings.region`): which source won. */
  readonly sources: Readonly<Record<string, ConfigSource>>;
  /** Per key name: the winning source in detail (`DBREST_DB_POOL`, `--db-pool`, the file path, `default`). */
  readonly origins: Readonly<Record<string, string>>;
  /** Absolute path of the config file read, or null. */
  readonly file: string | null;
  /** Empty when the config is usable. */
  readonly problems: ReadonlyArray<ConfigProblem>;
  /** PostgREST keys that were read and ignored (IGNORED_KEYS), one line each: `raw-media-types: ignored: …`. */
  readonly warnings?: ReadonlyArray<string>;
}

/** Where cosmiconfig looks in `cwd` (its defaults for `dbrest`, plus json/yaml/.conf spellings of dbrest.config). */
export const SEARCH_PLACES: ReadonlyArray<string> = [
  ...getDefaultSearchPlaces('dbrest'),
  'dbrest.config.json', 'dbrest.config.yaml', 'dbrest.config.yml', 'dbrest.conf',
];

interface RawEntry {
  readonly value: unknown;
  readonly source: Exclude<ConfigSource, 'default'>;
  /** For messages and `origins`: the file path, `DBREST_DB_POOL`, `--db-pool`. */
  readonly origin: string;
}

export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const scalars = new Map<ConfigKey, RawEntry[]>();
  const appSettings = new Map<string, RawEntry[]>();
  const push = <K>(map: Map<K, RawEntry[]>, k: K, e: RawEntry): void => {
    const list = map.get(k);
    if (list) list.push(e);
    else map.set(k, [e]);
  };

  // 1. The file (lowest precedence after defaults).
  const fileResult = await readConfigFile(opts);
  problems.push(...fileResult.problems);
  if (fileResult.object) {
    const label = displayPath(fileResult.file as string, opts.cwd);
    collectFileEntries(fileResult.object, label, problems, warnings,
      (k, value) => push(scalars, k, { value, source: 'file', origin: label }),
      (name, value) => push(appSettings, name, { value, source: 'file', origin: label }));
  }

  // 2. PGRST_* then DBREST_* environment variables (DBREST_ wins).
  for (const prefix of [PGRST_ENV_PREFIX, DBREST_ENV_PREFIX]) {
    for (const k of SCALAR_KEYS) {
      const names = prefix === PGRST_ENV_PREFIX ? envNames(k).pgrst : envNames(k).dbrest;
      const name = names.find((n) => opts.env[n] !== undefined);
      if (name !== undefined) push(scalars, k, { value: opts.env[name], source: 'env', origin: name });
    }
    const appPrefix = `${prefix}APP_SETTINGS_`;
    for (const [name, value] of Object.entries(opts.env)) {
      if (value === undefined || !name.startsWith(appPrefix) || name.length === appPrefix.length) continue;
      // GUC names are case-insensitive; PostgreSQL folds them to lower case.
      push(appSettings, name.slice(appPrefix.length).toLowerCase(), { value, source: 'env', origin: name });
    }
  }
  problems.push(...unknownDbrestEnv(opts.env));
  for (const [name, why] of IGNORED_KEYS) {
    for (const env of [PGRST_ENV_PREFIX, DBREST_ENV_PREFIX].map((p) => p + envSuffix(name))) {
      if (opts.env[env] !== undefined) warnings.push(`${name}: ${why} (from ${env})`);
    }
  }

  // 3. Flags (highest precedence).
  collectFlags(opts.flags, problems,
    (k, value, origin) => push(scalars, k, { value, source: 'flag', origin }),
    (name, value, origin) => push(appSettings, name, { value, source: 'flag', origin }));

  // 4. Coerce and pick, per key.
  const values: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};
  const origins: Record<string, string> = {};
  for (const k of SCALAR_KEYS) {
    const entries = scalars.get(k) ?? [];
    let value: unknown = k.default;
    for (const [i, raw] of entries.entries()) {
      // `routes` may name a file of routes, next to the config file (or the working directory).
      const e = k.field === 'routes' ? readRoutesFile(raw, raw.source === 'file' && fileResult.file ? path.dirname(fileResult.file) : opts.cwd, problems) : raw;
      if (e === null) continue;
      const c = coerceValue(k, e.value);
      const winner = i === entries.length - 1;
      if (c.ok) {
        if (winner) value = c.value;
      } else {
        for (const issue of c.issues) {
          problems.push({
            key: k.name + (issue.path ?? ''),
            message: `${issue.message} (from ${describeOrigin(e)})`,
            ...(issue.suggestion !== undefined ? { suggestion: issue.suggestion } : {}),
          });
        }
      }
    }
    const last = entries.at(-1);
    values[k.field] = value;
    sources[k.name] = last?.source ?? 'default';
    origins[k.name] = last?.origin ?? 'default';
  }
  const settings: Record<string, string> = {};
  for (const name of [...appSettings.keys()].sort()) {
    const entries = appSettings.get(name) as RawEntry[];
    const keyName = APP_SETTINGS_PREFIX + name;
    for (const [i, e] of entries.entries()) {
      const c = coerceAppSetting(e.value);
      if (c.ok) {
        if (i === entries.length - 1) settings[name] = c.value;
      } else {
        problems.push({ key: keyName, message: `${c.issues[0]?.message ?? 'invalid value'} (from ${describeOrigin(e)})` });
      }
    }
    const last = entries.at(-1) as RawEntry;
    sources[keyName] = last.source;
    origins[keyName] = last.origin;
  }
  values[APP_SETTINGS_KEY.field] = settings;

  // 5. `@file` values (PostgREST: db-uri and jwt-secret may be read from a file). A name written in
  // the config file is relative to that file's directory, as `routes` is; one from env or a flag to cwd.
  const baseDir = (keyName: string) => (sources[keyName] === 'file' && fileResult.file ? path.dirname(fileResult.file) : opts.cwd);
  resolveAtFile(values, 'dbUri', 'db-uri', baseDir('db-uri'), problems, (s) => s.trim());
  resolveAtFile(values, 'dbChannelUri', 'db-channel-uri', baseDir('db-channel-uri'), problems, (s) => s.trim());
  resolveAtFile(values, 'jwtSecret', 'jwt-secret', baseDir('jwt-secret'), problems, (s) => s.replace(/\r?\n$/, ''));

  const config = values as unknown as AppConfig;
  // Checks across keys only make sense once each key is valid on its own.
  const invalid = new Set(problems.map((p) => p.key.replace(/[[.].*$/, '')));
  for (const p of validateConfig(config)) if (!invalid.has(p.key)) problems.push(p);

  return { config, sources, origins, file: fileResult.file, problems, warnings };
}

function describeOrigin(e: RawEntry): string {
  switch (e.source) {
    case 'file': return e.origin;
    case 'env': return `env ${e.origin}`;
    case 'flag': return `flag ${e.origin}`;
  }
}

function displayPath(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

// ── the file ────────────────────────────────────────────────────────────────────────────────────────────────

interface FileResult {
  readonly file: string | null;
  readonly object: Record<string, unknown> | null;
  readonly problems: ConfigProblem[];
}

const COSMICONFIG_EXTENSIONS = new Set(['.json', '.yaml', '.yml', '.js', '.cjs', '.mjs', '.ts']);

async function readConfigFile(opts: LoadConfigOptions): Promise<FileResult> {
  const explorer = cosmiconfig('dbrest', {
    searchPlaces: [...SEARCH_PLACES],
    searchStrategy: 'none',
    cache: false,
    loaders: {
      '.conf': (filepath: string, content: string) => parseConfOrThrow(filepath, content, opts.env),
    },
  });

  if (opts.file === undefined || opts.file === '') {
    if (opts.search === false) return { file: null, object: null, problems: [] };
    try {
      const found = await explorer.search(opts.cwd);
      if (!found) return { file: null, object: null, problems: [] };
      return asObject(found.filepath, found.isEmpty ? {} : found.config);
    } catch (e) {
      const filepath = (e as { filepath?: string }).filepath ?? null;
      return { file: filepath, object: null, problems: [{ key: 'config-file', message: oneLine(e) }] };
    }
  }

  const file = path.resolve(opts.cwd, opts.file);
  const fail = (message: string): FileResult => ({ file, object: null, problems: [{ key: 'config-file', message }] });
  let text: string;
  try {
    const st = await stat(file);
    if (st.isDirectory()) return fail(`cannot read ${file}: it is a directory`);
    text = await readFile(file, 'utf8');
  } catch (e) {
    return fail(`cannot read ${file}: ${describeFsError(e)}`);
  }

  const ext = path.extname(file).toLowerCase();
  if (ext === '.conf' || (!COSMICONFIG_EXTENSIONS.has(ext) && looksLikeConf(text))) {
    const parsed = parseConf(text, { env: opts.env, readImport: (p) => readFileSync(path.resolve(path.dirname(file), p), 'utf8') });
    if (!parsed.ok) {
      const { line, column, message } = parsed.error;
      return fail(`${file}, line ${line}, column ${column}: ${message}`);
    }
    return asObject(file, parsed.value);
  }
  if (ext !== '' && !COSMICONFIG_EXTENSIONS.has(ext)) {
    return fail(`unsupported config file type "${ext}" (use .json, .yaml, .yml, .js, .cjs, .mjs, .ts or PostgREST's .conf)`);
  }
  try {
    const loaded = await explorer.load(file);
    return asObject(file, loaded === null || loaded.isEmpty ? {} : loaded.config);
  } catch (e) {
    return fail(oneLine(e, file));
  }
}

function asObject(file: string, value: unknown): FileResult {
  if (value === null || value === undefined) return { file, object: {}, problems: [] };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { file, object: null, problems: [{ key: 'config-file', message: `${file} must contain an object of keys and values, not ${Array.isArray(value) ? 'a list' : typeof value}` }] };
  }
  return { file, object: value as Record<string, unknown>, problems: [] };
}

/** A `key = value` file in PostgREST's syntax, whatever its extension (`postgrest.conf`, `/etc/postgrest/config`). */
function looksLikeConf(text: string): boolean {
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    return /^[\p{L}][\p{L}\p{N}_.-]*\s*(=|\{)/u.test(t) || t.startsWith('import ');
  }
  return false;
}

function parseConfOrThrow(filepath: string, content: string, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const parsed = parseConf(content, { env, readImport: (p) => readFileSync(path.resolve(path.dirname(filepath), p), 'utf8') });
  if (!parsed.ok) {
    const { line, column, message } = parsed.error;
    throw Object.assign(new Error(`${filepath}, line ${line}, column ${column}: ${message}`), { filepath });
  }
  return { ...parsed.value };
}

function describeFsError(e: unknown): string {
  const code = (e as { code?: string }).code;
  switch (code) {
    case 'ENOENT': return 'no such file';
    case 'EACCES':
    case 'EPERM': return 'permission denied';
    case 'EISDIR': return 'it is a directory';
    case 'ENOTDIR': return 'a part of the path is not a directory';
    default: return oneLine(e);
  }
}

/** Errors from loaders (JSON, YAML, JS) come with code frames over several lines; keep one readable line. */
function oneLine(e: unknown, file?: string): string {
  const raw = e instanceof Error ? e.message : String(e);
  const lines = raw.split(/\r?\n/).map((l) => l.trim())
    .filter((l) => l !== '' && !/^(>\s*)?\d+\s*\|/.test(l) && !/^\|/.test(l) && !/^\^+$/.test(l));
  let msg = lines.join(' ').replace(/\s+/g, ' ');
  if (file && !msg.includes(file)) msg = `${file}: ${msg}`;
  return msg;
}

/** Walk the file's object: canonical keys, aliases, camelCase fields, and the `app.settings.*` family in any nesting. */
function collectFileEntries(
  obj: Record<string, unknown>,
  label: string,
  problems: ConfigProblem[],
  warnings: string[],
  onKey: (k: ConfigKey, value: unknown) => void,
  onAppSetting: (name: string, value: unknown) => void,
): void {
  const via = new Map<ConfigKey, 'name' | 'alias' | 'field'>();
  const settingsObject = (prefix: string, v: unknown): void => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      problems.push({ key: prefix.replace(/\.$/, ''), message: `expected an object of settings, got ${JSON.stringify(v)} (from ${label})` });
      return;
    }
    for (const [name, value] of Object.entries(v)) onAppSetting(name, value);
  };
  for (const [k, v] of Object.entries(obj)) {
    if (k === '$schema' || k === '$import') continue;
    if (k.startsWith(APP_SETTINGS_PREFIX) && k.length > APP_SETTINGS_PREFIX.length) {
      onAppSetting(k.slice(APP_SETTINGS_PREFIX.length), v);
      continue;
    }
    if (k === 'app.settings' || k === 'appSettings') {
      settingsObject('app.settings', v);
      continue;
    }
    if (k === 'app' && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      for (const [sub, sv] of Object.entries(v)) {
        if (sub === 'settings') settingsObject('app.settings', sv);
        else problems.push({ key: `app.${sub}`, message: `unknown key (in ${label})`, suggestion: 'app.settings' });
      }
      continue;
    }
    const ignored = IGNORED_KEYS.get(k);
    if (ignored !== undefined) {
      warnings.push(`${k}: ${ignored} (in ${label})`);
      continue;
    }
    const found = findKey(k);
    if (!found) {
      const suggestion = suggestKey(k);
      problems.push({ key: k, message: `unknown key (in ${label})`, ...(suggestion !== undefined ? { suggestion } : {}) });
      continue;
    }
    // PostgREST reads the canonical name first and the old alias only when the canonical one is absent.
    const previous = via.get(found.key);
    if (previous === 'name' || (previous !== undefined && found.via === 'alias')) continue;
    via.set(found.key, found.via);
    onKey(found.key, v);
  }
}

// ── env and flags ───────────────────────────────────────────────────────────────────────────────────────────

/**
 * DBREST_* variables that are not config keys. Only near-misses of a real name are reported (a typo like
 * DBREST_DB_SHEMAS); other DBREST_* variables may belong to scripts and tests and are left alone.
 */
function unknownDbrestEnv(env: NodeJS.ProcessEnv): ConfigProblem[] {
  const known = new Set(SCALAR_KEYS.flatMap((k) => envNames(k).dbrest));
  const problems: ConfigProblem[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith(DBREST_ENV_PREFIX) || known.has(name)) continue;
    if (name.startsWith(`${DBREST_ENV_PREFIX}APP_SETTINGS_`)) continue;
    const suggestion = suggestEnvName(name);
    if (suggestion !== undefined) problems.push({ key: name, message: 'unknown environment variable', suggestion });
  }
  return problems;
}

function collectFlags(
  flags: Readonly<Record<string, unknown>>,
  problems: ConfigProblem[],
  onKey: (k: ConfigKey, value: unknown, origin: string) => void,
  onAppSetting: (name: string, value: unknown, origin: string) => void,
): void {
  for (const [name, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    if (name === APP_SETTING_FLAG_FIELD) {
      for (const item of Array.isArray(value) ? value : [value]) {
        const m = typeof item === 'string' ? /^\s*(?:app\.settings\.)?([^=\s]+)\s*=(.*)$/s.exec(item) : null;
        if (!m) {
          problems.push({ key: 'app.settings.*', message: `expected --app-setting name=value, got ${JSON.stringify(item)}` });
          continue;
        }
        onAppSetting((m[1] as string).toLowerCase(), m[2] as string, '--app-setting');
      }
      continue;
    }
    const found = findKey(name);
    if (!found || found.key === APP_SETTINGS_KEY) {
      const suggestion = closest(name, SCALAR_KEYS.map((k) => k.field));
      problems.push({ key: name, message: 'unknown flag', ...(suggestion !== undefined ? { suggestion } : {}) });
      continue;
    }
    onKey(found.key, value, flagName(found.key));
  }
}

// ── routes file ─────────────────────────────────────────────────────────────────────────────────────────────

/**
 * A `routes` value that is a file name (`routes.json`, `@routes.json`) rather than JSON: the file's JSON
 * replaces it. Relative names are resolved against `baseDir`. Null (with a problem) when unreadable.
 */
function readRoutesFile(e: RawEntry, baseDir: string, problems: ConfigProblem[]): RawEntry | null {
  if (typeof e.value !== 'string') return e;
  const text = e.value.trim();
  if (text === '' || text.startsWith('[') || text.startsWith('{')) return e;
  const file = path.resolve(baseDir, text.startsWith('@') ? text.slice(1) : text);
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push({ key: 'routes', message: `cannot read the routes file ${text}: ${describeFsError(err)} (from ${describeOrigin(e)})` });
    return null;
  }
  try {
    return { ...e, value: JSON.parse(content) as unknown, origin: `${e.origin} → ${text}` };
  } catch (err) {
    problems.push({ key: 'routes', message: `the routes file ${text} is not valid JSON: ${(err as Error).message}` });
    return null;
  }
}

// ── @file ───────────────────────────────────────────────────────────────────────────────────────────────────

function resolveAtFile(
  values: Record<string, unknown>,
  field: 'dbUri' | 'dbChannelUri' | 'jwtSecret',
  keyName: string,
  baseDir: string,
  problems: ConfigProblem[],
  clean: (s: string) => string,
): void {
  const v = values[field];
  if (typeof v !== 'string' || !v.startsWith('@') || v.length < 2) return;
  const file = path.resolve(baseDir, v.slice(1));
  let content: string;
  try {
    content = clean(readFileSync(file, 'utf8'));
  } catch (e) {
    problems.push({ key: keyName, message: `cannot read ${v}: ${describeFsError(e)}` });
    values[field] = null;
    return;
  }
  if (field === 'dbUri' || field === 'dbChannelUri') {
    const problem = content === '' ? `${v} is empty` : checkDbUri(content);
    if (problem) problems.push({ key: keyName, message: `${problem} (in ${v})` });
  }
  values[field] = content === '' ? null : content;
}
