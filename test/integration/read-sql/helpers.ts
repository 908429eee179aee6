// Run planned reads against a database loaded from test/fixtures/sql/read.sql: plan (with the
// schema cache the catalog builder makes of that database) → build → compile → pg, and hand back
// the one row the statement returns with its body parsed.
import pg from 'pg';
import type { Test } from 'tap';
import { loadSchemaCache } from '../../../src/catalog/load.js';
import type { SchemaCache } from '../../../src/catalog/types.js';
import { compile } from '../../../src/sql/fragment.js';
import { buildPlannedCountStatement, buildReadStatement } from '../../../src/sql/read.js';
import { createTestDatabase, fixture, type TestDatabase } from '../../helpers/db.js';
import { planOk, type PlanOptions } from '../../unit/plan/query.js';

export interface ReadResult {
  readonly total_count: string | null;
  readonly page_count: string;
  readonly body: unknown;
  readonly raw: string;
  readonly response_headers: string | null;
  readonly response_status: string | null;
}

export interface ReadDatabase extends TestDatabase {
  /** The catalog builder's SchemaCache of the `test` schema. */
  readonly cache: SchemaCache;
}

/** One database per test file, dropped at teardown. */
export async function readDatabase(t: Test): Promise<ReadDatabase> {
  const db = await createTestDatabase([fixture('sql', 'read.sql')]);
  t.teardown(() => db.drop());
  const client = new pg.Client({ connectionString: db.uri });
  await client.connect();
  try {
    const { cache } = await loadSchemaCache(client, ['test']);
    return Object.assign(db, { cache });
  } finally {
    await client.end();
  }
}

export type Qs = string | ReadonlyArray<readonly [string, string]>;

export async function read(
  db: ReadDatabase,
  relation: string,
  qs: Qs,
  o: PlanOptions & { countMode?: 'exact' | 'estimated' | null } = {},
): Promise<ReadResult> {
  const plan = planOk(relation, qs, { cache: db.cache, ...o });
  const stmt = compile(buildReadStatement(plan, { count: o.countMode ?? null, maxRows: o.maxRows ?? null }));
  const rows = await db.query(stmt.text, [...stmt.values]);
  if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
  const row = rows[0] as Record<string, unknown>;
  return {
    total_count: row.total_count as string | null,
    page_count: row.page_count as string,
    raw: row.body as string,
    body: JSON.parse(row.body as string),
    response_headers: row.response_headers as string | null,
    response_status: row.response_status as string | null,
  };
}

/** The body of `/relation?qs`. */
export async function body(db: ReadDatabase, relation: string, qs: Qs, o: PlanOptions = {}): Promise<unknown> {
  return (await read(db, relation, qs, o)).body;
}

/** Ids of the rows `/relation?select=id&order=id&<qs>` returns. */
export async function ids(db: ReadDatabase, relation: string, qs: Qs): Promise<number[]> {
  const pairs: Array<readonly [string, string]> =
    typeof qs === 'string' ? [...new URLSearchParams(qs)] : [...qs];
  const b = (await body(db, relation, [['select', 'id'], ['order', 'id'], ...pairs])) as Array<{ id: number }>;
  return b.map((r) => r.id);
}

export async function plannedRows(db: ReadDatabase, relation: string, qs: Qs): Promise<number> {
  const stmt = compile(buildPlannedCountStatement(planOk(relation, qs, { cache: db.cache })));
  const rows = await db.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(stmt.text, [...stmt.values]);
  return rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
}
