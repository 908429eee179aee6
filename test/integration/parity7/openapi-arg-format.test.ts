// Issue 28, PostgREST's OpenApiSpec ("varied_arguments_openapi"): an argument whose type is an enum
// of the function's own schema has `format: "enum_menagerie_type"`, without the schema, in the GET
// parameters and in the POST body; a column of that type keeps `test.enum_menagerie_type`.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('argument formats leave out the function\'s own schema, column formats keep it', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity7-openapi.sql')],
    config: { 'db-schemas': 'parity7_api', 'db-anon-role': 'postgres' },
  });
  const res = await s.request('/', { headers: { Accept: 'application/openapi+json' } });
  t.equal(res.status, 200);
  const doc = res.json();
  const path = doc.paths['/rpc/moods_seen'];
  const byName = Object.fromEntries(path.get.parameters.filter((p: { name?: string }) => p.name).map((p: { name: string }) => [p.name, p]));
  t.equal(byName.m.format, 'mood', 'GET parameter');
  t.equal(byName.ms.format, 'mood[]', 'an array of it');
  t.equal(byName.note.format, 'text');
  const body = path.post.parameters.find((p: { in: string }) => p.in === 'body').schema.properties;
  t.same(body.m, { format: 'mood', type: 'string' }, 'POST body property');
  t.equal(doc.definitions.diary.properties.mood.format, 'parity7_api.mood', 'a column keeps the schema');
});
