import t from 'tap';

import { renderError } from '../../../src/errors/render.js';
import type { ApiError } from '../../../src/errors/types.js';

const sample: ApiError = {
  code: '23505',
  status: 409,
  message: 'duplicate key value violates unique constraint "films_pkey"',
  details: 'Key (id)=(1) already exists.',
  hint: null,
};

t.test('verbose: code, details, hint, message in that order', async (t) => {
  const r = renderError(sample, 'verbose');
  t.equal(r.status, 409);
  t.equal(
    r.body,
    '{"code":"23505","details":"Key (id)=(1) already exists.","hint":null,"message":"duplicate key value violates unique constraint \\"films_pkey\\""}',
  );
  t.same(Object.keys(JSON.parse(r.body)), ['code', 'details', 'hint', 'message']);
  t.equal(r.statusText, undefined);
});

t.test('minimal: code and message only', async (t) => {
  const r = renderError(sample, 'minimal');
  t.equal(r.body, '{"code":"23505","message":"duplicate key value violates unique constraint \\"films_pkey\\""}');
});

t.test('headers: content type and Proxy-Status', async (t) => {
  const r = renderError(sample, 'verbose');
  t.same(r.headers, { 'Content-Type': 'application/json; charset=utf-8', 'Proxy-Status': 'dbrest; error=23505' });
});

t.test("the error's own headers are added and replace same-named base headers", async (t) => {
  const r = renderError(
    { ...sample, status: 401, headers: { 'WWW-Authenticate': 'Bearer', 'content-type': 'application/problem+json' } },
    'verbose',
  );
  t.same(r.headers, {
    'Proxy-Status': 'dbrest; error=23505',
    'WWW-Authenticate': 'Bearer',
    'content-type': 'application/problem+json',
  });
});

t.test('a status text is passed through', async (t) => {
  const r = renderError({ ...sample, status: 419, statusText: 'Page Expired' }, 'minimal');
  t.equal(r.status, 419);
  t.equal(r.statusText, 'Page Expired');
});

t.test('Proxy-Status quotes a custom code that is not a token', async (t) => {
  t.equal(renderError({ ...sample, code: '123' }, 'minimal').headers['Proxy-Status'], 'dbrest; error=123');
  t.equal(renderError({ ...sample, code: 'my code' }, 'minimal').headers['Proxy-Status'], 'dbrest; error="my code"');
  t.equal(renderError({ ...sample, code: 'my "code"\n' }, 'minimal').headers['Proxy-Status'], 'dbrest; error="my \\"code\\""');
  t.equal(renderError({ ...sample, code: 'DBRST116' }, 'minimal').headers['Proxy-Status'], 'dbrest; error=DBRST116');
  t.equal(renderError({ ...sample, code: 'PT402' }, 'minimal').headers['Proxy-Status'], 'dbrest; error=PT402');
});
