// W2's PostgreSQL side split by part: CPU time of one backend per batch, read from
// /proc/<backend pid>/schedstat over a fixed number of batches, for dbrest's W2 batch (context
// settings + main statement, one Sync), its parts alone, ways of writing them, and the floor's one
// prepared statement, alternated over rounds on one connection of the bench dataset. Batches go
// through db/batch.ts as dbrest sends them (named statements, one Sync). insert-cpu.ts does the same
// for W4. CPU time moves with the machine's load (a round's figure by 30 % at load 12); the same
// texts counted in instructions, which do not, are read-pg-callgrind.ts's.
//   node dist/test/bench/read-pg-cpu.js   (env: RPG_ROUNDS=7 RPG_BATCHES=1000 RPG_SCALE=1
//                                           RPG_ALBUMS=40: W2's filter is album_id <= albums/RPG_ALBUMS,
//                                           as run.ts's; RPG_ONLY=0,1,5: the variants, by index)
import pg from 'pg';
import type { BatchStatement } from '../../src/db/batch.js';
import { statementName } from '../../src/db/transaction.js';
import { backendCpuPerBatch, benchDatabase } from './cpu-runs.js';
import { CAP, CAP_TEXT, CONTEXT, FLOOR, MAIN, READ_ONLY, ROLE, settingsSql } from './w2-sql.js';

const rounds = Number(process.env.RPG_ROUNDS ?? 7);
const batches = Number(process.env.RPG_BATCHES ?? 1000);

const named = (text: string, values: ReadonlyArray<unknown>, discard = false): BatchStatement => ({ text, values, name: statementName(text), discard });

const settings = (pairs: ReadonlyArray<readonly [string, string]>): BatchStatement => named(settingsSql(pairs.length), pairs.flat(), true);
const ALL_SETTINGS = [READ_ONLY, ...CONTEXT, ROLE];

function variants(albumMax: number): Record<string, () => BatchStatement[]> {
  const filter = String(albumMax);
  const main = (text: string) => named(text, text.includes('$2') ? [filter, CAP, CAP_TEXT] : [filter]);
  return {
    'floor: one prepared statement': () => [named(FLOOR, [albumMax, 50])],
    'dbrest now: settings (read-only, context, role) + main': () => [settings(ALL_SETTINGS), main(MAIN.now)],
    'dbrest before: main with count(_postgrest_t)': () => [settings(ALL_SETTINGS), main(MAIN.countRow)],
    'main alone (as superuser)': () => [main(MAIN.now)],
    'settings alone': () => [settings(ALL_SETTINGS)],
    'settings without the role + main': () => [settings([READ_ONLY, ...CONTEXT]), main(MAIN.now)],
    'settings without read-only + main': () => [settings([...CONTEXT, ROLE]), main(MAIN.now)],
    'settings + main without the cap': () => [settings(ALL_SETTINGS), main(MAIN.uncapped)],
    'the page alone: count(*) of its rows': () => [main(MAIN.pageOnly)],
    'floor with LIMIT 50 written in': () => [named(FLOOR.replace('$2', '50'), [albumMax])],
    'empty batch: SELECT 1': () => [named('SELECT 1', [])],
  };
}

const db = await benchDatabase('read-pg-cpu', Number(process.env.RPG_SCALE ?? 1));
const client = new pg.Client({ connectionString: db.uri });
try {
  await client.connect();
  const albumMax = Math.max(1, Math.round(db.size.albums / Number(process.env.RPG_ALBUMS ?? 40)));
  const all = variants(albumMax);
  console.log(`# W2: album_id <= ${albumMax} of ${db.size.albums}; ${batches} batches per variant and round, ${rounds} rounds`);
  await backendCpuPerBatch(client, all, { batches, rounds, only: process.env.RPG_ONLY?.split(',').map(Number) });
  // Generic or custom plans: a generic plan skips planning, a custom one plans each execution.
  const plans = await client.query<{ statement: string; generic_plans: string; custom_plans: string }>(
    'SELECT left(statement, 60) AS statement, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY statement',
  );
  for (const p of plans.rows) console.log(`plans: generic ${p.generic_plans}, custom ${p.custom_plans}: ${p.statement}`);
} finally {
  await client.end().catch(() => undefined);
  await db.stop();
}
