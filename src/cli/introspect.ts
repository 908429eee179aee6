// `dbrest introspect [config-file] [--schema S] [--json]`: build the schema cache exactly as the
// server would (of the embedded database when db-uri is unset) and print it - the SchemaCache value as JSON with --json, else a readable summary.
// Wiring and formatting only: the cache comes from catalog/load.ts.
import chalk from 'chalk';
import pg from 'pg';
import { loadSchemaCache } from '../catalog/load.js';
import type { QualifiedName, Relation, Relationship, Routine, RoutineReturn, SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import { catalogProgress, terminalProgress } from '../observe/progress.js';
import { withCommandDatabase } from './database.js';

export interface IntrospectRunOptions {
  readonly json: boolean;
  /** Introspect this schema instead of the configured db-schemas. */
  readonly schema?: string | undefined;
  /** Where to print (the CLI's io); the process streams by default. */
  readonly io?: { readonly stdout: { write(s: string): unknown }; readonly stderr: { write(s: string): unknown } };
}

/**
 * `dbrest introspect`: the schema cache of `config.dbUri` (or, when unset, of the embedded database as
 * serve runs it), printed. Returns the exit code.
 */
export async function runIntrospect(config: AppConfig, _loaded: unknown, opts: IntrospectRunOptions): Promise<number> {
  const err = opts.io?.stderr ?? process.stderr;
  return withCommandDatabase(config, 'introspect', err, (effective) => introspect(effective, opts));
}

async function introspect(config: AppConfig, opts: IntrospectRunOptions): Promise<number> {
  const uri = config.dbUri!;
  const out = opts.io?.stdout ?? process.stdout;
  const err = opts.io?.stderr ?? process.stderr;
  const schemas = opts.schema !== undefined ? [opts.schema] : [...config.dbSchemas];
  const client = new pg.Client({ connectionString: uri });
  client.on('error', () => undefined);
  try {
    await client.connect();
    // A big catalog takes seconds: a progress line when stderr is a terminal, nothing otherwise.
    const progress = terminalProgress(err);
    progress.update(`schema cache: connected; reading ${schemas.join(', ')}…`);
    const { cache, fetchMs, buildMs } = await loadSchemaCache(client, schemas, null, catalogProgress(progress)).finally(() => progress.clear());
    out.write(opts.json ? JSON.stringify(cache, null, 2) + '\n' : formatSummary(cache, { fetchMs, buildMs }));
    return 0;
  } catch (e) {
    err.write(`${chalk.red('✖')} introspect failed: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The readable summary: relations with columns and keys, relationships, routines, handlers. */
export function formatSummary(cache: SchemaCache, timing?: { fetchMs: number; buildMs: number }): string {
  const defaultSchema = cache.schemas[0];
  const name = (q: QualifiedName): string => (q.schema === defaultSchema ? q.name : `${q.schema}.${q.name}`);
  const lines: string[] = [];
  const v = cache.serverVersion;
  const pgVersion = v >= 100000 ? `${Math.floor(v / 10000)}.${v % 10000}` : String(v);
  lines.push(
    `${chalk.bold('Schema cache')} of ${cache.schemas.map((s) => chalk.cyan(s)).join(', ')} ` +
      chalk.dim(`(PostgreSQL ${pgVersion}${timing ? `; fetched in ${timing.fetchMs.toFixed(0)} ms, built in ${timing.buildMs.toFixed(0)} ms` : ''})`),
  );
  lines.push(
    chalk.dim(
      `${cache.relations.length} relations, ${cache.relationships.length} relationships, ` +
        `${cache.routines.length} functions, ${cache.mediaHandlers.length} media handlers`,
    ),
  );

  const section = (title: string, rows: string[]): void => {
    if (rows.length === 0) return;
    lines.push('', chalk.bold.underline(title), ...rows.map((r) => `  ${r}`));
  };

  const width = Math.max(0, ...cache.relations.map((r) => name(r).length));
  const relationRow = (r: Relation): string => {
    const pk = r.primaryKey.length > 0 ? chalk.yellow(`PK (${r.primaryKey.join(', ')})`) : chalk.dim('no PK');
    const flags =
      r.kind === 'table' || r.kind === 'partitioned_table'
        ? ''
        : ' ' + chalk.dim(r.insertable || r.updatable || r.deletable ? '[updatable]' : '[read-only]');
    const cols = `${r.columns.length} column${r.columns.length === 1 ? '' : 's'}`.padEnd(11);
    const desc = r.description ? chalk.dim(` — ${firstLine(r.description)}`) : '';
    return `${chalk.green(name(r).padEnd(width))}  ${cols}  ${pk}${flags}${desc}`;
  };
  const byKind = (kinds: ReadonlyArray<Relation['kind']>) => cache.relations.filter((r) => kinds.includes(r.kind)).map(relationRow);
  section('Tables', byKind(['table', 'partitioned_table', 'foreign_table']));
  section('Views', byKind(['view', 'materialized_view']));
  section('Relationships', cache.relationships.map((r) => relationshipRow(r, name)));
  section('Functions', cache.routines.map((r) => routineRow(r, name)));
  section(
    'Media handlers',
    cache.mediaHandlers.map(
      (h) =>
        `${chalk.magenta(h.mediaType)}  ${name(h.function)}${h.isAggregate ? chalk.dim(' (aggregate)') : ''}` +
        (h.relation ? ` on ${name(h.relation)}` : h.isAggregate ? ' on any relation' : ''),
    ),
  );
  return lines.join('\n') + '\n';
}

function relationshipRow(r: Relationship, name: (q: QualifiedName) => string): string {
  const head = `${name(r.from)} → ${name(r.to)}`;
  if (r.kind === 'computed') return `${head} ${chalk.dim(`(${r.cardinality}, computed: ${name(r.function)})`)}`;
  if (r.junction !== null) return `${head} ${chalk.dim(`(m2m via ${name(r.junction.table)}: ${r.junction.constraintFrom}, ${r.junction.constraintTo})`)}`;
  return `${head} ${chalk.dim(`(${r.cardinality}, ${r.constraintName})`)}`;
}

function routineRow(r: Routine, name: (q: QualifiedName) => string): string {
  const params = r.params
    .filter((p) => p.mode !== 'out' && p.mode !== 'table')
    .map((p) => `${p.mode === 'variadic' ? 'VARIADIC ' : p.mode === 'inout' ? 'INOUT ' : ''}${p.name || '$'} ${p.type}${p.hasDefault ? ' = …' : ''}`)
    .join(', ');
  const kind = r.isProcedure ? chalk.dim(' procedure') : '';
  return `${chalk.green(name(r))}(${params}) → ${returnText(r, name)}  ${chalk.dim(r.volatility)}${kind}`;
}

function returnText(r: Routine, name: (q: QualifiedName) => string): string {
  const ret: RoutineReturn = r.returns;
  if (ret.kind === 'void') return 'void';
  const setOf = ret.setOf ? 'setof ' : '';
  if (ret.kind === 'scalar') return `${setOf}${ret.type}`;
  const outs = r.params.filter((p) => p.mode === 'out' || p.mode === 'inout' || p.mode === 'table');
  if (!ret.isRelation && outs.length > 0) return `${setOf}table(${outs.map((p) => `${p.name} ${p.type}`).join(', ')})`;
  return `${setOf}${name(ret.type)}`;
}

const firstLine = (s: string): string => s.split('\n')[0] ?? '';
