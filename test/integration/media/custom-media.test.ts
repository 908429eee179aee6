// Media type handlers (PostgREST docs: Media Type Handlers; test/spec/Feature/Query/CustomMediaSpec.hs
// with its fixtures, PostGIS cases rebuilt without PostGIS): functions returning a media-type domain,
// aggregates over a relation's row type or anyelement, overrides, `*/*` handlers, 406s and HEAD.
import t from 'tap';
import { accept, startMediaServer } from './media-server.js';

const notAvailable = (types: string) => ({
  code: 'DBRST107',
  details: null,
  hint: null,
  message: `None of these media types are available: ${types}`,
});

const WELCOME_HTML = '\n<html>\n  <head>\n    <title>PostgREST</title>\n  </head>\n  <body>\n    <h1>Welcome to PostgREST</h1>\n  </body>\n</html>\n';

t.test('custom media types', async (t) => {
  const s = await startMediaServer(t);

  t.test('for tables with an aggregate', async (t) => {
    t.test('GET /lines with Accept: application/vnd.twkb renders the rows through twkb_agg', async (t) => {
      const r = await s.request('/lines', accept('application/vnd.twkb'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/vnd.twkb');
      t.same(r.bytes, Buffer.from('1:line-1;2:line-2;'));
      t.equal(r.headers['content-length'], '18');
      t.equal(r.headers['content-range'], '0-1/*');
    });

    t.test('filtered, ordered and limited rows go through it too', async (t) => {
      t.same((await s.request('/lines?id=eq.1', accept('application/vnd.twkb'))).bytes, Buffer.from('1:line-1;'));
      t.same((await s.request('/lines?order=id.desc&limit=1', accept('application/vnd.twkb'))).bytes, Buffer.from('2:line-2;'));
      const none = await s.request('/lines?id=eq.99', accept('application/vnd.twkb'));
      t.equal(none.status, 200);
      t.equal(none.text, '', 'the initcond of no rows');
    });

    t.test('no handler for the asked type: 406', async (t) => {
      const r = await s.request('/lines', accept('text/plain'));
      t.equal(r.status, 406);
      t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
      t.same(r.json(), notAvailable('text/plain'));
      t.equal(r.headers['content-length'], '110');
    });

    t.test('raw xml through a text/xml aggregate', async (t) => {
      const r = await s.request('/xmltest', accept('text/xml'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'text/xml; charset=utf-8');
      t.equal(r.text, '<myxml>foo</myxml>bar<foobar><baz/></foobar>');
      t.equal(r.headers['content-length'], '44');
    });

    t.test('a relation handler applies only with the default select', async (t) => {
      for (const select of ['id', 'id,name,geom,id', 'name,id,geom', 'id,name,geom']) {
        const r = await s.request(`/lines?select=${select}`, accept('application/vnd.twkb'));
        t.equal(r.status, 406, select);
      }
      t.equal((await s.request('/lines?select=*', accept('application/vnd.twkb'))).status, 200, 'select=* is the default');
    });

    t.test('HEAD: the handler\'s Content-Type, no body', async (t) => {
      const r = await s.request('/lines', accept('application/vnd.twkb', 'HEAD'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/vnd.twkb');
      t.equal(r.headers['content-range'], '0-1/*');
      t.equal(r.text, '');
      t.equal((await s.request('/lines', accept('text/plain', 'HEAD'))).status, 406);
    });
  });

  t.test('for tables with an anyelement aggregate', async (t) => {
    t.test('application/vnd.geo2+json for any table', async (t) => {
      const r = await s.request('/lines', accept('application/vnd.geo2+json'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/vnd.geo2+json');
      t.equal(r.text, '{"type": "FeatureCollection", "hello": "world"}');
    });

    t.test('the more specific handler of the table wins', async (t) => {
      for (const path of ['/shop_bles', '/rpc/get_shop_bles']) {
        const r = await s.request(path, accept('application/vnd.geo2+json'));
        t.equal(r.status, 200, path);
        t.equal(r.headers['content-type'], 'application/vnd.geo2+json');
        t.equal(r.text, '"anyelement overridden"');
      }
    });

    t.test('pg/outfunc: a generic handler over the selected columns', async (t) => {
      const all = await s.request('/projects?id=in.(1,2)', accept('pg/outfunc'));
      t.equal(all.status, 200);
      t.equal(all.headers['content-type'], 'pg/outfunc');
      t.equal(all.text, '(1,"Windows 7",1)\n(2,"Windows 10",1)\n');
      t.equal(all.headers['content-length'], '37');
      t.equal((await s.request('/projects?id=in.(1,2)&select=id,name', accept('pg/outfunc'))).text, '(1,"Windows 7")\n(2,"Windows 10")\n');
      t.equal((await s.request('/projects?id=in.(1,2)&select=name,id,client_id', accept('pg/outfunc'))).text, '("Windows 7",1,1)\n("Windows 10",2,1)\n');
    });
  });

  t.test('functions returning a scalar media type', async (t) => {
    t.test('text/html', async (t) => {
      const r = await s.request('/rpc/welcome.html', accept('text/html'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'text/html');
      t.equal(r.text, WELCOME_HTML);
      t.equal(r.headers['content-length'], '117');
    });

    t.test('text/plain', async (t) => {
      const r = await s.request('/rpc/welcome', accept('text/plain'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      t.equal(r.text, 'Welcome to PostgREST');
      t.equal(r.headers['content-length'], '20');
    });

    t.test('text/xml', async (t) => {
      const r = await s.request('/rpc/return_scalar_xml', accept('text/xml'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'text/xml; charset=utf-8');
      t.equal(r.text, '<my-xml-tag/>');
      t.equal(r.headers['content-length'], '13');
    });

    t.test('a function returning text/plain is not text/xml: 406', async (t) => {
      const r = await s.request('/rpc/welcome', accept('text/xml'));
      t.equal(r.status, 406);
      t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
      t.same(r.json(), notAvailable('text/xml'));
    });

    t.test('no row: an empty body', async (t) => {
      const r = await s.request('/rpc/get_line?id=777', accept('application/vnd.twkb'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/vnd.twkb');
      t.equal(r.text, '');
      t.same((await s.request('/rpc/get_line?id=2', accept('application/vnd.twkb'))).bytes, Buffer.from('2:line-2;'));
    });

    t.test('bytes: image/png', async (t) => {
      const r = await s.request('/rpc/ret_image', accept('image/png'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'image/png');
      t.same(r.bytes, Buffer.from('89504e470d0a1a0a00ff', 'hex'));
      t.equal(r.headers['content-length'], '10');
    });

    t.test('POST and HEAD answer the same way', async (t) => {
      const post = await s.request('/rpc/ret_image', { method: 'POST', headers: { Accept: 'image/png' } });
      t.equal(post.status, 200);
      t.equal(post.headers['content-type'], 'image/png');
      t.same(post.bytes, Buffer.from('89504e470d0a1a0a00ff', 'hex'));
      const head = await s.request('/rpc/ret_image', accept('image/png', 'HEAD'));
      t.equal(head.status, 200);
      t.equal(head.headers['content-type'], 'image/png');
      t.equal(head.text, '');
    });

    t.test('set-returning functions of a media type are not raw: 406', async (t) => {
      const r = await s.request('/rpc/welcome_twice', accept('text/plain'));
      t.equal(r.status, 406);
      t.same(r.json(), notAvailable('text/plain'));
      t.equal(r.headers['content-length'], '110');
    });

    t.test('application/json still gets JSON', async (t) => {
      const r = await s.request('/rpc/welcome', accept('application/json'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
      t.equal(r.text, '"Welcome to PostgREST"');
    });

    t.test('dbrest: */* and type/* admit the function\'s own type (PostgREST #3391 FIXME)', async (t) => {
      for (const a of ['*/*', 'text/*', 'image/png, */*']) {
        const path = a.startsWith('text') ? '/rpc/welcome.html' : a === '*/*' ? '/rpc/welcome.html' : '/rpc/ret_image';
        const r = await s.request(path, accept(a));
        t.equal(r.status, 200, a);
        t.equal(r.headers['content-type'], path === '/rpc/ret_image' ? 'image/png' : 'text/html', a);
      }
      const noAccept = await s.request('/rpc/welcome.html');
      t.equal(noAccept.headers['content-type'], 'text/html');
      t.equal(noAccept.text, WELCOME_HTML);
      t.equal((await s.request('/rpc/ret_image', accept('text/*'))).status, 406, 'text/* does not admit image/png');
      t.equal((await s.request('/rpc/welcome.html', accept('image/png'))).status, 406);
      const byQ = await s.request('/rpc/welcome.html', accept('text/html;q=0.5, application/json'));
      t.equal(byQ.headers['content-type'], 'application/json; charset=utf-8', 'q-values decide');
      const html = await s.request('/rpc/welcome.html', accept('application/json;q=0.5, text/html'));
      t.equal(html.headers['content-type'], 'text/html');
    });
  });

  t.test('functions returning a relation\'s rows use its handlers', async (t) => {
    t.test('an aggregate of the table', async (t) => {
      const r = await s.request('/rpc/get_lines', accept('application/vnd.twkb'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/vnd.twkb');
      t.same(r.bytes, Buffer.from('1:line-1;2:line-2;'));
      const post = await s.request('/rpc/get_lines?id=eq.2', { method: 'POST', headers: { Accept: 'application/vnd.twkb' } });
      t.same(post.bytes, Buffer.from('2:line-2;'), 'POST, filtered');
    });

    t.test('no aggregate for the type: 406', async (t) => {
      const r = await s.request('/rpc/get_lines', accept('application/octet-stream'));
      t.equal(r.status, 406);
      t.same(r.json(), notAvailable('application/octet-stream'));
    });

    t.test('an anyelement aggregate', async (t) => {
      const r = await s.request('/rpc/get_lines', accept('application/vnd.geo2+json'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/vnd.geo2+json');
      t.equal(r.text, '{"type": "FeatureCollection", "hello": "world"}');
    });
  });

  t.test('overriding', async (t) => {
    t.test('application/json for a single table', async (t) => {
      const r = await s.request('/ov_json', accept('application/json'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
      t.equal(r.text, '{"overridden": "true"}');
      t.equal(r.headers['content-length'], '22');
      const any = await s.request('/ov_json', accept('*/*'));
      t.equal(any.text, '[]', '*/* is still the built-in JSON (PostgREST looks the override up by its type)');
    });

    t.test('text/csv for a single table, with a BOM and a header', async (t) => {
      const r = await s.request('/lines', accept('text/csv'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'text/csv; charset=utf-8');
      t.equal(r.headers['content-disposition'], 'attachment; filename="lines.csv"');
      t.same(r.bytes, Buffer.concat([Buffer.from('efbbbf', 'hex'), Buffer.from('id,name,geom\n1,line-1,LINESTRING(1 1,5 5)\n2,line-2,LINESTRING(2 2,6 6)\n')]));
      const other = await s.request('/projects?id=eq.1', accept('text/csv'));
      t.equal(other.text, 'id,name,client_id\n1,"Windows 7",1', 'other tables keep the built-in CSV (record text, as PostgREST)');
    });

    t.test('vendored media types like application/vnd.pgrst.object are not overridden', async (t) => {
      const r = await s.request('/projects?id=eq.1', accept('application/vnd.pgrst.object'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/vnd.pgrst.object+json; charset=utf-8');
      t.same(r.json(), { id: 1, name: 'Windows 7', client_id: 1 });
      t.equal(r.headers['content-length'], '41');
    });
  });

  t.test('matches the requested media type correctly', async (t) => {
    t.test('image/png according to q values (PostgREST #1462)', async (t) => {
      for (const a of ['image/png, */*', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/png,*/*;q=0.8']) {
        const r = await s.request('/rpc/ret_image', accept(a));
        t.equal(r.status, 200, a);
        t.equal(r.headers['content-type'], 'image/png');
        t.equal(r.headers['content-length'], '10');
      }
    });

    t.test('json in presence of text/plain (PostgREST #2170)', async (t) => {
      const r = await s.request('/projects?id=eq.1', accept('text/plain, application/json'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
    });

    t.test('a custom text/tab-separated-values (PostgREST #1102)', async (t) => {
      const r = await s.request('/projects?id=in.(1,2)', accept('text/tab-separated-values'));
      t.equal(r.status, 200);
      t.equal(r.headers['content-type'], 'text/tab-separated-values');
      t.equal(r.text, 'id\tname\tclient_id\n1\tWindows 7\t1\n2\tWindows 10\t1\n');
      t.equal(r.headers['content-length'], '47');
    });

    t.test('browser Accept headers get JSON where nothing more specific exists (RawOutputTypesSpec)', async (t) => {
      const firefox = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
      const chrome = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3';
      for (const a of [firefox, chrome]) {
        const r = await s.request('/projects?id=eq.1&select=id', accept(a));
        t.equal(r.status, 200);
        t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
        t.equal(r.text, '[{"id":1}]');
        const call = await s.request('/rpc/get_lines?select=id', accept(a));
        t.equal(call.headers['content-type'], 'application/json; charset=utf-8');
        t.same(call.json(), [{ id: 1 }, { id: 2 }]);
      }
    });

    t.test('an Accept header that does not parse is named in the 406', async (t) => {
      const r = await s.request('/projects', accept('undefined'));
      t.equal(r.status, 406);
      t.same(r.json(), notAvailable('undefined'));
    });
  });

  t.test('any media type (*/*)', async (t) => {
    t.test('a function returning */*: any Accept, application/octet-stream unless it sets one', async (t) => {
      for (const a of ['*/*', 'app/bingo', 'text/bango', 'image/boingo']) {
        const r = await s.request('/rpc/ret_any_mt', accept(a));
        t.equal(r.status, 200, a);
        t.equal(r.headers['content-type'], 'application/octet-stream', a);
        t.equal(r.text, 'any');
      }
    });

    t.test('a function returning */* that sets its Content-Type', async (t) => {
      const groucho = await s.request('/rpc/ret_some_mt', accept('*/*'));
      t.equal(groucho.status, 200);
      t.equal(groucho.headers['content-type'], 'app/groucho');
      t.equal(groucho.text, 'groucho');
      for (const name of ['chico', 'harpo']) {
        const r = await s.request('/rpc/ret_some_mt', accept(`app/${name}`));
        t.equal(r.status, 200);
        t.equal(r.headers['content-type'], `app/${name}`);
        t.equal(r.text, name);
      }
      const refused = await s.request('/rpc/ret_some_mt', accept('text/csv'));
      t.equal(refused.status, 406);
      t.same(refused.json(), { code: 'PT406', details: null, hint: null, message: 'Not Acceptable' });
    });

    t.test('a table with a */* aggregate', async (t) => {
      const cases: Array<[string, string, string, string]> = [
        ['1', '*/*', 'anything\n1', 'application/octet-stream'],
        ['2', 'magic/number', 'magic\n2', 'magic/number'],
        ['3', 'crazy/bingo', 'crazy\n3', 'crazy/bingo'],
        ['4', 'unknown/unknown', 'anything\n4', 'application/octet-stream'],
      ];
      for (const [val, a, body, ct] of cases) {
        const r = await s.request(`/some_numbers?val=eq.${val}`, accept(a));
        t.equal(r.status, 200, a);
        t.equal(r.headers['content-type'], ct, a);
        t.equal(r.text, body, a);
      }
      const json = await s.request('/some_numbers?val=eq.1', accept('application/json'));
      t.equal(json.text, 'anything\n1', 'even application/json: the table\'s */* handler comes first (PostgREST)');
      const vendored = await s.request('/some_numbers?val=eq.1', accept('application/vnd.pgrst.object+json'));
      t.same(vendored.json(), { val: 1 }, 'but never before a vendored type');
      const other = await s.request('/some_numbers?val=eq.1&select=val', accept('magic/number'));
      t.equal(other.status, 406, 'not with a select');
    });
  });
});
