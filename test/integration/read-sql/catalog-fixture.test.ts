// The hand-built SchemaCache the unit and golden tests plan with (test/unit/plan/cache-fixture.ts)
// must say what the catalog builder says about test/fixtures/sql/read.sql; if this fails after a
// change to either, bring the fixture back in step.
import t from 'tap';
import type { Relation, Relationship } from '../../../src/catalog/types.js';
import { cache as fixture } from '../../unit/plan/cache-fixture.js';
import { readDatabase } from './helpers.js';

const db = await readDatabase(t);

const describeRelation = (r: Relation) =>
  `${r.schema}.${r.name} ${r.kind} pk(${r.primaryKey.join(',')}) ` +
  r.columns.map((c) => `${c.name}:${c.type}/${c.baseType}/${c.nullable ? 'null' : 'not null'}`).join(', ');

const describeRelationship = (r: Relationship) =>
  r.kind === 'computed'
    ? `computed ${r.from.name}->${r.to.name} ${r.cardinality} ${r.function.schema}.${r.function.name} self=${r.isSelf}`
    : `${r.cardinality} ${r.from.name}->${r.to.name} ${r.constraintName} ${JSON.stringify(r.columns)} ${JSON.stringify(r.junction)} self=${r.isSelf}`;

t.same(
  db.cache.relations.filter((r) => r.schema === 'test').map(describeRelation).sort(),
  fixture.relations.map(describeRelation).sort(),
  'relations and columns',
);
t.same(
  db.cache.relationships.filter((r) => r.from.schema === 'test').map(describeRelationship).sort(),
  fixture.relationships.map(describeRelationship).sort(),
  'relationships',
);
