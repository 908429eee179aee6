// Relationship resolution (PostgREST's findRel) and its errors, on the read.sql cache fixture.
import t from 'tap';
import { describeRelationship, relationNotFound, resolveRelationship } from '../../../src/plan/embed.js';
import { suggest } from '../../../src/catalog/lookup.js';
import { cache } from './cache-fixture.js';

const resolve = (origin: string, target: string, hint: string | null = null) => {
  const r = resolveRelationship(cache, 'test', origin, target, hint);
  if (!r.ok) return r.error;
  const rel = r.value;
  return rel.kind === 'computed'
    ? `computed ${rel.function.name}`
    : `${rel.cardinality} ${rel.from.name}->${rel.to.name} ${rel.constraintName}`;
};

t.test('by target name', async (t) => {
  t.equal(resolve('projects', 'clients'), 'm2o projects->clients projects_client_id_fkey');
  t.equal(resolve('clients', 'projects'), 'o2m clients->projects projects_client_id_fkey');
  t.equal(resolve('clients', 'client_info'), 'o2o clients->client_info client_info_client_id_fkey');
  t.equal(resolve('users', 'tasks'), 'm2m users->tasks users_tasks');
  t.equal(resolve('projects_view', 'clients'), 'm2o projects_view->clients projects_client_id_fkey', 'from a view');
  t.equal(resolve('projects', 'client_of'), 'computed client_of');
});

t.test('by FK column or constraint name (tables only)', async (t) => {
  t.equal(resolve('projects', 'client_id'), 'm2o projects->clients projects_client_id_fkey');
  t.equal(resolve('projects', 'projects_client_id_fkey'), 'm2o projects->clients projects_client_id_fkey');
  t.equal(resolve('messages', 'sender'), 'm2o messages->users messages_sender_fkey');
  t.equal(resolve('tasks', 'tasks_project_id_fkey'), 'm2o tasks->projects tasks_project_id_fkey', 'the view sharing the constraint is skipped');
});

t.test('with a hint', async (t) => {
  t.equal(resolve('messages', 'users', 'sender'), 'm2o messages->users messages_sender_fkey', 'column of the origin');
  t.equal(resolve('messages', 'users', 'messages_recipient_fkey'), 'm2o messages->users messages_recipient_fkey', 'constraint');
  t.equal(resolve('users', 'messages', 'recipient'), 'o2m users->messages messages_recipient_fkey', 'column of the target');
  t.equal(resolve('users', 'tasks', 'users_tasks'), 'm2m users->tasks users_tasks', 'junction table');
  t.equal(resolve('projects', 'clients', 'id'), 'm2o projects->clients projects_client_id_fkey', 'referenced column');
});

t.test('self relationships', async (t) => {
  t.equal(resolve('family_tree', 'family_tree'), 'o2m family_tree->family_tree family_tree_parent_fkey', 'table name: children');
  t.equal(resolve('family_tree', 'parent'), 'm2o family_tree->family_tree family_tree_parent_fkey', 'FK column: parent');
  t.equal(resolve('family_tree', 'family_tree', 'parent'), 'o2m family_tree->family_tree family_tree_parent_fkey');
});

t.test('DBRST200: no relationship', async (t) => {
  t.same(resolve('projects', 'clientz'), {
    code: 'DBRST200',
    status: 400,
    message: "Could not find a relationship between 'projects' and 'clientz' in the schema cache",
    details: "Searched for a foreign key relationship between 'projects' and 'clientz' in the schema 'test', but no matches were found.",
    hint: "Perhaps you meant 'clients' instead of 'clientz'.",
  });
  t.same(resolve('projects', 'clients', 'nope'), {
    code: 'DBRST200',
    status: 400,
    message: "Could not find a relationship between 'projects' and 'clients' in the schema cache",
    details: "Searched for a foreign key relationship between 'projects' and 'clients' using the hint 'nope' in the schema 'test', but no matches were found.",
    hint: null,
  }, 'no suggestion when both exist');
  t.match(resolve('projectz', 'clients'), { code: 'DBRST200', hint: "Perhaps you meant 'projects' instead of 'projectz'." }, 'suggests the parent');
  t.match(resolve('qqqqqqqqqq', 'clients'), { code: 'DBRST200', hint: null }, 'nothing close');
});

t.test('DBRST201: ambiguous embedding', async (t) => {
  const e = resolve('messages', 'users');
  t.match(e, {
    code: 'DBRST201',
    status: 300,
    message: "Could not embed because more than one relationship was found for 'messages' and 'users'",
    // PostgREST's order: same cardinality, so by constraint name.
    hint: "Try changing 'users' to one of the following: 'users!messages_recipient_fkey', 'users!messages_sender_fkey'. Find the desired relationship in the 'details' key.",
  });
  t.same(JSON.parse((e as { details: string }).details), [
    { cardinality: 'many-to-one', embedding: 'messages with users', relationship: 'messages_recipient_fkey using messages(recipient) and users(id)' },
    { cardinality: 'many-to-one', embedding: 'messages with users', relationship: 'messages_sender_fkey using messages(sender) and users(id)' },
  ]);
});

t.test('describeRelationship for m2m', async (t) => {
  const m2m = cache.relationships.find((r) => r.kind === 'fk' && r.cardinality === 'm2m' && r.from.name === 'users')!;
  t.same(describeRelationship(m2m), {
    cardinality: 'many-to-many',
    embedding: 'users with tasks',
    relationship: 'users_tasks using users_tasks_user_id_fkey(user_id) and users_tasks_task_id_fkey(task_id)',
  });
});

t.test('DBRST205 and suggestions', async (t) => {
  t.same(relationNotFound(cache, 'test', 'projcts'), {
    code: 'DBRST205',
    status: 404,
    message: "Could not find the table 'test.projcts' in the schema cache",
    details: null,
    hint: "Perhaps you meant the table 'test.projects'",
  });
  t.equal(relationNotFound(cache, 'test', 'zzzzzz').hint, null);
  t.equal(suggest('Clientz', ['clients', 'projects'], 0.75), 'clients');
  t.equal(suggest('x', ['clients'], 0.75), null);
});
