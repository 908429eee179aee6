// The seam route mounts use (planBoundCall + executeCall, engine spec §5): negotiation happens inside
// executeCall, so a mounted function returning a media-type domain, or rows of a relation with
// handlers, answers exactly as /rpc does.
import t from 'tap';
import { findRoutines } from '../../../src/catalog/lookup.js';
import { executeCall } from '../../../src/http/call.js';
import { planBoundCall, type CallArgValue } from '../../../src/plan/call-plan.js';
import { parseRequest } from '../../../src/request/parse-request.js';
import { startMediaServer } from './media-server.js';

t.test('planBoundCall + executeCall negotiate media types', async (t) => {
  const s = await startMediaServer(t);
  const app = s.server.app;
  const cache = app.cache()!;
  const who = { role: 'media_anon', claims: {}, authenticated: false };

  const call = async (fn: string, values: Record<string, CallArgValue>, accept: string | null, method = 'GET') => {
    const headers: Record<string, string> = accept === null ? {} : { accept };
    const parsed = parseRequest({ method, url: `/rpc/${encodeURIComponent(fn)}`, headers, body: null }, { schemas: ['public'], routineArgNames: () => null });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
    const routine = findRoutines(cache, 'public', fn)[0]!;
    const planned = planBoundCall(routine, new Map(Object.entries(values)), parsed.value, cache, app.config);
    if (!planned.ok) return { status: planned.error.status, code: planned.error.code };
    const res = await executeCall(planned.value, parsed.value, who, cache, app);
    if (!res.ok) return { status: res.error.status, code: res.error.code };
    const body = res.value.body;
    return { status: res.value.status, type: res.value.headers['Content-Type'], body: body === null ? null : Buffer.isBuffer(body) ? body.toString('hex') : body };
  };

  t.same(await call('welcome.html', {}, 'text/html'), { status: 200, type: 'text/html', body: (await s.request('/rpc/welcome.html', { headers: { Accept: 'text/html' } })).text });
  t.same((await call('welcome.html', {}, null)).type, 'text/html', 'no Accept (*/*): the function\'s own type');
  t.same(await call('welcome.html', {}, 'application/json'), { status: 200, type: 'application/json; charset=utf-8', body: JSON.stringify((await s.request('/rpc/welcome.html', { headers: { Accept: 'application/json' } })).json()) });
  t.same(await call('ret_image', {}, 'image/png'), { status: 200, type: 'image/png', body: '89504e470d0a1a0a00ff' });
  t.same(await call('ret_image', {}, 'application/vnd.twkb'), { status: 406, code: 'DBRST107' });
  t.same(await call('get_line', { id: '1' }, 'application/vnd.twkb'), { status: 200, type: 'application/vnd.twkb', body: Buffer.from('1:line-1;').toString('hex') });
  t.same(await call('ret_any_mt', {}, 'app/bingo'), { status: 200, type: 'application/octet-stream', body: Buffer.from('any').toString('hex') });
  t.same(await call('ret_some_mt', {}, 'app/chico'), { status: 200, type: 'app/chico', body: Buffer.from('chico').toString('hex') });
  t.same(await call('get_lines', {}, 'application/vnd.twkb'), { status: 200, type: 'application/vnd.twkb', body: Buffer.from('1:line-1;2:line-2;').toString('hex') }, 'rows of a relation: its aggregate');
  t.same(await call('get_lines', {}, 'application/vnd.cms.lines+xml'), { status: 406, code: 'DBRST107' });
  t.same((await call('bookmark_xml', {}, 'application/vnd.cms.bookmark+xml')).type, 'application/vnd.cms.bookmark+xml', 'suffix fallback');
  t.same(await call('ret_image', {}, 'image/png', 'HEAD'), { status: 200, type: 'image/png', body: null });
});
