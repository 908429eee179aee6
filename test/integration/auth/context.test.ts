// The request context SQL sees (PostgREST docs, "Transactions" → request GUCs, pre-request,
// response headers and status; "Configuration" → app.settings, db-extra-search-path,
// db-hoisted-tx-settings), proven through views whose columns read the settings.
import { SignJWT, type JWTPayload } from 'jose';
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

const SECRET = 'auth-integration-secret-of-at-least-32-chars';
const sign = (claims: JWTPayload) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
const bearer = async (claims: JWTPayload) => ({ Authorization: `Bearer ${await sign(claims)}` });

t.test('request GUCs', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: {
      'db-anon-role': 'auth_anon',
      'jwt-secret': SECRET,
      'db-extra-search-path': 'public, extensions',
      'app.settings.greeting': 'hello from config',
      'app.settings.other_thing': '42',
    },
  });

  t.test('method, path, headers, cookies, claims, role, search_path, app.settings', async (t) => {
    const claims = { role: 'auth_user', sub: 'alice', email: 'alice@example.com', nested: { a: [1, 2] } };
    const res = await s.request('/request_context?select=*', {
      headers: {
        ...(await bearer(claims)),
        'X-Custom-Header': 'Custom Value',
        Cookie: 'session=abc123; theme=dark',
        'User-Agent': 'dbrest-tests',
      },
    });
    t.equal(res.status, 200);
    const [ctx] = res.json();
    t.equal(ctx.current_user, 'auth_user', 'the role switch');
    t.equal(ctx.role, 'auth_user', 'the role GUC');
    t.equal(ctx.method, 'GET');
    t.equal(ctx.path, '/request_context');
    t.equal(ctx.headers['x-custom-header'], 'Custom Value', 'header names lower-cased');
    t.equal(ctx.headers['user-agent'], 'dbrest-tests');
    t.match(ctx.headers['authorization'], /^Bearer /, 'Authorization is among the headers (PostgREST)');
    t.notOk('cookie' in ctx.headers, 'the Cookie header is exposed as request.cookies only (PostgREST)');
    t.same(ctx.cookies, { session: 'abc123', theme: 'dark' });
    t.same(ctx.claims, claims, 'request.jwt.claims holds every claim');
    t.equal(ctx.search_path, '"public", "public", "extensions"', 'exposed schema + db-extra-search-path, as PostgREST (no deduplication)');
    t.equal(ctx.greeting, 'hello from config', 'app.settings.greeting');
    t.equal(ctx.other_thing, '42', 'app.settings.other_thing');
  });

  t.test('HEAD sets request.method to HEAD (the statement still runs)', async (t) => {
    const res = await s.request('/request_context', { method: 'HEAD' });
    t.equal(res.status, 200);
    t.equal(res.text, '');
  });

  t.test('anonymous: claims name the anonymous role (PostgREST v16), no cookies', async (t) => {
    const [ctx] = (await s.request('/request_context')).json();
    t.equal(ctx.current_user, 'auth_anon');
    t.same(ctx.claims, { role: 'auth_anon' });
    t.same(ctx.cookies, {});
  });

  t.test('db-extra-search-path: unqualified names resolve in the extra schema', async (t) => {
    const res = await s.request('/extra_search_path');
    t.equal(res.status, 200);
    t.same(res.json(), [{ answer: 42 }]);
  });

  t.test('settings are transaction-local: nothing leaks between requests', async (t) => {
    await s.request('/request_context', { headers: { ...(await bearer({ role: 'auth_user', sub: 'x' })), Cookie: 'a=1' } });
    const [ctx] = (await s.request('/request_context')).json();
    t.same(ctx.claims, { role: 'auth_anon' });
    t.same(ctx.cookies, {});
    t.equal(ctx.current_user, 'auth_anon');
  });
});

t.test('without db-extra-search-path set: search_path is the schema then public', async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'auth.sql')], config: { 'db-anon-role': 'auth_anon' } });
  const [ctx] = (await s.request('/request_context')).json();
  t.equal(ctx.search_path, '"public", "public"');
  t.equal(ctx.greeting, null, 'no app.settings configured');
  const res = await s.request('/extra_search_path');
  t.equal(res.status, 404, 'extensions is not on the search_path: the function is not found');
  t.equal(res.json().code, '42883');
});

t.test('response.status and response.headers set by SQL', async (t) => {
  const s = await startTestServer(t, { fixtures: [fixture('sql', 'auth.sql')], config: { 'db-anon-role': 'auth_anon' } });

  t.test('reach the client', async (t) => {
    const res = await s.request('/teapot');
    t.equal(res.status, 418);
    t.equal(res.headers['x-custom'], 'yes');
    t.equal(res.headers['cache-control'], 'no-store');
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(res.json().length, 1);
    const head = await s.request('/teapot', { method: 'HEAD' });
    t.equal(head.status, 418, 'HEAD too');
    t.equal(head.headers['x-custom'], 'yes');
  });

  t.test('a header set by SQL replaces the one dbrest would send, whatever its case', async (t) => {
    const res = await s.request('/csv_override');
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'text/csv; charset=utf-8', 'one Content-Type: the one SQL chose');
  });

  t.test('an invalid response.status: 500 DBRST112', async (t) => {
    const res = await s.request('/bad_status');
    t.equal(res.status, 500);
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST112');
    t.equal(res.json().code, 'DBRST112');
  });

  t.test('an invalid response.headers: 500 DBRST111', async (t) => {
    const res = await s.request('/bad_headers');
    t.equal(res.status, 500);
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST111');
    t.same(res.json(), {
      code: 'DBRST111', details: null, hint: null,
      message: 'response.headers guc must be a JSON array composed of objects with a single key and a string value',
    });
  });

  t.test('a header HTTP cannot carry (bad name, CR/LF in a value): 500 DBRST111, never a crash or an injected header', async (t) => {
    for (const view of ['bad_header_name', 'bad_header_value']) {
      const res = await s.request(`/${view}`);
      t.equal(res.status, 500, view);
      t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST111', view);
      t.equal(res.json().code, 'DBRST111', view);
      t.notOk(res.headers['set-cookie'], `${view}: nothing injected`);
    }
    t.equal((await s.request('/whoami')).status, 200, 'still serving');
  });

  t.test('the GUCs are transaction-local: the next request is plain 200', async (t) => {
    await s.request('/teapot');
    const res = await s.request('/whoami');
    t.equal(res.status, 200);
    t.notOk(res.headers['x-custom']);
  });
});

t.test('db-pre-request', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET, 'db-pre-request': 'public.check_request' },
  });

  t.test('runs before the main statement, as the request role, and can set response headers', async (t) => {
    const res = await s.request('/request_context');
    t.equal(res.status, 200);
    t.equal(res.headers['x-pre-request'], 'ran');
    t.equal(res.json()[0].pre_request_ran_as, 'auth_anon', 'a setting made by pre-request is visible to the main statement');
    const authed = await s.request('/request_context', { headers: await bearer({ role: 'auth_user' }) });
    t.equal(authed.json()[0].pre_request_ran_as, 'auth_user', 'after the role switch');
  });

  t.test('can set response.status', async (t) => {
    const res = await s.request('/whoami', { headers: { 'X-Pre-Status': '202' } });
    t.equal(res.status, 202);
  });

  t.test('can refuse the request with PT403', async (t) => {
    const res = await s.request('/whoami', { headers: { 'X-Block': 'yes' } });
    t.equal(res.status, 403);
    t.equal(res.headers['proxy-status'], 'dbrest; error=PT403');
    t.same(res.json(), { code: 'PT403', details: 'x-block: yes', hint: 'Do not send x-block', message: 'Blocked by the pre-request function' });
    t.notOk(res.headers['x-pre-request'], 'nothing of the failed transaction leaks out');
  });

  t.test('the main statement does not run when pre-request raises', async (t) => {
    const started = Date.now();
    const res = await s.request('/sleep_1s', { headers: { 'X-Block': 'yes' } });
    t.equal(res.status, 403);
    t.ok(Date.now() - started < 900, `answered in ${Date.now() - started} ms: pg_sleep(1) never ran`);
  });
});

t.test('db-pre-request naming a missing function: the database error', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'db-pre-request': 'public.no_such_function' },
  });
  const res = await s.request('/whoami');
  t.equal(res.status, 404);
  t.equal(res.json().code, '42883');
  t.equal(res.headers['proxy-status'], 'dbrest; error=42883');
});

t.test('hoisted per-role settings (ALTER ROLE … SET statement_timeout)', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET },
  });
  const asTimeout = await bearer({ role: 'auth_timeout' });

  t.test('the role setting is applied after the role switch; settings not listed are not', async (t) => {
    const [ctx] = (await s.request('/request_context', { headers: asTimeout })).json();
    t.equal(ctx.current_user, 'auth_timeout');
    t.equal(ctx.statement_timeout, '300ms', 'statement_timeout is in db-hoisted-tx-settings by default');
    t.not(ctx.work_mem, '77kB', 'work_mem is not hoisted');
    const [anon] = (await s.request('/request_context')).json();
    t.equal(anon.statement_timeout, '0', 'other roles keep the default');
  });

  t.test('and takes effect: pg_sleep(1) → 57014 → 500', async (t) => {
    const started = Date.now();
    const res = await s.request('/sleep_1s', { headers: asTimeout });
    const ms = Date.now() - started;
    t.equal(res.status, 500);
    t.equal(res.headers['proxy-status'], 'dbrest; error=57014');
    const body = res.json();
    t.same({ ...body, hint: null }, { code: '57014', details: null, hint: null, message: 'canceling statement due to statement timeout' });
    t.match(body.hint, /statement_timeout/, 'the hint names the setting');
    t.ok(ms < 900, `cancelled after ${ms} ms`);
    const anon = await s.request('/sleep_1s');
    t.equal(anon.status, 200, 'the anonymous role has no timeout');
  });
});

t.test('db-hoisted-tx-settings can name other settings', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'auth.sql')],
    config: { 'db-anon-role': 'auth_anon', 'jwt-secret': SECRET, 'db-hoisted-tx-settings': 'work_mem' },
  });
  const [ctx] = (await s.request('/request_context', { headers: await bearer({ role: 'auth_timeout' }) })).json();
  t.equal(ctx.work_mem, '77kB');
  t.equal(ctx.statement_timeout, '0', 'statement_timeout is no longer hoisted');
});
