// Errors raised in the database reach the client in the error model (seed, "Errors" and "Custom
// errors"; PostgREST docs, "Errors" → RAISE errors with HTTP status codes, "PGRST" raises).
// `GET /raising` with `X-Raise: <kind>` runs a view whose column raises that kind of error.
import t, { type Test } from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestResponse, type TestServer } from '../../helpers/server.js';

const raise = (s: TestServer, kind: string, method = 'GET') => s.request('/raising', { method, headers: { 'X-Raise': kind } });

function expectErrorModel(t: Test, res: TestResponse, status: number, body: Record<string, unknown>): void {
  t.equal(res.status, status, 'status');
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(res.headers['proxy-status'], `dbrest; error=${String(body['code'])}`);
  t.same(res.json(), body, 'body');
  t.same(Object.keys(res.json()), Object.keys(body), 'key order');
}

t.test('client-error-verbosity verbose (default)', async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'auth.sql')], config: { 'db-anon-role': 'auth_anon' } });

  t.test('no error: the view answers', async (t) => {
    const res = await s.request('/raising');
    t.equal(res.status, 200);
    t.same(res.json(), [{ result: 'no error' }]);
  });

  t.test('RAISE EXCEPTION (P0001): 400 with message, details and hint', async (t) => {
    expectErrorModel(t, await raise(s, 'p0001'), 400, { code: 'P0001', details: 'the details', hint: 'the hint', message: 'Something went wrong' });
    expectErrorModel(t, await raise(s, 'plain'), 400, { code: 'P0001', details: null, hint: null, message: 'Plain raise' });
  });

  t.test('RAISE SQLSTATE PT402: 402', async (t) => {
    expectErrorModel(t, await raise(s, 'pt402'), 402, { code: 'PT402', details: 'Quota exceeded', hint: 'Upgrade your plan', message: 'Payment Required' });
    expectErrorModel(t, await raise(s, 'pt418'), 418, { code: 'PT418', details: null, hint: null, message: 'I am a teapot' });
  });

  t.test('HEAD: status and Proxy-Status, no body', async (t) => {
    const res = await raise(s, 'pt402', 'HEAD');
    t.equal(res.status, 402);
    t.equal(res.text, '');
    t.equal(res.headers['proxy-status'], 'dbrest; error=PT402');
  });

  t.test("RAISE SQLSTATE 'DBRST' with JSON message and detail: status, headers and body from them", async (t) => {
    const res = await raise(s, 'dbrst');
    expectErrorModel(t, res, 402, { code: '123', details: 'Quota exceeded', hint: 'Upgrade your plan', message: 'Payment Required' });
    t.equal(res.headers['x-powered-by'], 'Nerd Rage');
    const head = await raise(s, 'dbrst', 'HEAD');
    t.equal(head.status, 402);
    t.equal(head.headers['proxy-status'], 'dbrest; error=123');
    t.equal(head.headers['x-powered-by'], 'Nerd Rage');
  });

  t.test("RAISE SQLSTATE 'DBRST' with a non-standard status and status_text", async (t) => {
    const res = await raise(s, 'dbrst-status-text');
    expectErrorModel(t, res, 420, { code: 'CALM', details: null, hint: null, message: 'Too many requests' });
    t.equal(res.headers['retry-after'], '5');
  });

  t.test("RAISE SQLSTATE 'DBRST' with invalid JSON: 500 DBRST121", async (t) => {
    expectErrorModel(t, await raise(s, 'dbrst-bad-message'), 500, {
      code: 'DBRST121',
      details: "Invalid JSON value for MESSAGE: 'not json at all'",
      hint: "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.",
      message: `Could not parse JSON in the "RAISE SQLSTATE 'DBRST'" error`,
    });
    const badDetail = await raise(s, 'dbrst-bad-detail');
    t.equal(badDetail.status, 500);
    t.equal(badDetail.json().code, 'DBRST121');
    t.equal(badDetail.json().details, `Invalid JSON value for DETAIL: '{"status":'`);
    const noDetail = await raise(s, 'dbrst-no-detail');
    t.equal(noDetail.status, 500);
    t.equal(noDetail.json().code, 'DBRST121');
    t.equal(noDetail.json().details, 'DETAIL is missing in the RAISE statement');
  });

  t.test('other database errors follow the SQLSTATE table', async (t) => {
    expectErrorModel(t, await raise(s, 'division'), 400, { code: '22012', details: null, hint: null, message: 'division by zero' });
    const missing = await s.request('/raising?select=nope');
    t.equal(missing.status, 400);
    t.equal(missing.headers['proxy-status'], `dbrest; error=${missing.json().code}`);
  });

  t.test('internals never reach the client (no stack, no SQL text)', async (t) => {
    const res = await raise(s, 'p0001');
    t.notMatch(res.text, /raise_kind|PL\/pgSQL|SELECT|stack/i);
  });
});

t.test('client-error-verbosity minimal: only code and message', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'client-error-verbosity': 'minimal' },
  });
  expectErrorModel(t, await raise(s, 'p0001'), 400, { code: 'P0001', message: 'Something went wrong' });
  expectErrorModel(t, await raise(s, 'pt402'), 402, { code: 'PT402', message: 'Payment Required' });
  const custom = await raise(s, 'dbrst');
  expectErrorModel(t, custom, 402, { code: '123', message: 'Payment Required' });
  t.equal(custom.headers['x-powered-by'], 'Nerd Rage', 'custom headers are kept');
  expectErrorModel(t, await raise(s, 'dbrst-bad-message'), 500, {
    code: 'DBRST121', message: `Could not parse JSON in the "RAISE SQLSTATE 'DBRST'" error`,
  });
  expectErrorModel(t, await s.request('/secrets'), 401, { code: '42501', message: 'permission denied for table secrets' });
  expectErrorModel(t, await s.request('/no_such_table'), 404, { code: 'DBRST205', message: (await s.request('/no_such_table')).json().message });
});
