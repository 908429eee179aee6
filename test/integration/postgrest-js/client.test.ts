// Issue 12: the supabase postgrest-js client (the real package, as its users call it) against
// dbrest. Expected answers are the ones postgrest-js's own test suite records for PostgREST
// (test/basic.ts, test/transforms.ts, test/error-handling.test.ts in supabase/postgrest-js), on a
// schema of the same shape (test/fixtures/sql/postgrest_js.sql); PGRSTnnn codes read DBRSTnnn.
import { PostgrestClient } from '@supabase/postgrest-js';
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'postgrest_js.sql')],
    config: { 'db-schemas': 'chat', 'db-anon-role': 'postgres', 'db-plan-enabled': 'true', 'db-tx-end': 'commit-allow-override', 'db-aggregates-enabled': 'true' },
  });
}

/** What the client resolves to, without its `success` flag (newer clients add it; the recorded answers predate it). */
async function run(q: PromiseLike<any>): Promise<{ count: unknown; data: unknown; error: unknown; status: number; statusText: string }> {
  const r = await q;
  return { count: r.count, data: r.data, error: r.error === null ? null : { ...r.error }, status: r.status, statusText: r.statusText };
}

const USERS = [
  { username: 'supabot', data: null, age_range: '[1,2)', status: 'ONLINE', catchphrase: "'cat' 'fat'" },
  { username: 'kiwicopple', data: null, age_range: '[25,35)', status: 'OFFLINE', catchphrase: "'bat' 'cat'" },
  { username: 'awailas', data: null, age_range: '[25,35)', status: 'ONLINE', catchphrase: "'bat' 'rat'" },
  { username: 'dragarcia', data: null, age_range: '[20,30)', status: 'ONLINE', catchphrase: "'fat' 'rat'" },
];

t.test('select, filters, order, range, head and count', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  t.same(await run(pg.from('users').select()), { count: null, data: USERS, error: null, status: 200, statusText: 'OK' });
  t.same(await run(pg.from('users').select().order('username', { ascending: false })), {
    count: null, data: [USERS[0], USERS[1], USERS[3], USERS[2]], error: null, status: 200, statusText: 'OK',
  });
  t.same((await run(pg.from('users').select().range(1, 3))).data, USERS.slice(1, 4));
  t.same((await run(pg.from('users').select().limit(1))).data, [USERS[0]]);
  t.same(await run(pg.from('users').select().eq('username', 'missing')), { count: null, data: [], error: null, status: 200, statusText: 'OK' });
  t.same((await run(pg.from('users').select('username').in('status', ['OFFLINE']))).data, [{ username: 'kiwicopple' }]);
  t.same((await run(pg.from('users').select('username').textSearch('catchphrase', "'fat' & 'cat'"))).data, [{ username: 'supabot' }]);
  t.same((await run(pg.from('users').select('username').or('status.eq.OFFLINE,username.eq.supabot').order('username'))).data, [{ username: 'kiwicopple' }, { username: 'supabot' }]);
  t.same((await run(pg.from('users').select('username').contains('age_range', '[26,27)').order('username'))).data, [{ username: 'awailas' }, { username: 'dragarcia' }, { username: 'kiwicopple' }]);
  t.same(await run(pg.from('users').select('*', { head: true })), { count: null, data: null, error: null, status: 200, statusText: 'OK' });
  t.same(await run(pg.from('users').select('*', { head: true, count: 'exact' })), { count: 4, data: null, error: null, status: 200, statusText: 'OK' });
  t.same((await run(pg.from('users').select('*', { count: 'exact' }))).count, 4);
  const planned = await run(pg.from('users').select('*', { head: true, count: 'planned' }));
  t.type(planned.count, 'number');
  const estimated = await run(pg.from('users').select('*', { head: true, count: 'estimated' }));
  t.type(estimated.count, 'number');
  t.same((await run(pg.from('users').select().order('data->something' as any))).data, USERS, 'ordering on a JSON path');
});

t.test('embeds and spreads', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  t.same((await run(pg.from('messages').select('id,channels(slug,channel_details(details)),users(status)').order('id'))).data, [
    { id: 1, channels: { slug: 'public', channel_details: { details: 'Details for public channel' } }, users: { status: 'ONLINE' } },
    { id: 2, channels: { slug: 'random', channel_details: { details: 'Details for random channel' } }, users: { status: 'ONLINE' } },
  ]);
  t.same((await run(pg.from('messages').select('id,...channels(slug,...channel_details(details))').order('id'))).data, [
    { id: 1, slug: 'public', details: 'Details for public channel' },
    { id: 2, slug: 'random', details: 'Details for random channel' },
  ]);
  t.same((await run(pg.from('users').select('username,messages(id)').eq('username', 'supabot'))).data, [{ username: 'supabot', messages: [{ id: 1 }, { id: 2 }] }]);
  t.same((await run(pg.from('channels').select('slug,messages!inner(id)').eq('messages.id', 2))).data, [{ slug: 'random', messages: [{ id: 2 }] }]);
  t.same((await run(pg.from('best_friends').select('id,first:users!first_user(username),second:users!second_user(username)'))).data, [
    { id: 1, first: { username: 'supabot' }, second: { username: 'kiwicopple' } },
  ]);
});

t.test('single() and maybeSingle()', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  t.same(await run(pg.from('users').select().limit(1).single()), { count: null, data: USERS[0], error: null, status: 200, statusText: 'OK' });
  t.same(await run(pg.from('users').select().single()), {
    count: null,
    data: null,
    error: { code: 'DBRST116', details: 'The result contains 4 rows', hint: null, message: 'Cannot coerce the result to a single JSON object' },
    status: 406,
    statusText: 'Not Acceptable',
  });
  t.same(await run(pg.from('users').select().eq('username', 'goldstein').maybeSingle()), { count: null, data: null, error: null, status: 200, statusText: 'OK' });
  // On a write the client checks the row count itself (its own PGRST116 text), from our array answer.
  const two = await run(pg.from('users').insert([{ username: 'a' }, { username: 'b' }]).select().rollback().maybeSingle());
  t.equal(two.status, 406);
  t.match(two.error, { code: 'PGRST116', details: 'Results contain 2 rows, application/vnd.pgrst.object+json requires 1 row' });
  t.same(await run(pg.from('users').insert({ username: 'foo' }).select().rollback().single()), {
    count: null,
    data: { username: 'foo', data: null, age_range: null, status: 'ONLINE', catchphrase: null },
    error: null,
    status: 201,
    statusText: 'Created',
  });
  t.same((await run(pg.from('users').select('username').eq('username', 'foo'))).data, [], 'rolled back');
});

t.test('csv() of plain scalar columns', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  t.same(await run(pg.from('users').select('username,status').csv()), {
    count: null,
    data: 'username,status\nsupabot,ONLINE\nkiwicopple,OFFLINE\nawailas,ONLINE\ndragarcia,ONLINE',
    error: null,
    status: 200,
    statusText: 'OK',
  });
  t.same((await run(pg.from('messages').select('id,message').eq('id', 2).csv())).data,
    'id,message\n2,"Perfection is attained, not when there is nothing more to add, but when there is nothing left to take away."');
});

t.test('explain() in json and text, with options', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  const json = await run(pg.from('users').select().explain({ format: 'json' }));
  t.equal(json.status, 200);
  t.equal(json.error, null);
  t.match(json.data, [{ Plan: { 'Node Type': 'Aggregate' } }]);
  const text = await run(pg.from('users').select().explain());
  t.equal(text.status, 200);
  t.match(text.data, /^Aggregate {2}\(cost=/);
  const opts = await run(pg.from('users').select().explain({ verbose: true, settings: true, format: 'json' }));
  const doc = (opts.data as any[])[0];
  t.type(doc['Query Identifier'], 'number', 'verbose: the query identifier');
  t.same(doc.Settings, { search_path: '"chat", "public"' });
  t.ok(Array.isArray(doc.Plan.Output), 'verbose: output columns');
  const analyzed = await run(pg.from('users').select().explain({ analyze: true, buffers: true, wal: true, format: 'json' }));
  const a = (analyzed.data as any[])[0];
  t.type(a['Execution Time'], 'number');
  t.type(a.Plan['Actual Rows'], 'number');
  t.type(a.Plan['WAL Records'], 'number');
  t.type(a.Plan['Shared Hit Blocks'], 'number');
  const textVerbose = await run(pg.from('users').select('username').explain({ verbose: true }));
  t.match(textVerbose.data, /Query Identifier: -?\d+/);
});

t.test('rpc', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  t.same(await run(pg.rpc('get_status', { name_param: 'supabot' })), { count: null, data: 'ONLINE', error: null, status: 200, statusText: 'OK' });
  t.same(await run(pg.rpc('void_func')), { count: null, data: null, error: null, status: 204, statusText: 'No Content' });
  t.same(await run(pg.rpc('get_status', { name_param: 'supabot' }, { count: 'exact' })), { count: 1, data: 'ONLINE', error: null, status: 200, statusText: 'OK' });
  t.same(await run(pg.rpc('get_status', { name_param: 'supabot' }, { head: true, count: 'exact' })), { count: 1, data: null, error: null, status: 200, statusText: 'OK' });
  t.same(await run(pg.rpc('get_username_and_status', { name_param: 'supabot' }).select('status')), { count: null, data: [{ status: 'ONLINE' }], error: null, status: 200, statusText: 'OK' });
  t.same((await run(pg.rpc('get_status', { name_param: 'kiwicopple' }, { get: true }))).data, 'OFFLINE');
});

t.test('insert, upsert (with defaults), update, delete', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  const msg = (id: number, channel = 1) => ({ id, data: null, message: 'foo', username: 'supabot', channel_id: channel });
  t.same(await run(pg.from('messages').insert({ message: 'foo', username: 'supabot', channel_id: 1 }).select()), { count: null, data: [msg(87)], error: null, status: 201, statusText: 'Created' });
  t.same(await run(pg.from('messages').upsert({ id: 3, message: 'foo', username: 'supabot', channel_id: 2 }).select()), { count: null, data: [msg(3, 2)], error: null, status: 201, statusText: 'Created' });
  t.same(await run(pg.from('messages').insert([{ message: 'foo', username: 'supabot', channel_id: 1 }, { message: 'foo', username: 'supabot', channel_id: 1 }], { count: 'exact' }).select()), {
    count: 2, data: [msg(88), msg(89)], error: null, status: 201, statusText: 'Created',
  });
  t.same(await run(pg.from('channels').insert([{ id: 100 }, { slug: 'test-slug' }], { defaultToNull: false }).select().rollback()), {
    count: null, data: [{ id: 100, data: null, slug: null }, { id: 12, data: null, slug: 'test-slug' }], error: null, status: 201, statusText: 'Created',
  });
  // Older PostgREST answered 201 here (postgrest-js's snapshot); since v12 an upsert that inserts
  // nothing is 200 OK, as dbrest answers.
  t.same(await run(pg.from('users').upsert({ username: 'dragarcia' }, { onConflict: 'username' }).select()), { count: null, data: [USERS[3]], error: null, status: 200, statusText: 'OK' });
  t.same(await run(pg.from('users').upsert({ username: 'dragarcia' }, { onConflict: 'username', ignoreDuplicates: true }).select()), { count: null, data: [], error: null, status: 201, statusText: 'Created' });
  t.same(await run(pg.from('messages').update({ channel_id: 2 }, { count: 'exact' }).eq('message', 'foo').select().order('id')), {
    count: 4, data: [msg(3, 2), msg(87, 2), msg(88, 2), msg(89, 2)], error: null, status: 200, statusText: 'OK',
  });
  t.same(await run(pg.from('users').update({ data: '' }).eq('username', 'missing')), { count: null, data: null, error: null, status: 204, statusText: 'No Content' });
  t.same(await run(pg.from('users').update({ data: '' }).eq('username', 'missing').select()), { count: null, data: [], error: null, status: 200, statusText: 'OK' });
  t.same(await run(pg.from('messages').delete({ count: 'exact' }).eq('message', 'foo').select('id').order('id')), {
    count: 4, data: [{ id: 3 }, { id: 87 }, { id: 88 }, { id: 89 }], error: null, status: 200, statusText: 'OK',
  });
  t.same((await run(pg.from('messages').select('id'))).data, [{ id: 1 }, { id: 2 }]);
  t.same(await run(pg.from('users').insert({ username: 'bar' })), { count: null, data: null, error: null, status: 201, statusText: 'Created' }, 'return=minimal');
});

t.test('bulk upsert with column defaults', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  t.same(await run(pg.from('channels').upsert([{ id: 1 }, { slug: 'test-slug' }], { defaultToNull: false }).select().rollback()), {
    count: null, data: [{ id: 1, data: null, slug: null }, { id: 12, data: null, slug: 'test-slug' }], error: null, status: 201, statusText: 'Created',
  });
});

t.test('error objects: code, message, details, hint and status', async (t) => {
  const s = await server(t);
  const pg = new PostgrestClient(s.url);
  t.same(await run(pg.from('best_friends').select('first_user:users(*), second_user:users(*)').limit(1).single()), {
    count: null,
    data: null,
    error: {
      code: 'DBRST201',
      details: [
        { cardinality: 'many-to-one', embedding: 'best_friends with users', relationship: 'best_friends_first_user_fkey using best_friends(first_user) and users(username)' },
        { cardinality: 'many-to-one', embedding: 'best_friends with users', relationship: 'best_friends_second_user_fkey using best_friends(second_user) and users(username)' },
        { cardinality: 'many-to-one', embedding: 'best_friends with users', relationship: 'best_friends_third_wheel_fkey using best_friends(third_wheel) and users(username)' },
      ],
      hint: "Try changing 'users' to one of the following: 'users!best_friends_first_user_fkey', 'users!best_friends_second_user_fkey', 'users!best_friends_third_wheel_fkey'. Find the desired relationship in the 'details' key.",
      message: "Could not embed because more than one relationship was found for 'best_friends' and 'users'",
    },
    status: 300,
    statusText: 'Multiple Choices',
  });
  t.same(await run(pg.from('users').select('msgs:messages(id, ...message_details(created_at))').limit(1).single()), {
    count: null,
    data: null,
    error: {
      code: 'DBRST200',
      details: "Searched for a foreign key relationship between 'messages' and 'message_details' in the schema 'chat', but no matches were found.",
      hint: null,
      message: "Could not find a relationship between 'messages' and 'message_details' in the schema cache",
    },
    status: 400,
    statusText: 'Bad Request',
  });
  t.same(await run(pg.from('messages').select('message, users.count()').limit(1).single()), {
    count: null,
    data: null,
    error: { code: '42703', details: null, hint: null, message: 'column messages.users does not exist' },
    status: 400,
    statusText: 'Bad Request',
  });
  const missing = await run(pg.from('missing_table').select());
  t.equal(missing.status, 404);
  t.match(missing.error, { code: 'DBRST205', message: "Could not find the table 'chat.missing_table' in the schema cache" });
  let thrown: any = null;
  try {
    await pg.from('missing_table').select().throwOnError();
  } catch (e) {
    thrown = e;
  }
  t.match(thrown, { code: 'DBRST205' }, 'throwOnError throws the error object');
});
