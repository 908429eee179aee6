// The embed budget (db-max-embed-depth, db-max-embeds; issue #26 findings 1 and 2): the attacks are
// answered 400 in the error model before any SQL runs (the pre-request probe never fires), and
// the server answers the next request as usual.
import t from 'tap';
import { exponential, siblings, startQuickstart, TRIP } from './quickstart.js';

t.test('defaults: depth 8, 64 embeds', async (t) => {
  const s = await startQuickstart(t);

  t.test('the probe sees requests that reach PostgreSQL', async (t) => {
    const res = await s.request(`/films?select=${exponential(1)}`, { headers: TRIP });
    t.equal(res.status, 418);
    t.equal(res.json().message, 'the request reached the database');
  });

  t.test('finding 1: exponential embedding, n=18 (depth 36) is refused before any SQL runs', async (t) => {
    const res = await s.request(`/films?select=${exponential(18)}`, { headers: TRIP });
    t.equal(res.status, 400);
    t.equal(res.headers['proxy-status'], 'dbrest; error=DBRST700');
    t.same(res.json(), {
      code: 'DBRST700',
      message: 'The select nests embeds 36 levels deep; at most 8 are allowed',
      details: null,
      hint: "Embed fewer levels in one request (the server's db-max-embed-depth)",
    });
    const next = await s.request('/films?select=id,title&id=eq.1');
    t.equal(next.status, 200, 'the server answers the next request');
    t.equal(next.json().length, 1);
  });

  t.test('finding 2: 800 sibling embeds are refused before any SQL runs', async (t) => {
    const res = await s.request(`/films?select=${siblings(800)}`, { headers: TRIP });
    t.equal(res.status, 400);
    t.same(res.json(), {
      code: 'DBRST701',
      message: 'The select has 800 embeds; at most 64 are allowed',
      details: null,
      hint: "Ask for fewer embedded resources in one request (the server's db-max-embeds)",
    });
    t.equal((await s.request('/directors?select=id&limit=1')).status, 200, 'the server answers the next request');
  });

  t.test('at the bounds: depth 8 and 64 embeds run; depth 9 and 65 embeds do not', async (t) => {
    const depth8 = await s.request(`/films?select=${exponential(4)}&id=eq.1`);
    t.equal(depth8.status, 200, 'depth 8');
    t.equal(depth8.json()[0].directors.films[0].directors.films[0].directors.films[0].directors.films[0].id, 1, 'nested as asked');
    const depth9 = await s.request(`/films?select=id,${'directors(id,films('.repeat(4)}id,directors(id)${'))'.repeat(4)}`, { headers: TRIP });
    t.equal(depth9.json().code, 'DBRST700');
    const sixtyFour = await s.request(`/films?select=${siblings(64)}&id=eq.1`);
    t.equal(sixtyFour.status, 200, '64 embeds');
    t.equal(sixtyFour.json()[0].d63.id, sixtyFour.json()[0].d0.id);
    const sixtyFive = await s.request(`/films?select=${siblings(65)}`, { headers: TRIP });
    t.equal(sixtyFive.json().code, 'DBRST701');
  });

  t.test('spreads count as embeds and as levels', async (t) => {
    const spreadOk = await s.request(`/films?select=id,...directors(director:name),${siblings(63).slice(3)}&id=eq.1`);
    t.equal(spreadOk.status, 200, '63 embeds and a spread');
    const spreadOver = await s.request(`/films?select=id,...directors(director:name),${siblings(64).slice(3)}`, { headers: TRIP });
    t.equal(spreadOver.json().code, 'DBRST701', '64 embeds and a spread');
    const deep = `id,${'directors(id,films('.repeat(4)}id,...directors(name)${'))'.repeat(4)}`;
    t.equal((await s.request(`/films?select=${deep}`, { headers: TRIP })).json().code, 'DBRST700', 'a spread at level 9');
  });

  t.test('also on writes with return=representation and on function calls', async (t) => {
    const body = { film_id: 1, author: 'budget-test', stars: 3, body: 'x' };
    const write = await s.request(`/reviews?select=id,films(${'directors(id,films('.repeat(5)}id${'))'.repeat(5)})`, {
      method: 'POST',
      headers: { ...TRIP, Prefer: 'return=representation' },
      body,
    });
    t.equal(write.json().code, 'DBRST700', 'refused before the insert');
    const rows = await s.db.query(`SELECT count(*)::int AS n FROM reviews WHERE author = 'budget-test'`);
    t.equal(rows[0]!.n, 0, 'nothing was written');
    const call = await s.request(`/rpc/search_films?query=a&select=${exponential(5)}`, { headers: TRIP });
    t.equal(call.json().code, 'DBRST700');
  });
});

t.test('thousands of columns: 400 54011, not a server error', async (t) => {
  const s = await startQuickstart(t);
  const res = await s.request(`/films?select=${Array(2000).fill('id').join(',')}`);
  t.equal(res.status, 400);
  t.equal(res.json().code, '54011');
  t.equal(res.json().hint, 'Select fewer columns in one request');
  t.equal((await s.request('/films?select=id&id=eq.1')).status, 200, 'the server answers the next request');
});

t.test('0 lifts a bound', async (t) => {
  const s = await startQuickstart(t, { 'db-max-embed-depth': '0', 'db-max-embeds': '0' });
  const deep = await s.request(`/films?select=${exponential(5)}&id=eq.1`);
  t.equal(deep.status, 200, 'depth 10 runs');
  const wide = await s.request(`/films?select=${siblings(70)}&id=eq.1`);
  t.equal(wide.status, 200, '70 embeds run');
});

t.test('lower bounds from the configuration', async (t) => {
  const s = await startQuickstart(t, { 'db-max-embed-depth': '2', 'db-max-embeds': '3' });
  t.equal((await s.request(`/films?select=${exponential(1)}&id=eq.1`)).status, 200, 'depth 2');
  t.equal((await s.request(`/films?select=${exponential(2)}`, { headers: TRIP })).json().message, 'The select nests embeds 4 levels deep; at most 2 are allowed');
  t.equal((await s.request(`/films?select=${siblings(4)}`, { headers: TRIP })).json().message, 'The select has 4 embeds; at most 3 are allowed');
});
