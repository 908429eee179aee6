import t from 'tap';

import { evaluateRolePath, parseRoleClaimKey, roleFromClaims, type RolePath } from '../../../src/auth/role.js';

function parse(source: string): RolePath {
  const r = parseRoleClaimKey(source);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

t.test('parses the documented forms', async (t) => {
  t.same(parse('.role'), [{ kind: 'key', key: 'role' }]);
  t.same(parse('."https://example.com/role"'), [{ kind: 'key', key: 'https://example.com/role' }]);
  t.same(parse('.app_metadata.roles[0]'), [
    { kind: 'key', key: 'app_metadata' },
    { kind: 'key', key: 'roles' },
    { kind: 'index', index: 0 },
  ]);
  t.same(parse('.a[1][2].b'), [
    { kind: 'key', key: 'a' },
    { kind: 'index', index: 1 },
    { kind: 'index', index: 2 },
    { kind: 'key', key: 'b' },
  ]);
  t.same(parse('.$x@y_1'), [{ kind: 'key', key: '$x@y_1' }]);
  t.same(parse('.rôle'), [{ kind: 'key', key: 'rôle' }]);
  t.same(parse('."with.dot"."and [brackets]"'), [{ kind: 'key', key: 'with.dot' }, { kind: 'key', key: 'and [brackets]' }]);
});

t.test('refuses malformed keys', async (t) => {
  for (const bad of ['', 'role', '.', '..role', '.role.', '.ro-le', '."open', '.roles[', '.roles[x]', '.roles[-1]', '.roles[0]x']) {
    const r = parseRoleClaimKey(bad);
    t.notOk(r.ok, JSON.stringify(bad));
    if (!r.ok) t.match(r.error, /jwt-role-claim-key/);
  }
});

t.test('evaluates paths', async (t) => {
  const claims = { role: 'a', nested: { roles: ['x', 'y'] }, 'https://x.com/role': 'q', n: null };
  t.equal(evaluateRolePath(claims, parse('.role')), 'a');
  t.equal(evaluateRolePath(claims, parse('.nested.roles[1]')), 'y');
  t.equal(evaluateRolePath(claims, parse('.nested.roles[2]')), undefined, 'index out of range');
  t.equal(evaluateRolePath(claims, parse('.nested[0]')), undefined, 'index into an object');
  t.equal(evaluateRolePath(claims, parse('.role.x')), undefined, 'key into a string');
  t.equal(evaluateRolePath(claims, parse('.nested.roles.length')), undefined, 'key into an array');
  t.equal(evaluateRolePath(claims, parse('.toString')), undefined, 'no prototype lookups');
  t.equal(evaluateRolePath(claims, parse('."https://x.com/role"')), 'q');
});

t.test('roleFromClaims', async (t) => {
  t.equal(roleFromClaims({ role: 'a' }, parse('.role')), 'a');
  t.equal(roleFromClaims({ role: 7 }, parse('.role')), '7');
  t.equal(roleFromClaims({ role: true }, parse('.role')), 'true');
  t.equal(roleFromClaims({ role: null }, parse('.role')), undefined);
  t.equal(roleFromClaims({}, parse('.role')), undefined);
});
