// Issue 28, item 8: `Warning: 299` when an aliased embed is filtered, ordered or limited by its
// relation name (PostgREST's QuerySpec "filters, orders and limits aliased embeded entities using the
// target name"), on every action whose answer has such a read: a read, a write returning its rows, a call.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const WARNING =
  '299 dbrest "Embedded resource was referenced by relation name even though it has an alias. This is deprecated and will stop working ' +
  'in a future release. Update `tasks` to `the_tasks` in query string filters, orders or limits."';

t.test('an aliased embed named by its relation gets PostgREST\'s Warning', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity5.sql')],
    config: { 'db-schemas': 'parity5', 'db-anon-role': 'postgres' },
  });
  const legacy = 'select=id,name,the_tasks:tasks(id,name)&tasks.name=like.Code*&tasks.order=name.asc&tasks.limit=1';

  const read = await s.request(`/projects?id=eq.1&${legacy}`);
  t.equal(read.status, 200);
  t.same(read.json(), [{ id: 1, name: 'Windows 7', the_tasks: [{ id: 2, name: 'Code w7' }] }]);
  t.equal(read.headers['warning'], WARNING, 'read');

  const write = await s.request(`/projects?${legacy}`, {
    method: 'POST', headers: { Prefer: 'return=representation' }, body: { id: 3, name: 'Linux' },
  });
  t.equal(write.status, 201);
  t.same(write.json(), [{ id: 3, name: 'Linux', the_tasks: [] }]);
  t.equal(write.headers['warning'], WARNING, 'write with return=representation');

  const call = await s.request(`/rpc/getprojects?id=eq.2&${legacy}`);
  t.equal(call.status, 200);
  t.same(call.json(), [{ id: 2, name: 'Windows 10', the_tasks: [{ id: 4, name: 'Code w10' }] }]);
  t.equal(call.headers['warning'], WARNING, 'call');

  const byAlias = await s.request('/rpc/getprojects?id=eq.2&select=id,the_tasks:tasks(id)&the_tasks.limit=1');
  t.equal(byAlias.headers['warning'], undefined, 'no Warning when the alias is used');
});
