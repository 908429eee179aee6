// Issue 28, PostgREST's CustomMediaSpec ("can get raw xml output with Accept: text/xml"): a
// function returning `$$\n<html>…$$::"text/xml"` answers from `<html>`. PostgreSQL's xml output
// function drops one newline before the content when it prints no XML declaration, and PostgREST
// receives that output; our ::text cast is binary and kept the newline.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

async function server(t: { teardown(fn: () => unknown): void }): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity7-xml.sql')],
    config: { 'db-schemas': 'parity7_xml', 'db-anon-role': 'postgres' },
  });
}

t.test('a text/xml domain value is sent as xml prints, without its leading newline', async (t) => {
  const s = await server(t);
  const res = await s.request('/rpc/page', { headers: { Accept: 'text/xml' } });
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], 'text/xml; charset=utf-8');
  t.equal(res.text, '<page>\n  <title>hello</title>\n</page>');
});

t.test('raw xml output of a function or column drops the newline the same way', async (t) => {
  const s = await server(t);
  const call = await s.request('/rpc/doc', { headers: { Accept: 'text/xml' } });
  t.equal(call.status, 200);
  t.equal(call.text, '<doc>one</doc>');

  const column = await s.request('/notes?select=body&order=id', { headers: { Accept: 'text/xml' } });
  t.equal(column.status, 200);
  t.equal(column.text, '<note>a</note><note>b</note>', 'the first row\'s newline, as its aggregate prints it');
});
