// A PostgreSQL server of the test's own (so it can be stopped and restarted under a running dbrest),
// a database on it loaded from fixtures, and timing helpers that turn a hang into a failure.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/embedded/postgres.js';
import { withDatabase } from '../../helpers/db.js';
import { httpRequest, type RequestOptions, type TestResponse } from '../../helpers/server.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface OwnDatabase {
  readonly server: EmbeddedPostgres;
  /** URI of the loaded database on it. */
  readonly uri: string;
}

/** Starts a private cluster, creates database `name` from `fixtures`; everything is removed at teardown. */
export async function startOwnDatabase(t: Teardown, name: string, fixtures: ReadonlyArray<string>): Promise<OwnDatabase> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dbrest-resilience-'));
  const server = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pgdata'), durable: false });
  t.teardown(async () => {
    await server.stop().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  });
  const admin = new pg.Client({ connectionString: server.uri });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const uri = withDatabase(server.uri, name);
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    for (const file of fixtures) await client.query(readFileSync(file, 'utf8'));
  } finally {
    await client.end();
  }
  return { server, uri };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface TimedResponse extends TestResponse {
  readonly ms: number;
}

/** The response, or a rejection naming the request when it takes longer than `limitMs` (a hang). */
export async function requestWithin(url: string, limitMs: number, opts: RequestOptions = {}): Promise<TimedResponse> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${opts.method ?? 'GET'} ${url} did not answer within ${limitMs} ms`)), limitMs);
  });
  try {
    const res = await Promise.race([httpRequest(url, opts), hang]);
    return { ...res, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `url` every `everyMs` until it answers `status`; resolves with the elapsed ms, or null after `limitMs`. */
export async function waitForStatus(url: string, status: number, limitMs: number, everyMs = 100): Promise<{ ms: number; seen: Map<string, number> } | null> {
  const started = performance.now();
  const seen = new Map<string, number>();
  while (performance.now() - started < limitMs) {
    try {
      const res = await requestWithin(url, 5000);
      if (res.status === status) return { ms: performance.now() - started, seen };
      const key = `${res.status} ${res.headers['proxy-status'] ?? ''}`.trim();
      seen.set(key, (seen.get(key) ?? 0) + 1);
    } catch (e) {
      const key = `no answer: ${(e as Error).message}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    await sleep(everyMs);
  }
  return null;
}

export const describeSeen = (seen: Map<string, number>): string =>
  [...seen].map(([k, n]) => `${n}× ${k}`).join(', ') || 'nothing but the expected status';
