#!/usr/bin/env node
// Fill the content API's schema with N synthetic pages (default 100,000) and images and documents in
// proportion: loads tools/generate.sql and calls content.generate(N). The example's SQL must be loaded
// first. Usage: DATABASE_URL=postgres://… node examples/content/tools/generate.mjs [N]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const n = Number(process.argv[2] ?? 100000);
const uri = process.env.DATABASE_URL;
if (!uri || !Number.isInteger(n) || n < 10) {
  console.error('usage: DATABASE_URL=postgres://… node generate.mjs [N ≥ 10]');
  process.exit(2);
}
const sql = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'generate.sql'), 'utf8');
const client = new pg.Client({ connectionString: uri });
await client.connect();
try {
  await client.query(sql);
  const started = Date.now();
  const { rows } = await client.query('SELECT content.generate($1) AS summary', [n]);
  await client.query('VACUUM ANALYZE content.pages');
  console.log(`${rows[0].summary} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} finally {
  await client.end();
}
