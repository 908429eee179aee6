#!/usr/bin/env node
// `npm test`: build, start one throwaway embedded PostgreSQL for the whole run (unless
// DBREST_TEST_DB_URI names a server), run every tap test file against it, stop it, and print the
// closing line `N passed, M failed` that CI reads. Arguments are passed to tap (e.g. a file list).
import { spawn, spawnSync } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
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

// CI keeps only the end of this output: the failed tests, with their subtest path and the first
// lines of tap's diagnostics, are printed again just above the closing line.
const failures = {
  path: [],
  found: [],
  open: null,
  see(line) {
    const indent = line.length - line.trimStart().length;
    const depth = indent / 4;
    const subtest = /^\s*# Subtest: (.*)$/.exec(line);
    if (subtest) {
      this.path.length = depth;
      this.path[depth] = subtest[1];
      this.open = null;
      return;
    }
    const notOk = /^\s*not ok \d+ - (.*?)(?: # time=.*)?$/.exec(line);
    if (notOk) {
      // A failed subtest repeats its children's failures; report the innermost ones only.
      const where = [...this.path.slice(0, depth), notOk[1]].join(' > ');
      if (this.found.some((f) => f.where.startsWith(where + ' > '))) return;
      this.open = { where, diag: [] };
      this.found.push(this.open);
      return;
    }
    if (!this.open) return;
    if (/^\s*(ok|not ok) \d+|^\s*1\.\.\d+/.test(line) || /^\s*\.\.\.$/.test(line)) {
      this.open = null;
      return;
    }
    // Keep where it failed and the diff; tap's stack, source and column details are noise here.
    const key = /^\s*(\w+):/.exec(line)?.[1];
    if (key && this.open.keyIndent === undefined) this.open.keyIndent = indent; // the diagnostics' top level
    if (key && indent === this.open.keyIndent) this.open.skipping = ['stack', 'source', 'compare'].includes(key);
    if (this.open.skipping || line.trim() === '---' || /^(typeName|columnNumber|generated):/.test(line.trim()) || line.trim() === '') return;
    if (this.open.diag.length < 14) this.open.diag.push(line.trim().slice(0, 200));
  },
  print() {
    if (this.found.length === 0) return;
    console.log(`# ${this.found.length} failed test(s):`);
    for (const f of this.found.slice(0, 20)) {
      console.log(`# not ok: ${f.where}`);
      for (const d of f.diag) console.log(`#     ${d}`);
    }
  },
};

let summary = null;
const code = await new Promise((resolve) => {
  const tap = spawn(process.execPath, ['node_modules/tap/dist/esm/run.mjs', '-R', 'tap', '--jobs=2', ...files], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let tail = '';
  let partial = '';
  const utf8 = new StringDecoder('utf8'); // a chunk may end inside a character
  tap.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    const text = utf8.write(chunk);
    tail = (tail + text).slice(-4000);
    const lines = (partial + text).split('\n');
    partial = lines.pop();
    for (const line of lines) failures.see(line);
  });
  tap.on('close', (c) => {
    const m = /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(tail);
    if (m) summary = { pass: Number(m[2]), fail: Number(m[3] ?? 0) };
    resolve(c ?? 1);
  });
});
await stop();
failures.print();
if (!summary) summary = { pass: 0, fail: 1 };
if (code !== 0 && summary.fail === 0) summary.fail = 1;
console.log(`${summary.pass} passed, ${summary.fail} failed`);
process.exit(code === 0 ? 0 : 1);
