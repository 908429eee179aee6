// Cold start on big catalogs (issue 13 item 5): for each size, a database of `n` tables and n-1
// foreign keys (catalog-schema.ts's shape), then `node bin/dbrest.js serve` as a child process, timed
// from spawn to its first 200 on a table, with the schema cache's own load time from its log line.
//   node dist/test/bench/cold-start.js [sizes…]        (default 1000 5000 20000 50000)
// Not part of `npm test`. Uses its own throwaway embedded PostgreSQL (fsync off).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import { generateBigSchemaSql } from './catalog-schema.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const runs = Number(process.env.COLD_RUNS ?? 3);

function get(port: number, p: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
  });
}

async function coldStart(uri: string, probe: string): Promise<{ firstOkMs: number; cacheLine: string }> {
  const port = await freePort();
  const env = { ...process.env, NO_COLOR: '1', DBREST_DB_URI: uri, DBREST_DB_ANON_ROLE: 'postgres', DBREST_SERVER_PORT: String(port), DBREST_LOG_LEVEL: 'info', DBREST_SERVER_HOST: '127.0.0.1' };
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.resolve('bin/dbrest.js'), 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  let firstOkMs = -1;
  while (performance.now() - t0 < 120_000) {
    if ((await get(port, probe)) === 200) {
      firstOkMs = performance.now() - t0;
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  return { firstOkMs, cacheLine: /schema cache loaded: .*/.exec(out)?.[0] ?? out.slice(0, 300) };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-cold-'));
const db = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable: false });
try {
  const admin = new pg.Client({ connectionString: db.uri });
  admin.on('error', () => undefined);
  await admin.connect();
  for (const n of sizes.length ? sizes : [1000, 5000, 20000, 50000]) {
    const name = `cold_${n}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const u = new URL(db.uri);
    u.pathname = '/' + name;
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    const t0 = performance.now();
    // In batches: one transaction creating 50,000 tables runs out of lock slots.
    const statements = generateBigSchemaSql(n, n - 1).split(';\n').filter((x) => x.trim() !== '');
    for (let i = 0; i < statements.length; i += 500) await c.query(statements.slice(i, i + 500).join(';\n') + ';');
    await c.query('ANALYZE');
    await c.end();
    console.log(`${n} tables / ${n - 1} FKs: catalog made in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    for (let i = 0; i < runs; i++) {
      const r = await coldStart(u.toString(), `/bench_t${String(1).padStart(4, '0')}?limit=1`);
      console.log(`  run ${i + 1}: first 200 after ${r.firstOkMs.toFixed(0)} ms; ${r.cacheLine}`);
    }
  }
  await admin.end();
} finally {
  await db.stop();
  rmSync(tmp, { recursive: true, force: true });
}
