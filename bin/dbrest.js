#!/usr/bin/env node
// Thin launcher: the CLI lives in src/cli/main.ts, compiled to dist/ by `npm run build`.
import { existsSync } from 'node:fs';

const main = new URL('../dist/src/cli/main.js', import.meta.url);

if (!existsSync(main)) {
  process.stderr.write('dbrest is not built: run npm install (or npm run build)\n');
  process.exitCode = 1;
} else {
  const { run } = await import(main.href);
  process.exitCode = await run(process.argv);
}
