// Issue 28, from the postgrest-js jest suite: two embeds answering under one name, and the table
// name in the 42703 of an embedded column (relationships-error-handling.test.ts: "join with same
// dest twice column hinting", "select with aggregate sum function without column should error").
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity7.sql')],
    config: { 'db-schemas': 'parity7', 'db-anon-role': 'postgres', 'db-aggregates-enabled': 'true' },
  });
}

t.test('two embeds of one name at one level are 42712, as PostgREST', async (t) => {
  const s = await server(t);
  // Answered as rows, each would hold two "users" keys and a client would keep only the second.
  const same = await s.request('/best_friends?select=users!first_user(*),users!second_user(*)');
  t.equal(same.status, 400);
  t.same(same.json(), { code: '42712', details: null, hint: null, message: 'table name "best_friends_users_1" specified more than once' });

  const sameAlias = await s.request('/best_friends?select=u:users!first_user(username),u:users!second_user(username)');
  t.equal(sameAlias.status, 400);
  t.equal(sameAlias.json().message, 'table name "best_friends_u_1" specified more than once');

  const nested = await s.request('/messages?select=id,users(username,best_friends!first_user(id),best_friends!first_user(id))');
  t.equal(nested.status, 400);
  t.equal(nested.json().message, 'table name "users_best_friends_2" specified more than once', 'the depth is in the name');

  const apart = await s.request('/best_friends?select=a:users!first_user(username),b:users!second_user(username)');
  t.equal(apart.status, 200, 'distinct aliases still work');
  t.same(apart.json(), [{ a: { username: 'ann' }, b: { username: 'bob' } }]);
});

t.test('an embedded column that does not exist is named by the alias PostgREST gives its table', async (t) => {
  const s = await server(t);
  const sum = await s.request('/users?select=username,messages(sum)&limit=1');
  t.equal(sum.status, 400);
  t.same(sum.json(), { code: '42703', details: null, hint: null, message: 'column messages_1.sum does not exist' });

  const close = await s.request('/users?select=username,messages(mesage)');
  t.same(close.json(), {
    code: '42703',
    details: null,
    hint: 'Perhaps you meant to reference the column "messages_1.message".',
    message: 'column messages_1.mesage does not exist',
  });

  const filtered = await s.request('/users?select=username,messages(id)&messages.nope=eq.1');
  t.equal(filtered.json().message, 'column messages_1.nope does not exist', 'a filter on the embed');

  const deeper = await s.request('/best_friends?select=id,users!first_user(messages(nope))');
  t.equal(deeper.json().message, 'column messages_2.nope does not exist', 'two levels down');

  // The root keeps the table's name, and a many-to-many's target is joined unaliased.
  t.equal((await s.request('/users?select=nope')).json().message, 'column users.nope does not exist');
  t.equal((await s.request('/messages?select=tags(nope)')).json().message, 'column tags.nope does not exist');
});
