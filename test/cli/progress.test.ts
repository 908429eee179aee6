// Progress on long work (issue 31 item 4): `types`, `introspect` and the first start of `serve` draw a
// progress line (phase, relations read) on stderr when it is a terminal (run under `script`, which
// gives them a pseudo-terminal), and print nothing extra when stderr is a pipe. The catalog load
// reports its phases in order with the counts it read.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { loadSchemaCache } from '../../src/catalog/load.js';
import type { CatalogProgress } from '../../src/catalog/fetch.js';
import { freePort } from '../../src/embedded/postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const root = process.cwd();
const bin = path.join(root, 'bin', 'dbrest.js');
const TABLES = 240;

/** A schema with many tables, their foreign keys and a function: enough for every phase to have rows. */
const BIG_SCHEMA = `
CREATE SCHEMA big;
DO $$ BEGIN
  FOR i IN 1..${TABLES} LOOP
    EXECUTE format('CREATE TABLE big.t%s (id int PRIMARY KEY, parent int %s, name text, created timestamptz DEFAULT now())',
                   i, CASE WHEN i > 1 THEN format('REFERENCES big.t%s', i - 1) ELSE '' END);
  END LOOP;
END $$;
CREATE FUNCTION big.hello() RETURNS text LANGUAGE sql AS $$ SELECT 'hi' $$;
`;

function env(db: TestDatabase): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('DBREST_') && !k.startsWith('PGRST_')) out[k] = v;
  return { ...out, NO_COLOR: '1', SHELL: '/bin/sh', DBREST_DB_URI: db.uri, DBREST_DB_SCHEMAS: 'big', DBREST_DB_ANON_ROLE: 'postgres' };
}

interface Run { code: number | null; stdout: string; stderr: string }

function run(args: string[], e: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `node bin/dbrest.js …` on a pseudo-terminal (util-linux `script`); its stdout and stderr, mixed. */
function runOnTerminal(args: string[], e: Record<string, string>): Promise<Run> {
  return run(['--version'], e).then(() => new Promise((resolve, reject) => {
    const command = [process.execPath, bin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
  }));
}

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

t.test('progress on a terminal only', async (t) => {
  const db = await createTestDatabase([]);
  t.teardown(() => db.drop());
  await db.query(BIG_SCHEMA);
  const e = env(db);

  t.test('the catalog load reports its phases, in order, with what it read', async (t) => {
    const seen: CatalogProgress[] = [];
    const client = new pg.Client({ connectionString: db.uri });
    await client.connect();
    t.teardown(() => client.end());
    const { cache } = await loadSchemaCache(client, ['big'], null, (p) => void seen.push(p));
    const phases = [...new Set(seen.map((p) => p.phase))];
    t.same(phases, ['relations', 'foreign keys', 'view sources', 'functions', 'computed relationships', 'media handlers', 'types', 'building']);
    t.equal(seen.find((p) => p.phase === 'foreign keys')?.relations, TABLES, 'the relations read are counted from the relations query on');
    const last = seen.at(-1)!;
    t.same(last, { phase: 'building', relations: cache.relations.length, functions: cache.routines.length, columnsRead: true });
    t.equal(cache.relations.length, TABLES);
  });

  t.test('types and introspect to a pipe: stderr stays empty', async (t) => {
    for (const args of [['types'], ['introspect'], ['introspect', '--json']]) {
      const r = await run(args, e);
      t.equal(r.code, 0, `${args.join(' ')}: exit 0`);
      t.equal(r.stderr, '', `${args.join(' ')}: nothing on stderr`);
      t.ok(r.stdout.length > 0, `${args.join(' ')}: its output`);
    }
  });

  t.test('types and introspect on a terminal: a progress line, then the output', { skip: hasScript ? false : 'no `script` (util-linux) to run them on a pseudo-terminal' }, async (t) => {
    for (const args of [['types'], ['introspect']]) {
      const r = await runOnTerminal(args, e);
      t.equal(r.code, 0, `${args.join(' ')}: exit 0`);
      t.match(r.stdout, /\r\x1b\[2Kdbrest schema cache: reading relations…/, `${args.join(' ')}: the first phase`);
      t.match(r.stdout, new RegExp(`\\r\\x1b\\[2Kdbrest schema cache: reading foreign keys… \\(read: ${TABLES} relations`), `${args.join(' ')}: relations read`);
      t.match(r.stdout, new RegExp(`\\r\\x1b\\[2Kdbrest schema cache: building from ${TABLES} relations and 1 functions…`), `${args.join(' ')}: building`);
      const lastErase = r.stdout.lastIndexOf('\x1b[2K');
      t.notMatch(r.stdout.slice(lastErase + 4), /schema cache: (reading|building)/, `${args.join(' ')}: the line is cleared before the output`);
    }
    const types = await runOnTerminal(['types'], e);
    t.match(types.stdout, /export type Database = \{/, 'types still prints its types');
  });

  t.test('serve: the first load on a terminal, and not to a pipe', { skip: hasScript ? false : 'no `script` (util-linux)' }, async (t) => {
    const serveOnce = async (onTerminal: boolean): Promise<string> => {
      const port = await freePort();
      const e2 = { ...e, DBREST_SERVER_PORT: String(port), DBREST_SERVER_HOST: '127.0.0.1' };
      const command = [process.execPath, bin, 'serve'].map((a) => `'${a}'`).join(' ');
      // detached: its own process group, so the whole of it (script and dbrest) is stopped by its id.
      const child = onTerminal
        ? spawn('script', ['-qec', command, '/dev/null'], { cwd: root, env: e2, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
        : spawn(process.execPath, [bin, 'serve'], { cwd: root, env: e2, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const closed = new Promise<void>((r) => child.on('close', () => r()));
      for (let i = 0; i < 600 && !out.includes('listening on'); i++) await new Promise((r) => setTimeout(r, 50));
      process.kill(-child.pid!, 'SIGTERM');
      await closed;
      return out;
    };
    const tty = await serveOnce(true);
    t.match(tty, 'listening on', 'serve started on a terminal');
    t.match(tty, new RegExp(`dbrest schema cache: building from ${TABLES} relations`), 'and drew the first load\'s progress');
    const before = tty.slice(0, tty.indexOf('listening on'));
    t.match(before.slice(before.lastIndexOf('dbrest schema cache')), /\r\x1b\[2K/, 'cleared before the startup line');
    const piped = await serveOnce(false);
    t.match(piped, 'listening on', 'serve started on a pipe');
    t.notMatch(piped, /schema cache: (reading|building)|\x1b\[2K/, 'no progress to a pipe');
  });
});
