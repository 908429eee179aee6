// OPTIONS on tables, views, functions and the root (PostgREST docs: OPTIONS; OptionsSpec): 200,
// no body, `Allow` listing what the target supports.
import t from 'tap';
import { startWriteServer } from './write-server.js';

t.test('OPTIONS', async (t) => {
  const s = await startWriteServer(t);
  const allow = async (path: string) => {
    const res = await s.request(path, { method: 'OPTIONS' });
    t.equal(res.status, 200, path);
    t.equal(res.text, '', path);
    t.equal(res.headers['access-control-allow-origin'], '*', path);
    return res.headers['allow'];
  };

  t.equal(await allow('/items'), 'OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE', 'table with a primary key');
  t.equal(await allow('/no_pk'), 'OPTIONS,GET,HEAD,POST,PATCH,DELETE', 'no PUT without a primary key');
  t.equal(await allow('/items_view'), 'OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE', 'auto-updatable view: its key is traced to items');
  t.equal(await allow('/project_clients'), 'OPTIONS,GET,HEAD,POST,PUT,PATCH', 'INSTEAD OF INSERT/UPDATE triggers, key traced to projects');
  t.equal(await allow('/client_counts'), 'OPTIONS,GET,HEAD', 'read-only view');
  t.equal(await allow('/rpc/add'), 'OPTIONS,GET,HEAD,POST', 'immutable function');
  t.equal(await allow('/rpc/write_audit'), 'OPTIONS,POST', 'volatile function');
  t.equal(await allow('/'), 'OPTIONS,GET,HEAD', 'root');

  const missing = await s.request('/nothing_here', { method: 'OPTIONS' });
  t.equal(missing.status, 404);
  t.equal(missing.json().code, 'DBRST205');
  const missingFn = await s.request('/rpc/nothing_here', { method: 'OPTIONS' });
  t.equal(missingFn.status, 404);
  t.equal(missingFn.json().code, 'DBRST202');
});
