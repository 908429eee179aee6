// Which root document an Accept header gets (PostgREST: application/openapi+json, application/json
// and */* get the document, anything else 406; dbrest: `version=3.1` or openapi-version for 3.1).
import t from 'tap';
import { parseAccept } from '../../../src/request/media-type.js';
import { negotiateOpenApi } from '../../../src/response/openapi/negotiate.js';

const pick = (accept: string | undefined, configured: '2.0' | '3.1' = '2.0') => {
  const r = negotiateOpenApi(parseAccept(accept), configured);
  return r.ok ? [r.value.version, r.value.contentType] : [r.error.code, r.error.status];
};

t.test('Swagger 2.0 by default, with PostgREST Content-Type', async (t) => {
  const v20 = ['2.0', 'application/openapi+json; charset=utf-8'];
  t.strictSame(pick(undefined), v20);
  t.strictSame(pick('*/*'), v20);
  t.strictSame(pick('application/json'), v20);
  t.strictSame(pick('application/openapi+json'), v20);
  t.strictSame(pick('application/openapi+json;version=2.0'), v20);
  t.strictSame(pick('application/openapi+json; version=3.1', '3.1').slice(0, 1), ['3.1']);
  t.strictSame(pick('application/openapi+json;version=2.0', '3.1'), v20, 'asked by name over the configured one');
});

t.test('OpenAPI 3.1: by the version parameter or openapi-version', async (t) => {
  const v31 = ['3.1', 'application/openapi+json; version=3.1; charset=utf-8'];
  t.strictSame(pick('application/openapi+json;version=3.1'), v31);
  t.strictSame(pick('application/openapi+json;version="3.1.0"'), v31);
  t.strictSame(pick('application/json', '3.1'), v31);
  t.strictSame(pick('*/*', '3.1'), v31);
  t.strictSame(pick('application/openapi+json', '3.1'), v31);
  t.strictSame(pick('application/openapi+json;version=3.1;q=0.5, application/json'), ['2.0', 'application/openapi+json; charset=utf-8'], 'q-values decide');
});

t.test('anything else: 406 DBRST107', async (t) => {
  t.strictSame(pick('text/csv'), ['DBRST107', 406]);
  t.strictSame(pick('application/openapi+json;version=3.0'), ['DBRST107', 406], 'a version not served');
  t.strictSame(pick('application/*'), ['DBRST107', 406], 'PostgREST: only */* is a wildcard here');
  t.strictSame(pick('application/openapi+json;version=3.0, text/csv;q=0.5, */*;q=0.1'), ['2.0', 'application/openapi+json; charset=utf-8']);
});
