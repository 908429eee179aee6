// CMS log-in hardening (issue #26, finding 8): a failed log-in answers the same for an unknown login, a
// disabled user and a wrong password (one bcrypt comparison each, against a dummy hash of the same cost
// when the login is unknown); hashes are bcrypt at cost 10; failures are counted per login name in
// cms.login_throttle, and the 5th within 15 minutes locks the name: 429 + Retry-After, bounded, reset by
// a successful log-in. Timings are only logged: the assertions are on answers and on the table.
import { createHash } from 'node:crypto';
import t from 'tap';
import type { TestResponse, TestServer } from '../../helpers/server.js';
import { BASE, PASSWORDS, startCmsServer } from './cms-server.js';

const keyOf = (login: string) => createHash('sha256').update(login, 'utf8').digest();

function post(s: TestServer, login: string, password: string, accept = 'application/json'): Promise<TestResponse> {
  return s.request(`${BASE}/user/sessions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: accept },
    body: JSON.stringify({ SessionInput: { login, password } }),
  });
}

/** What a client sees of an answer, without the headers that differ on every response. */
function seen(res: TestResponse): { status: number; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (!['date', 'server-timing', 'x-request-id'].includes(k)) headers[k] = String(v);
  return { status: res.status, headers, body: res.text };
}

async function throttleRow(s: TestServer, login: string): Promise<{ failures: number; locked: boolean; locked_until: string | null } | undefined> {
  const rows = await s.db.query<{ failures: number; locked: boolean; locked_until: string | null }>(
    'SELECT failures, coalesce(locked_until > now(), false) AS locked, locked_until::text FROM cms.login_throttle WHERE login_key = $1', [keyOf(login)]);
  return rows[0];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

t.test('CMS log-in: no enumeration, bcrypt cost 10, throttled failures', async (t) => {
  const s = await startCmsServer(t);

  t.test('unknown login, disabled user, wrong password: the same answer', async (t) => {
    for (const accept of ['application/json', 'application/xml']) {
      const answers = [
        await post(s, 'nobody-' + accept, 'x', accept),
        await post(s, 'translator', PASSWORDS['translator']!, accept),
        await post(s, 'admin', 'wrong-' + accept, accept),
      ].map(seen);
      t.equal(answers[0]!.status, 401);
      t.notOk('set-cookie' in answers[0]!.headers, 'no cookie');
      t.same(answers[1], answers[0], `disabled user = unknown login (${accept})`);
      t.same(answers[2], answers[0], `wrong password = unknown login (${accept})`);
    }
    const json = (await post(s, 'nobody-else', 'x')).json();
    t.same(json, { ErrorMessage: { '_media-type': 'application/vnd.cms.api.ErrorMessage+json', errorCode: 401,
      errorMessage: 'Unauthorized', errorDescription: 'Invalid login or password.' } });
  });

  t.test('hashes are bcrypt at cost 10, the dummy one too', async (t) => {
    const users = await s.db.query<{ login: string; prefix: string }>('SELECT login, left(password_hash, 7) AS prefix FROM cms.users ORDER BY id');
    t.same(users.map((u) => u.prefix), users.map(() => '$2a$10$'), users.map((u) => u.login).join(', '));
    const [cfg] = await s.db.query<{ prefix: string }>('SELECT left(dummy_password_hash, 7) AS prefix FROM cms.settings');
    t.equal(cfg!.prefix, '$2a$10$');
  });

  t.test('the 5th failure locks the name: 429 + Retry-After, even for the right password', async (t) => {
    for (let i = 1; i <= 5; i++) {
      t.equal((await post(s, 'editor', `wrong-${i}`)).status, 401, `failure ${i}`);
      // Counted although the request failed: the failure is answered, not raised, so it is committed.
      t.equal((await throttleRow(s, 'editor'))?.failures, i, `${i} failure(s) recorded`);
    }
    const locked = await post(s, 'editor', PASSWORDS['editor']!);
    t.equal(locked.status, 429);
    t.notOk(locked.headers['set-cookie'], 'no session');
    t.equal(locked.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+json');
    const retry = Number(locked.headers['retry-after']);
    t.ok(Number.isInteger(retry) && retry >= 1 && retry <= 900, `Retry-After: ${locked.headers['retry-after']}`);
    t.match(locked.json(), { ErrorMessage: { errorCode: 429, errorMessage: 'Too Many Requests' } });
    const xml = await post(s, 'editor', 'x', 'application/xml');
    t.equal(xml.status, 429);
    t.match(xml.text, /<ErrorMessage media-type="application\/vnd\.cms\.api\.ErrorMessage\+xml"><errorCode>429<\/errorCode>/);
    t.equal((await s.db.query("SELECT count(*)::int AS n FROM cms.sessions WHERE user_id = 41"))[0]!.n, 0, 'no session was opened');

    const before = await throttleRow(s, 'editor');
    for (let i = 0; i < 3; i++) t.equal((await post(s, 'editor', 'again')).status, 429);
    t.same(await throttleRow(s, 'editor'), before, 'attempts while locked neither count nor extend the lock');

    t.equal((await post(s, 'admin', PASSWORDS['admin']!)).status, 201, 'other users are not affected');
  });

  t.test('an unknown name is throttled alike, so a 429 tells nothing either', async (t) => {
    for (let i = 1; i <= 5; i++) t.equal((await post(s, 'ghost', 'x')).status, 401);
    const ghost = seen(await post(s, 'ghost', 'x'));
    const editor = seen(await post(s, 'editor', 'x'));
    t.equal(ghost.status, 429);
    delete ghost.headers['retry-after'];
    delete editor.headers['retry-after'];
    t.same(ghost, editor, 'same answer as a locked known user');
  });

  t.test('the lock is bounded: once it is over, the right password logs in and clears the count', async (t) => {
    // As if the lock's 15 minutes had passed (no waiting in tests).
    await s.db.query("UPDATE cms.login_throttle SET window_start = now() - interval '30 minutes', locked_until = now() - interval '1 second' WHERE login_key = $1", [keyOf('editor')]);
    t.equal((await post(s, 'editor', PASSWORDS['editor']!)).status, 201);
    t.equal(await throttleRow(s, 'editor'), undefined, 'a successful log-in deletes the count');
  });

  t.test('after a lock ends, the count starts afresh', async (t) => {
    await s.db.query("UPDATE cms.login_throttle SET locked_until = now() - interval '1 second' WHERE login_key = $1", [keyOf('ghost')]);
    t.equal((await post(s, 'ghost', 'x')).status, 401, 'one more failure does not lock again at once');
    t.same(await throttleRow(s, 'ghost'), { failures: 1, locked: false, locked_until: null });
  });

  t.test('a successful log-in resets the count', async (t) => {
    for (let i = 0; i < 4; i++) t.equal((await post(s, 'visitor', 'wrong')).status, 401);
    t.equal((await throttleRow(s, 'visitor'))?.failures, 4);
    t.equal((await post(s, 'visitor', PASSWORDS['visitor']!)).status, 201);
    t.equal(await throttleRow(s, 'visitor'), undefined);
    for (let i = 0; i < 4; i++) t.equal((await post(s, 'visitor', 'wrong')).status, 401, 'four more failures: not locked');
    t.equal((await post(s, 'visitor', PASSWORDS['visitor']!)).status, 201);
  });

  t.test('a burst in parallel cannot pass the limit', async (t) => {
    const statuses = (await Promise.all(Array.from({ length: 10 }, () => post(s, 'burst', 'x')))).map((r) => r.status).sort();
    t.same(statuses, [401, 401, 401, 401, 401, 429, 429, 429, 429, 429], 'five 401s, then 429s');
  });

  t.test('a login name of any length the body limit lets through is counted', async (t) => {
    // Longer than a btree index entry may be (2,704 bytes), within the login's 8KB body limit.
    const long = 'x'.repeat(6_000);
    t.equal((await post(s, long, 'x')).status, 401);
    t.equal((await throttleRow(s, long))?.failures, 1);
  });

  t.test('timings of failed log-ins (logged, not asserted)', async (t) => {
    await s.db.query('UPDATE cms.settings SET login_max_failures = 1000000');
    t.teardown(() => s.db.query('UPDATE cms.settings SET login_max_failures = 5'));
    const time = async (login: string, password: string): Promise<number> => {
      const started = performance.now();
      const res = await post(s, login, password);
      if (res.status !== 401) throw new Error(`${login}: ${res.status}`);
      return performance.now() - started;
    };
    const runs = 50;
    const existing: number[] = [];
    const unknown: number[] = [];
    const disabled: number[] = [];
    for (let i = 0; i < runs; i++) {
      existing.push(await time('admin', `wrong-${i}`));
      unknown.push(await time(`nobody-${i}`, `wrong-${i}`));
      disabled.push(await time('translator', `wrong-${i}`));
    }
    t.comment(`median of ${runs} failed log-ins: existing ${median(existing).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms, disabled ${median(disabled).toFixed(1)} ms`);
    t.pass('measured');
  });
});
