// Resource embedding (PostgREST docs "Resource Embedding"): every relationship kind, disambiguation,
// !inner, spreads, filters/order/limit on embedded resources, null-embed filters — one statement each.
import t from 'tap';
import { body, read, readDatabase } from './helpers.js';

const db = await readDatabase(t);

t.test('many-to-one embeds an object, null when there is no parent', async (t) => {
  t.same(await body(db, 'projects', 'select=id,clients(name)&order=id'), [
    { id: 1, clients: { name: 'Microsoft' } },
    { id: 2, clients: { name: 'Microsoft' } },
    { id: 3, clients: { name: 'Apple' } },
    { id: 4, clients: { name: 'Apple' } },
    { id: 5, clients: null },
  ]);
});

t.test('one-to-many embeds an array, [] when there are no children', async (t) => {
  t.same(await body(db, 'clients', 'select=name,projects(name)&order=id&projects.order=id'), [
    { name: 'Microsoft', projects: [{ name: 'Windows 7' }, { name: 'Windows 10' }] },
    { name: 'Apple', projects: [{ name: 'IOS' }, { name: 'OSX' }] },
    { name: 'Google', projects: [] },
  ]);
});

t.test('one-to-one embeds an object both ways', async (t) => {
  t.same(await body(db, 'clients', 'select=name,client_info(address)&order=id'), [
    { name: 'Microsoft', client_info: { address: 'Redmond' } },
    { name: 'Apple', client_info: { address: 'Cupertino' } },
    { name: 'Google', client_info: null },
  ]);
  t.same(await body(db, 'client_info', 'select=address,clients(name)&order=id'), [
    { address: 'Redmond', clients: { name: 'Microsoft' } },
    { address: 'Cupertino', clients: { name: 'Apple' } },
  ]);
});

t.test('many-to-many through the junction table', async (t) => {
  t.same(await body(db, 'users', 'select=name,tasks(name)&order=id&tasks.order=id'), [
    { name: 'Angela Martin', tasks: [{ name: 'Design w7' }, { name: 'Code w7' }, { name: 'Design w10' }, { name: 'Code w10' }] },
    { name: 'Michael Scott', tasks: [{ name: 'Design IOS' }, { name: 'Code IOS' }, { name: 'Design OSX' }] },
    { name: 'Dwight Schrute', tasks: [{ name: 'Design w7' }, { name: 'Design IOS' }] },
  ]);
  t.same(await body(db, 'tasks', 'select=name,users(name)&id=eq.1&users.order=id'), [
    { name: 'Design w7', users: [{ name: 'Angela Martin' }, { name: 'Dwight Schrute' }] },
  ]);
});

t.test('self reference: parent by FK column, children by table name', async (t) => {
  t.same(await body(db, 'family_tree', 'select=name,parent(name),children:family_tree(name)&order=id&children.order=id'), [
    { name: 'Parental Unit', parent: null, children: [{ name: 'Kid One' }, { name: 'Kid Two' }] },
    { name: 'Kid One', parent: { name: 'Parental Unit' }, children: [{ name: 'Grandkid One' }] },
    { name: 'Kid Two', parent: { name: 'Parental Unit' }, children: [{ name: 'Grandkid Two' }] },
    { name: 'Grandkid One', parent: { name: 'Kid One' }, children: [] },
    { name: 'Grandkid Two', parent: { name: 'Kid Two' }, children: [] },
  ]);
});

t.test('disambiguation with !hint', async (t) => {
  const expected = [
    { body: 'Hello Dwight', sender: { name: 'Michael Scott' }, recipient: { name: 'Dwight Schrute' } },
    { body: 'Hi Michael', sender: { name: 'Dwight Schrute' }, recipient: { name: 'Michael Scott' } },
    { body: 'Angela here', sender: { name: 'Angela Martin' }, recipient: { name: 'Dwight Schrute' } },
  ];
  t.same(await body(db, 'messages', 'select=body,sender:users!sender(name),recipient:users!recipient(name)&order=id'), expected, 'column hint');
  t.same(
    await body(db, 'messages', 'select=body,sender:users!messages_sender_fkey(name),recipient:users!messages_recipient_fkey(name)&order=id'),
    expected,
    'constraint hint',
  );
  t.same(await body(db, 'messages', 'select=body,sender(name),recipient(name)&order=id'), expected, 'FK column as the target');
  t.same(await body(db, 'users', 'select=name,sent:messages!sender(body),received:messages!recipient(body)&id=eq.3'), [
    { name: 'Dwight Schrute', sent: [{ body: 'Hi Michael' }], received: [{ body: 'Hello Dwight' }, { body: 'Angela here' }] },
  ], 'one-to-many disambiguated');
});

t.test('three levels in one statement', async (t) => {
  t.same(await body(db, 'clients', 'select=name,projects(name,tasks(name,users(name)))&id=eq.2&projects.order=id&projects.tasks.order=id&projects.tasks.users.order=id'), [
    {
      name: 'Apple',
      projects: [
        { name: 'IOS', tasks: [{ name: 'Design IOS', users: [{ name: 'Michael Scott' }, { name: 'Dwight Schrute' }] }, { name: 'Code IOS', users: [{ name: 'Michael Scott' }] }] },
        { name: 'OSX', tasks: [{ name: 'Design OSX', users: [{ name: 'Michael Scott' }] }, { name: 'Code OSX', users: [] }] },
      ],
    },
  ]);
});

t.test('star, aliases and nested star', async (t) => {
  t.same(await body(db, 'projects', 'select=*,client:clients(*)&id=eq.1'), [
    { id: 1, name: 'Windows 7', client_id: 1, client: { id: 1, name: 'Microsoft' } },
  ]);
});

t.test('!inner keeps parents with a matching child', async (t) => {
  t.same(await body(db, 'projects', 'select=name,clients!inner(name)&clients.name=eq.Apple&order=id'), [
    { name: 'IOS', clients: { name: 'Apple' } },
    { name: 'OSX', clients: { name: 'Apple' } },
  ]);
  const r = await read(db, 'clients', 'select=name,projects!inner(name)&projects.name=like.Windows*&order=id', { countMode: 'exact' });
  t.same(r.body, [{ name: 'Microsoft', projects: [{ name: 'Windows 7' }, { name: 'Windows 10' }] }]);
  t.equal(r.total_count, '1', 'the count sees the inner join');
  t.same(await body(db, 'clients', 'select=name,projects!inner(name)&order=id'), [
    { name: 'Microsoft', projects: [{ name: 'Windows 7' }, { name: 'Windows 10' }] },
    { name: 'Apple', projects: [{ name: 'IOS' }, { name: 'OSX' }] },
  ], 'to-many inner: at least one child');
  t.same(await body(db, 'projects', 'select=name,clients!inner()&clients.name=eq.Microsoft&order=id'), [
    { name: 'Windows 7' },
    { name: 'Windows 10' },
  ], 'an empty embed filters without showing up');
});

t.test('without !inner an embedded filter only filters the embed', async (t) => {
  t.same(await body(db, 'projects', 'select=name,clients(name)&clients.name=eq.Apple&order=id'), [
    { name: 'Windows 7', clients: null },
    { name: 'Windows 10', clients: null },
    { name: 'IOS', clients: { name: 'Apple' } },
    { name: 'OSX', clients: { name: 'Apple' } },
    { name: 'Orphan', clients: null },
  ]);
});

t.test('spread merges a to-one embed into the parent', async (t) => {
  t.same(await body(db, 'projects', 'select=name,...clients(client_name:name)&order=id'), [
    { name: 'Windows 7', client_name: 'Microsoft' },
    { name: 'Windows 10', client_name: 'Microsoft' },
    { name: 'IOS', client_name: 'Apple' },
    { name: 'OSX', client_name: 'Apple' },
    { name: 'Orphan', client_name: null },
  ]);
  t.same(await body(db, 'tasks', 'select=name,...projects(project:name,...clients(client:name))&id=eq.5'), [
    { name: 'Design IOS', project: 'IOS', client: 'Apple' },
  ], 'nested spreads');
});

t.test('embedded order, limit and offset', async (t) => {
  t.same(await body(db, 'clients', 'select=name,projects(name)&projects.order=name.desc&projects.limit=1&order=id'), [
    { name: 'Microsoft', projects: [{ name: 'Windows 7' }] },
    { name: 'Apple', projects: [{ name: 'OSX' }] },
    { name: 'Google', projects: [] },
  ]);
  t.same(await body(db, 'clients', 'select=name,projects(name)&projects.order=id&projects.limit=1&projects.offset=1&id=lt.3&order=id'), [
    { name: 'Microsoft', projects: [{ name: 'Windows 10' }] },
    { name: 'Apple', projects: [{ name: 'OSX' }] },
  ]);
  t.same(await body(db, 'clients', 'select=name,projs:projects(name)&projs.order=id.desc&projs.name=neq.OSX&id=eq.2'), [
    { name: 'Apple', projs: [{ name: 'IOS' }] },
  ], 'paths may use the alias');
  t.same(await body(db, 'clients', 'select=name,projects(name)&projects.or=(id.eq.1,id.eq.4)&projects.order=id&order=id'), [
    { name: 'Microsoft', projects: [{ name: 'Windows 7' }] },
    { name: 'Apple', projects: [{ name: 'OSX' }] },
    { name: 'Google', projects: [] },
  ], 'logic trees on an embed');
});

t.test('order by a to-one embed', async (t) => {
  t.same(await body(db, 'projects', 'select=name,clients(name)&order=clients(name).desc,id'), [
    { name: 'Orphan', clients: null },
    { name: 'Windows 7', clients: { name: 'Microsoft' } },
    { name: 'Windows 10', clients: { name: 'Microsoft' } },
    { name: 'IOS', clients: { name: 'Apple' } },
    { name: 'OSX', clients: { name: 'Apple' } },
  ], 'DESC puts nulls first');
  const b = (await body(db, 'projects', 'select=name,clients(name)&order=clients(name).desc.nullslast,id')) as Array<{ name: string }>;
  t.same(b.map((r) => r.name), ['Windows 7', 'Windows 10', 'IOS', 'OSX', 'Orphan']);
  const c = (await body(db, 'projects', 'select=name,clients(name)&order=clients(name).asc.nullsfirst,id.desc')) as Array<{ name: string }>;
  t.same(c.map((r) => r.name), ['Orphan', 'OSX', 'IOS', 'Windows 10', 'Windows 7']);
});

t.test('null-embed filters', async (t) => {
  t.same(await body(db, 'clients', 'select=name,projects(name)&projects=not.is.null&projects.order=id&order=id'), [
    { name: 'Microsoft', projects: [{ name: 'Windows 7' }, { name: 'Windows 10' }] },
    { name: 'Apple', projects: [{ name: 'IOS' }, { name: 'OSX' }] },
  ]);
  t.same(await body(db, 'clients', 'select=name,projects(name)&projects=is.null'), [{ name: 'Google', projects: [] }]);
  t.same(await body(db, 'projects', 'select=name,clients()&clients=is.null'), [{ name: 'Orphan' }], 'to-one');
  t.same(await body(db, 'projects', 'select=name,clients(name)&clients.name=eq.Apple&clients=not.is.null&order=id'), [
    { name: 'IOS', clients: { name: 'Apple' } },
    { name: 'OSX', clients: { name: 'Apple' } },
  ], 'with an embedded filter: like !inner');
  const r = await read(db, 'clients', 'select=name,projects(name)&or=(projects.is.null,id.eq.1)&order=id', { countMode: 'exact' });
  t.same((r.body as Array<{ name: string }>).map((x) => x.name), ['Microsoft', 'Google'], 'inside a logic tree');
  t.equal(r.total_count, '2');
});

t.test('computed relationships', async (t) => {
  t.same(await body(db, 'projects', 'select=name,client_of(name),all_tasks(name)&id=eq.1&all_tasks.order=id'), [
    { name: 'Windows 7', client_of: { name: 'Microsoft' }, all_tasks: [{ name: 'Design w7' }, { name: 'Code w7' }] },
  ]);
});

t.test('views embed through their base tables', async (t) => {
  t.same(await body(db, 'projects_view', 'select=name,clients(name)&id=eq.3'), [{ name: 'IOS', clients: { name: 'Apple' } }]);
  t.same(await body(db, 'tasks', 'select=name,projects_view(name)&id=eq.1'), [{ name: 'Design w7', projects_view: { name: 'Windows 7' } }]);
});
