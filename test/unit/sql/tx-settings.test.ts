// sql/tx-settings.ts: request.headers is the JSON of the request's headers (without Cookie) for
// every request, though the JSON of the headers sent last is kept and given again when a request's
// names and values are the same, in the same order; request.cookies and request.jwt.claims are
// the JSON of their objects, frozen ones' kept.
import t from 'tap';
import { contextSettings } from '../../../src/sql/tx-settings.js';

const cfg = { dbExtraSearchPath: [], appSettings: {} };
const who = { role: 'anon', claims: Object.freeze({ role: 'anon' }) };
const settingsOf = (headers: Record<string, string>, cookies: Readonly<Record<string, string>> = Object.freeze({})) =>
  new Map(contextSettings({ method: 'GET', path: '/t', headers, cookies, schema: 'public' }, who, cfg));
const headersOf = (h: Record<string, string>) => settingsOf(h).get('request.headers');
const without = (h: Record<string, string>) => JSON.stringify(Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'cookie')));

t.test('request.headers follows every change of the headers', async (t) => {
  const base = { host: 'x', accept: 'application/json', prefer: 'return=minimal' };
  const sequence: Array<Record<string, string>> = [
    base,
    { ...base },
    { ...base, prefer: 'return=representation' }, // a value changed
    { host: 'x', prefer: 'return=representation', accept: 'application/json' }, // the same pairs, in another order
    { host: 'x', prefer: 'return=representation' }, // one fewer
    { host: 'x', prefer: 'return=representation', accept: 'application/json', extra: '1' }, // one more
    { host: 'x', prefer: 'return=representation', accept: 'application/json', extra: '1', cookie: 'a=1' }, // a cookie
    { host: 'x', prefer: 'return=representation', accept: 'application/json', extra: '1', cookie: 'a=2' },
    { host: 'x', prefer: 'return=representation', accept: 'application/json', extra: '1' },
    {},
    {},
    { 'x-big': 'v'.repeat(5000) },
    { 'x-big': 'v'.repeat(5000) },
    { 'x-big': 'w'.repeat(5000) },
    { 'x-quote': 'a"b\\c\u0001é' },
    base,
  ];
  for (const h of sequence) t.equal(headersOf(h), without(h), JSON.stringify(h).slice(0, 80));
});

t.test('request.cookies and request.jwt.claims: the JSON of their objects, frozen or not', async (t) => {
  const cookies = { a: '1' };
  t.equal(settingsOf({}, cookies).get('request.cookies'), '{"a":"1"}');
  cookies.a = '2'; // not frozen: not kept
  t.equal(settingsOf({}, cookies).get('request.cookies'), '{"a":"2"}');
  t.equal(settingsOf({}).get('request.jwt.claims'), '{"role":"anon"}');
  t.equal(settingsOf({}).get('request.jwt.claims'), '{"role":"anon"}');
});
