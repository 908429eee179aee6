// Issue 28, items 4 and 13: answers the official postgrest-js suite records for PostgREST
// (advanced_rpc.test.ts "blurb_message with params", embeded_functions_join.test.ts "created_ago",
// basic.test.ts "bulk upsert with column defaults"), through the real client, on our chat schema.
import { PostgrestClient } from '@supabase/postgrest-js';
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

async function run(q: PromiseLike<any>): Promise<{ count: unknown; data: unknown; error: unknown; status: number; statusText: string }> {
  const r = await q;
  return { count: r.count, data: r.data, error: r.error === null ? null : { ...r.error }, status: r.status, statusText: r.statusText };
}

t.test('a function of one unnamed row-typed parameter is not callable over /rpc: DBRST202, no hint', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'postgrest_js.sql')],
    config: { 'db-schemas': 'chat', 'db-anon-role': 'postgres' },
  });
  const pg = new PostgrestClient(s.url);
  const blurb = await run(pg.rpc('blurb_message', { '': { channel_id: 1, data: null, id: 1, message: null, username: 'test', blurb_message: null } }));
  t.same(blurb, {
    count: null,
    data: null,
    error: {
      code: 'DBRST202',
      details: 'Searched for the function chat.blurb_message with parameter  or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: null,
      message: 'Could not find the function chat.blurb_message() in the schema cache',
    },
    status: 404,
    statusText: 'Not Found',
  }, 'blurb_message with params');
  const ago = await run(pg.rpc('created_ago', { id: 1 }));
  t.same(ago, {
    count: null,
    data: null,
    error: {
      code: 'DBRST202',
      details: 'Searched for the function chat.created_ago with parameter id or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: null,
      message: 'Could not find the function chat.created_ago(id) in the schema cache',
    },
    status: 404,
    statusText: 'Not Found',
  }, 'created_ago over rpc');
  // Still a computed field of its table.
  const read = await run(pg.from('messages').select('id, blurb_message').eq('id', 1));
  t.same(read.data, [{ id: 1, blurb_message: 'Hel' }], 'blurb_message as a computed field');
});

t.test('missing=default evaluates each default for every row, as PostgREST does', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'postgrest_js.sql')],
    config: { 'db-schemas': 'chat', 'db-anon-role': 'postgres', 'db-tx-end': 'commit-allow-override' },
  });
  const pg = new PostgrestClient(s.url);
  // The identity sequence stands at 10 (the fixture's setval): the first row takes 11 though it
  // gives its id, the second 12.
  const up = await run(pg.from('channels').upsert([{ id: 1 }, { slug: 'test-slug' }], { defaultToNull: false }).select().rollback());
  t.same(up, {
    count: null,
    data: [{ data: null, id: 1, slug: null }, { data: null, id: 12, slug: 'test-slug' }],
    error: null,
    status: 201,
    statusText: 'Created',
  }, 'bulk upsert with column defaults');
  const ins = await run(pg.from('channels').insert([{ id: 100 }, { slug: 'test-slug' }], { defaultToNull: false }).select().rollback());
  t.same(ins.data, [{ data: null, id: 100, slug: null }, { data: null, id: 14, slug: 'test-slug' }], 'bulk insert with column defaults');
});
