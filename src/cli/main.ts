// The `dbrest` command line (commander): `serve`, `introspect`, `check-config`, `openapi`, `doctor`, `db-uri`, `--help`, `--version`.
// Every config key in keys.ts is also a flag of each command. Wiring only: load the config, report its problems,
// then hand over to the command's module. A user error is one line on stderr and exit code 1, never a stack trace.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import chalk from 'chalk';
import { Command, CommanderError, Option } from 'commander';

import {
  APP_SETTINGS_KEY, APP_SETTING_FLAG_FIELD, SCALAR_KEYS, envNames, flagName, type ConfigKey,
} from '../config/keys.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { reportProblems, runCheckConfig, type CliIo } from './check-config.js';

export type { CliIo };

/** What every command module receives besides the config. */
export interface CommandContext {
  readonly io: CliIo;
  /** Re-read the config from the same file, env and flags (for SIGUSR2 / NOTIFY 'reload config'). */
  readonly reload: () => Promise<LoadedConfig>;
}

export interface IntrospectOptions extends CommandContext {
  readonly schema?: string | undefined;
  readonly json: boolean;
}


const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env });

/** The package version, from the package.json above this file (src/cli or dist/src/cli). */
export function readVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'dbrest' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
}

/** Help headings, in the order they are shown; a key goes under the longest matching prefix. */
const GROUPS: ReadonlyArray<[prefix: string, heading: string]> = [
  ['db-', 'Database options:'],
  ['jwt-', 'JWT options:'],
  ['server-', 'Server options:'],
  ['admin-server-', 'Admin server options:'],
  ['openapi-', 'OpenAPI options:'],
  ['log-', 'Logging options:'],
  ['', 'Other options:'],
];

function groupIndex(k: ConfigKey): number {
  let index = GROUPS.length - 1;
  let best = -1;
  GROUPS.forEach(([prefix], i) => {
    if (k.name.startsWith(prefix) && prefix.length > best) {
      index = i;
      best = prefix.length;
    }
  });
  return index;
}

function placeholder(k: ConfigKey): string {
  switch (k.type.kind) {
    case 'int': return 'n';
    case 'list': return 'a,b';
    case 'json': return 'json';
    case 'secret': return 'secret';
    default: return k.name === 'db-uri' ? 'uri' : 'value';
  }
}

function showDefault(k: ConfigKey): string | null {
  const d = k.default as unknown;
  if (d === null || (Array.isArray(d) && d.length === 0)) return null;
  return Array.isArray(d) ? d.join(',') : String(d);
}

/** Add one flag per config key (and `--app-setting name=value`) to a command. */
function addConfigOptions(cmd: Command): Command {
  const keys = [...SCALAR_KEYS].sort((a, b) => groupIndex(a) - groupIndex(b) || (a.name < b.name ? -1 : 1));
  for (const k of keys) {
    const flags = k.type.kind === 'bool' ? `${flagName(k)} [bool]` : `${flagName(k)} <${placeholder(k)}>`;
    const def = showDefault(k);
    const env = envNames(k).dbrest[0] as string;
    const values = k.type.kind === 'enum' ? ` One of: ${k.type.values.join(', ')}.` : '';
    const description = `${k.doc}${values}${def !== null ? ` (default: ${def})` : ''} [env ${env}]`;
    cmd.addOption(new Option(flags, description).helpGroup((GROUPS[groupIndex(k)] as [string, string])[1]));
  }
  cmd.addOption(
    new Option(`${flagName(APP_SETTINGS_KEY)} <name=value>`, `Set app.settings.<name> (repeatable). ${APP_SETTINGS_KEY.doc}`)
      .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
      .helpGroup((GROUPS[GROUPS.length - 1] as [string, string])[1]),
  );
  return cmd;
}

/** The config flags among a command's options, keyed as loadConfig expects (camelCase field names). */
function configFlags(opts: Record<string, unknown>): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const k of SCALAR_KEYS) if (opts[k.field] !== undefined) flags[k.field] = opts[k.field];
  if (opts[APP_SETTING_FLAG_FIELD] !== undefined) flags[APP_SETTING_FLAG_FIELD] = opts[APP_SETTING_FLAG_FIELD];
  return flags;
}

/**
 * Run the CLI. `argv` is `process.argv` (node, script, args…). Returns the exit code: 0 on success, 1 on any
 * error (usage, config problems, failures). Output goes to `io` (the process streams by default).
 */
export async function run(argv: ReadonlyArray<string>, io: CliIo = processIo()): Promise<number> {
  let exitCode = 0;
  // chalk 5 ignores NO_COLOR (https://no-color.org); the logs and serve output use the global instance.
  if (process.env['NO_COLOR'] && !process.env['FORCE_COLOR']) chalk.level = 0;

  const program = new Command('dbrest')
    .description('A PostgREST-compatible REST server for PostgreSQL.')
    .version(readVersion(), '-v, --version', 'print the dbrest version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
      // commander puts "(Did you mean …?)" on a second line; keep each error on one line.
      outputError: (s, write) => write(`${s.trim().replace(/\s*\n\s*/g, ' ')}\n`),
    });

  const withConfig = async (
    file: string | undefined,
    opts: Record<string, unknown>,
    next: (loaded: LoadedConfig, ctx: CommandContext) => Promise<number> | number,
  ): Promise<number> => {
    const flags = configFlags(opts);
    const load = (): Promise<LoadedConfig> => loadConfig({ file, cwd: io.cwd, env: io.env, flags });
    const loaded = await load();
    for (const w of loaded.warnings ?? []) io.stderr.write(`⚠ ${w}\n`);
    if (reportProblems(loaded, io) !== 0) return 1;
    return next(loaded, { io, reload: load });
  };

  const configFileArg = 'config file (JSON, YAML, JS or PostgREST .conf); searched for when omitted';

  addConfigOptions(
    program.command('serve')
      .description('serve the REST API (starts an embedded PostgreSQL when db-uri is unset)')
      .argument('[config-file]', configFileArg)
      .option('--watch', 'reload on every change: the config file when it changes (as SIGUSR2), and the schema cache on DDL (db-schema-watch on unless set)', false),
  ).action(async (file: string | undefined, opts: Record<string, unknown>) => {
    exitCode = await withConfig(file, opts, async (loaded, ctx) =>
      // Loaded on demand: check-config and --help need none of the server's modules.
      (await import('./serve.js')).runServe(loaded.config, loaded, { ...ctx, watch: opts['watch'] === true }));
  });

  addConfigOptions(
    program.command('introspect')
      .description('build the schema cache and print it')
      .argument('[config-file]', configFileArg)
      .option('--schema <schema>', 'only this schema')
      .option('--json', 'print JSON instead of a readable summary', false),
  ).action(async (file: string | undefined, opts: Record<string, unknown>) => {
    exitCode = await withConfig(file, opts, async (loaded, ctx) =>
      (await import('./introspect.js')).runIntrospect(loaded.config, loaded, {
        ...ctx,
        schema: typeof opts['schema'] === 'string' ? opts['schema'] : undefined,
        json: opts['json'] === true,
      }));
  });

  addConfigOptions(
    program.command('types')
      .description('print TypeScript types of the exposed schemas, for a typed @supabase/postgrest-js client')
      .argument('[config-file]', configFileArg)
      .option('--schema <schema>', 'only these schemas (repeatable, or a comma list); the first is the default', (v: string, prev: string[] = []) => [...prev, v])
      .option('--output <file>', 'write the types to this file instead of stdout'),
  ).action(async (file: string | undefined, opts: Record<string, unknown>) => {
    exitCode = await withConfig(file, opts, async (loaded, ctx) =>
      (await import('./types.js')).runTypes(loaded.config, {
        io: ctx.io,
        schemas: Array.isArray(opts['schema']) ? (opts['schema'] as string[]) : [],
        output: typeof opts['output'] === 'string' ? opts['output'] : undefined,
      }));
  });

  addConfigOptions(
    program.command('check-config')
      .description('print the resolved configuration with the source of each key; exit 1 on any problem')
      .argument('[config-file]', configFileArg),
  ).action(async (file: string | undefined, opts: Record<string, unknown>) => {
    exitCode = await withConfig(file, opts, (loaded) => runCheckConfig(loaded, io));
  });

  addConfigOptions(
    program.command('openapi')
      .description('print the OpenAPI document of the API')
      .argument('[config-file]', configFileArg),
  ).action(async (file: string | undefined, opts: Record<string, unknown>) => {
    exitCode = await withConfig(file, opts, async (loaded, ctx) => {
      return (await import('./openapi.js')).runOpenapi(loaded.config, loaded, ctx);
    });
  });

  addConfigOptions(
    program.command('doctor')
      .description('check roles, grants, row-level security, functions, indexes and settings; print each finding with the SQL that fixes it; exit 1 on an error or warning')
      .argument('[config-file]', configFileArg)
      .option('--json', 'print the findings as JSON', false),
  ).action(async (file: string | undefined, opts: Record<string, unknown>) => {
    exitCode = await withConfig(file, opts, async (loaded) =>
      (await import('./doctor.js')).runDoctor(loaded, io, { json: opts['json'] === true }));
  });

  addConfigOptions(
    program.command('db-uri')
      .description('print the URI to connect psql to the database (with db-uri unset: the embedded one a running serve has); password masked')
      .argument('[config-file]', configFileArg)
      .option('--superuser', 'the embedded database\'s superuser (postgres) instead of the authenticator dbrest connects as', false)
      .option('--show-password', 'print the password instead of ********', false),
  ).action(async (file: string | undefined, opts: Record<string, unknown>) => {
    exitCode = await withConfig(file, opts, async (loaded) =>
      (await import('./db-uri.js')).runDbUri(loaded.config, io, { superuser: opts['superuser'] === true, showPassword: opts['showPassword'] === true }));
  });

  try {
    await program.parseAsync([...argv], { from: 'node' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage errors were already printed on one line.
      return e.exitCode === 0 ? 0 : 1;
    }
    const message = e instanceof Error ? e.message : String(e);
    io.stderr.write(`dbrest: ${message.split('\n')[0]}\n`);
    return 1;
  }
  return exitCode;
}
