// The SchemaCache of test/fixtures/sql/read.sql, written by hand (the catalog builder is not
// available to these tests yet). Keep the two files in step: the integration tests run SQL planned
// from this cache against a database loaded from that file.
import type {
  Column,
  ComputedRelationship,
  ForeignKeyRelationship,
  QualifiedName,
  Relation,
  RelationKind,
  Relationship,
  SchemaCache,
} from '../../../src/catalog/types.js';

const BASE: Record<string, string> = {
  integer: 'int4',
  text: 'text',
  jsonb: 'jsonb',
  'text[]': 'text',
  'integer[]': 'int4',
  tsvector: 'tsvector',
  int4range: 'int4range',
  numeric: 'numeric',
  boolean: 'bool',
};

function columns(spec: ReadonlyArray<readonly [name: string, type: string, nullable?: boolean]>): Column[] {
  return spec.map(([name, type, nullable], i) => ({
    name,
    type,
    baseType: BASE[type] ?? type,
    nullable: nullable ?? true,
    default: null,
    maxLength: null,
    description: null,
    enumValues: [],
    position: i + 1,
    generated: false,
  }));
}

function relation(
  name: string,
  cols: ReadonlyArray<readonly [string, string, boolean?]>,
  primaryKey: string[],
  kind: RelationKind = 'table',
): Relation {
  return {
    schema: 'test',
    name,
    kind,
    description: null,
    columns: columns(cols),
    primaryKey,
    insertable: kind === 'table',
    updatable: kind === 'table',
    deletable: kind === 'table',
  };
}

const q = (name: string): QualifiedName => ({ schema: 'test', name });

/** Both directions of a FK `from(cols) → to(refCols)`: m2o + o2m, or o2o twice when unique. */
function fk(
  constraintName: string,
  from: string,
  to: string,
  pairs: ReadonlyArray<readonly [string, string]>,
  oneToOne = false,
): ForeignKeyRelationship[] {
  const isSelf = from === to;
  return [
    { kind: 'fk', from: q(from), to: q(to), cardinality: oneToOne ? 'o2o' : 'm2o', constraintName, columns: pairs, junction: null, isSelf },
    {
      kind: 'fk',
      from: q(to),
      to: q(from),
      cardinality: oneToOne ? 'o2o' : 'o2m',
      constraintName,
      columns: pairs.map(([a, b]) => [b, a] as const),
      junction: null,
      isSelf,
    },
  ];
}

export const relations: Relation[] = [
  relation('clients', [['id', 'integer', false], ['name', 'text', false]], ['id']),
  relation('projects', [['id', 'integer', false], ['name', 'text', false], ['client_id', 'integer']], ['id']),
  relation('tasks', [['id', 'integer', false], ['name', 'text', false], ['project_id', 'integer']], ['id']),
  relation('users', [['id', 'integer', false], ['name', 'text', false]], ['id']),
  relation('users_tasks', [['user_id', 'integer', false], ['task_id', 'integer', false]], ['user_id', 'task_id']),
  relation('client_info', [['id', 'integer', false], ['client_id', 'integer', false], ['address', 'text']], ['id']),
  relation('family_tree', [['id', 'text', false], ['name', 'text', false], ['parent', 'text']], ['id']),
  relation(
    'messages',
    [['id', 'integer', false], ['body', 'text', false], ['sender', 'integer', false], ['recipient', 'integer', false]],
    ['id'],
  ),
  relation('project_invoices', [['id', 'integer', false], ['invoice_total', 'numeric', false], ['project_id', 'integer']], ['id']),
  relation(
    'items',
    [
      ['id', 'integer', false],
      ['name', 'text'],
      ['data', 'jsonb'],
      ['tags', 'text[]'],
      ['numbers', 'integer[]'],
      ['search', 'tsvector'],
      ['description', 'text'],
      ['price_range', 'int4range'],
      ['rating', 'numeric'],
      ['active', 'boolean'],
    ],
    ['id'],
  ),
  relation('projects_view', [['id', 'integer'], ['name', 'text'], ['client_id', 'integer']], ['id'], 'view'),
];

/** m2m both ways through users_tasks; the catalog names an m2m by its junction table. */
const usersTasks: ForeignKeyRelationship[] = [
  {
    kind: 'fk',
    from: q('users'),
    to: q('tasks'),
    cardinality: 'm2m',
    constraintName: 'users_tasks',
    columns: [],
    junction: {
      table: q('users_tasks'),
      constraintFrom: 'users_tasks_user_id_fkey',
      columnsFrom: [['id', 'user_id']],
      constraintTo: 'users_tasks_task_id_fkey',
      columnsTo: [['id', 'task_id']],
    },
    isSelf: false,
  },
  {
    kind: 'fk',
    from: q('tasks'),
    to: q('users'),
    cardinality: 'm2m',
    constraintName: 'users_tasks',
    columns: [],
    junction: {
      table: q('users_tasks'),
      constraintFrom: 'users_tasks_task_id_fkey',
      columnsFrom: [['id', 'task_id']],
      constraintTo: 'users_tasks_user_id_fkey',
      columnsTo: [['id', 'user_id']],
    },
    isSelf: false,
  },
];

const computed: ComputedRelationship[] = [
  { kind: 'computed', from: q('projects'), to: q('clients'), cardinality: 'm2o', function: q('client_of'), isSelf: false },
  { kind: 'computed', from: q('projects'), to: q('tasks'), cardinality: 'o2m', function: q('all_tasks'), isSelf: false },
];

export const relationships: Relationship[] = [
  ...fk('projects_client_id_fkey', 'projects', 'clients', [['client_id', 'id']]),
  ...fk('tasks_project_id_fkey', 'tasks', 'projects', [['project_id', 'id']]),
  ...fk('users_tasks_user_id_fkey', 'users_tasks', 'users', [['user_id', 'id']]),
  ...fk('users_tasks_task_id_fkey', 'users_tasks', 'tasks', [['task_id', 'id']]),
  ...usersTasks,
  ...fk('client_info_client_id_fkey', 'client_info', 'clients', [['client_id', 'id']], true),
  ...fk('family_tree_parent_fkey', 'family_tree', 'family_tree', [['parent', 'id']]),
  ...fk('messages_sender_fkey', 'messages', 'users', [['sender', 'id']]),
  ...fk('messages_recipient_fkey', 'messages', 'users', [['recipient', 'id']]),
  ...fk('project_invoices_project_id_fkey', 'project_invoices', 'projects', [['project_id', 'id']]),
  // relationships through the view, as the catalog derives them from its base table
  ...fk('projects_client_id_fkey', 'projects_view', 'clients', [['client_id', 'id']]),
  ...fk('tasks_project_id_fkey', 'tasks', 'projects_view', [['project_id', 'id']]),
  ...fk('project_invoices_project_id_fkey', 'project_invoices', 'projects_view', [['project_id', 'id']]),
  ...computed,
];

export const cache: SchemaCache = {
  version: 1,
  schemas: ['test'],
  relations,
  relationships,
  routines: [],
  mediaHandlers: [],
  serverVersion: 180000,
};

/** Deep-freeze a value (stage outputs are readonly; tests catch accidental mutation). */
export function deepFreeze<T>(x: T): T {
  if (x && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x as Record<string, unknown>)) deepFreeze(v);
  }
  return x;
}
