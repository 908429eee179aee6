#!/usr/bin/env node
// `npm test`: build, start one throwaway embedded PostgreSQL for the whole run (unless
// DBREST_TEST_DB_URI names a server), run every tap test file against it, stop it, and print the
// closing line `N passed, M failed` that CI reads. Arguments are passed to tap (e.g. a file list).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

// Compiled tests of files that no longer exist (another branch's, a renamed one) would run too.
rmSync(path.join(root, 'dist', 'test'), { recursive: true, force: true });
const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

function testFiles(dir) {
  let out = [];
  let entries = [];
  try { entries = readdirSync(dir); } catch { return out; }
  for (const name of entries.sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(testFiles(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const files = args.length > 0 ? args : ['unit', 'golden', 'cli', 'integration', 'compat'].flatMap((d) => testFiles(path.join('dist/test', d)));

let embedded = null;
let tmp = null;
const env = { ...process.env };
if (!env.DBREST_TEST_DB_URI) {
  const { startEmbeddedPostgres } = await import(path.join(root, 'dist/src/embedded/postgres.js'));
  tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-test-'));
  // fsync off: a throwaway cluster, speed over durability (db-embedded-durable=false's trade).
  embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable: false });
  env.DBREST_TEST_DB_URI = embedded.uri;
  console.log(`# test database: embedded PostgreSQL on port ${embedded.port} in ${tmp}`);
}

const stop = async () => {
  if (embedded) await embedded.stop().catch(() => undefined);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stop().then(() => process.exit(130)));

let summary = null;
const code = await new Promise((resolve) => {
  const tap = spawn(process.execPath, ['node_modules/tap/dist/esm/run.mjs', '-R', 'tap', '--jobs=2', ...files], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let tail = '';
  tap.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    tail = (tail + chunk.toString()).slice(-4000);
  });
  tap.on('close', (c) => {
    const m = /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(tail);
    if (m) summary = { pass: Number(m[2]), fail: Number(m[3] ?? 0) };
    resolve(c ?? 1);
  });
});
await stop();
if (!summary) summary = { pass: 0, fail: 1 };
if (code !== 0 && summary.fail === 0) summary.fail = 1;
console.log(`${summary.pass} passed, ${summary.fail} failed`);
process.exit(code === 0 ? 0 : 1);
