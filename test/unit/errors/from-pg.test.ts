import t from 'tap';

import type { PgError } from '../../../src/db/pg-error.js';
import { apiErrorFromPg } from '../../../src/errors/from-pg.js';

const pg = (code: string, message: string, extra: Partial<PgError> = {}): PgError => ({ code, message, ...extra });

t.test('a database error keeps its code, message, detail and hint', async (t) => {
  const e = apiErrorFromPg(
    pg('23505', 'duplicate key value violates unique constraint "films_pkey"', {
      detail: 'Key (id)=(1) already exists.',
      hint: 'pick another id',
      constraint: 'films_pkey',
    }),
    true,
  );
  t.same(e, {
    code: '23505',
    status: 409,
    message: 'duplicate key value violates unique constraint "films_pkey"',
    details: 'Key (id)=(1) already exists.',
    hint: 'pick another id',
  });
});

t.test('absent detail and hint become null', async (t) => {
  const e = apiErrorFromPg(pg('22P02', 'invalid input syntax for type integer: "x"'), false);
  t.equal(e.status, 400);
  t.equal(e.details, null);
  t.equal(e.hint, null);
  t.equal(e.headers, undefined);
});

t.test('the default RAISE is a 400 P0001', async (t) => {
  const e = apiErrorFromPg(pg('P0001', 'nope'), true);
  t.equal(e.status, 400);
  t.equal(e.code, 'P0001');
});

t.test('42501: 401 with a Bearer challenge when anonymous, 403 when authenticated', async (t) => {
  const anon = apiErrorFromPg(pg('42501', 'permission denied for table films'), false);
  t.equal(anon.status, 401);
  t.same(anon.headers, { 'WWW-Authenticate': 'Bearer' });
  const authed = apiErrorFromPg(pg('42501', 'permission denied for table films'), true);
  t.equal(authed.status, 403);
  t.equal(authed.headers, undefined);
});

t.test('RAISE SQLSTATE PT<xyz>: status xyz, body from message/detail/hint', async (t) => {
  const e = apiErrorFromPg(pg('PT402', 'Payment Required', { detail: 'Quota exceeded', hint: 'Upgrade your plan' }), false);
  t.same(e, { code: 'PT402', status: 402, message: 'Payment Required', details: 'Quota exceeded', hint: 'Upgrade your plan' });
  t.equal(apiErrorFromPg(pg('PT123', 'custom'), false).status, 123);
});

t.test('RAISE SQLSTATE PT401 also challenges', async (t) => {
  const e = apiErrorFromPg(pg('PT401', 'who are you'), false);
  t.equal(e.status, 401);
  t.same(e.headers, { 'WWW-Authenticate': 'Bearer' });
});

t.test('RAISE SQLSTATE DBRST: status, status text, headers and body from the JSON', async (t) => {
  const e = apiErrorFromPg(
    pg('DBRST', JSON.stringify({ code: '123', message: 'Payment Required', details: 'Quota exceeded', hint: 'Upgrade your plan' }), {
      detail: JSON.stringify({ status: 402, status_text: 'Payment Required', headers: { 'X-Powered-By': 'Nerd Rage' } }),
    }),
    false,
  );
  t.same(e, {
    code: '123',
    status: 402,
    statusText: 'Payment Required',
    message: 'Payment Required',
    details: 'Quota exceeded',
    hint: 'Upgrade your plan',
    headers: { 'X-Powered-By': 'Nerd Rage' },
  });
});

t.test('RAISE SQLSTATE DBRST: optional keys may be absent; no challenge is added on 401', async (t) => {
  const e = apiErrorFromPg(pg('DBRST', '{"code":"AUTH1","message":"Log in"}', { detail: '{"status":401}' }), true);
  t.same(e, { code: 'AUTH1', status: 401, message: 'Log in', details: null, hint: null });
});

t.test('RAISE SQLSTATE DBRST with unparsable JSON → DBRST121', async (t) => {
  const cases: ReadonlyArray<readonly [string, PgError, RegExp, RegExp]> = [
    ['message not JSON', pg('DBRST', 'oops', { detail: '{"status":400}' }), /^Invalid JSON value for MESSAGE: 'oops'$/, /^MESSAGE must/],
    ['message without code', pg('DBRST', '{"message":"m"}', { detail: '{"status":400}' }), /MESSAGE/, /^MESSAGE must/],
    ['message is an array', pg('DBRST', '[1]', { detail: '{"status":400}' }), /MESSAGE/, /^MESSAGE must/],
    ['details not a string', pg('DBRST', '{"code":"c","message":"m","details":1}', { detail: '{"status":400}' }), /MESSAGE/, /^MESSAGE must/],
    ['detail missing', pg('DBRST', '{"code":"c","message":"m"}'), /^DETAIL is missing in the RAISE statement$/, /^DETAIL must/],
    ['detail not JSON', pg('DBRST', '{"code":"c","message":"m"}', { detail: 'x' }), /^Invalid JSON value for DETAIL: 'x'$/, /^DETAIL must/],
    ['status missing', pg('DBRST', '{"code":"c","message":"m"}', { detail: '{"headers":{}}' }), /DETAIL/, /^DETAIL must/],
    ['status not an integer', pg('DBRST', '{"code":"c","message":"m"}', { detail: '{"status":"400"}' }), /DETAIL/, /^DETAIL must/],
    ['status out of range', pg('DBRST', '{"code":"c","message":"m"}', { detail: '{"status":42}' }), /DETAIL/, /^DETAIL must/],
    ['header value not a string', pg('DBRST', '{"code":"c","message":"m"}', { detail: '{"status":400,"headers":{"X-A":1}}' }), /DETAIL/, /^DETAIL must/],
    ['header value with a newline', pg('DBRST', '{"code":"c","message":"m"}', { detail: '{"status":400,"headers":{"X-A":"a\\r\\nSet-Cookie: x"}}' }), /DETAIL/, /^DETAIL must/],
    ['bad header name', pg('DBRST', '{"code":"c","message":"m"}', { detail: '{"status":400,"headers":{"X A":"a"}}' }), /DETAIL/, /^DETAIL must/],
  ];
  for (const [name, input, details, hint] of cases) {
    const e = apiErrorFromPg(input, false);
    t.equal(e.code, 'DBRST121', name);
    t.equal(e.status, 500, name);
    t.equal(e.message, `Could not parse JSON in the "RAISE SQLSTATE 'DBRST'" error`, name);
    t.match(e.details, details, name);
    t.match(e.hint, hint, name);
  }
});
