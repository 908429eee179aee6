// Issue 28, item 9: the OpenAPI answers of PostgREST's OpenApiSpec: application/openapi+json off the
// root is 406, the docs link, RPC argument formats, and the document of a role that may not use a
// schema one of the API's functions names (an argument type's) is 200, listing what it may call.
import { SignJWT } from 'jose';
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const SECRET = 'reallyreallyreallyreallyverysafe';

t.test('OpenAPI as PostgREST answers it', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity5.sql')],
    config: { 'db-schemas': 'parity5', 'db-anon-role': 'postgres', 'jwt-secret': SECRET },
  });

  const offRoot = await s.request('/projects', { headers: { Accept: 'application/openapi+json' } });
  t.equal(offRoot.status, 406, 'openapi+json on a table');
  t.equal(offRoot.json().code, 'DBRST107');
  t.equal((await s.request('/rpc/getprojects', { headers: { Accept: 'application/openapi+json' } })).status, 406, 'on a function');
  t.equal((await s.request('/', { headers: { Accept: 'text/csv' } })).status, 406, 'the root in CSV');

  const doc = (await s.request('/')).json();
  t.strictSame(doc.externalDocs, { description: 'PostgREST Documentation', url: 'https://postgrest.org/en/latest/references/api.html' });
  const params = doc.paths['/rpc/varied_arguments'].get.parameters as Array<{ name: string; format: string; type: string }>;
  t.strictSame(params.map((p) => [p.name, p.format, p.type]), [
    ['double', 'double precision', 'number'],
    ['varchar', 'character varying', 'string'],
    ['bigint_arr', 'bigint[]', 'string'],
    ['varchar_arr', 'character varying[]', 'string'],
    ['num', 'numeric', 'number'],
    ['ch', 'character varying', 'string'],
  ]);

  const token = await new SignJWT({ role: 'parity5_author' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
  const author = await s.request('/', { headers: { Authorization: `Bearer ${token}` } });
  t.equal(author.status, 200, 'a role without USAGE on an argument type\'s schema still gets the document');
  const paths = author.json().paths;
  t.strictSame(paths['/authors_only'].post.tags, ['authors_only'], 'includes table if user has permission');
  t.strictSame(paths['/rpc/privileged_hello'].post.tags, ['(rpc) privileged_hello'], 'includes function if user has permission');
  t.notOk('/projects' in paths, 'not a table it may not access');
  t.notOk('/rpc/private_mood' in paths, 'not a function whose argument type it may not name');
  t.ok('/rpc/private_mood' in doc.paths, 'which the anonymous role (postgres) sees');
});
