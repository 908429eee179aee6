// The DTD check on XML input (request/xml-guard.ts): any `<!` that opens neither a comment nor a
// CDATA section is refused, wherever it is and however it is spelled; clean documents pass.
import t from 'tap';
import { isXmlMedia, isXmlType, jsonXmlProblem, xmlBytesProblem, xmlDeclarationProblem } from '../../../src/request/xml-guard.js';

t.test('documents without declarations pass', async (t) => {
  for (const doc of [
    '<r/>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<r a="1">text &amp; &#60; &lt;</r>',
    '\uFEFF<r/>',
    '<!-- a comment --><r><!-- another --></r>',
    '<r><![CDATA[ if (a < b) ]]></r>',
    '<?pi data?><r/>',
    'fragment <b>content</b> too',
    '',
    'not xml at all',
  ]) t.equal(xmlDeclarationProblem(doc), null, JSON.stringify(doc));
});

t.test('DTDs and declarations are refused, wherever they hide', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['<!DOCTYPE r><r/>', /document type declaration/],
    ['\uFEFF<!DOCTYPE r><r/>', /document type declaration/],
    ['<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>', /document type declaration/],
    ['<!-- <r/> --><!DOCTYPE r><r/>', /document type declaration/],
    ['<?x <r/> ?>\n<!DOCTYPE r><r/>', /document type declaration/],
    ['<!doctype r><r/>', /document type declaration/],
    ['<!DocType r><r/>', /document type declaration/],
    ['<r><!ENTITY e "x"></r>', /declares an entity/],
    ['text first <!ENTITY e "x">', /declares an entity/],
    ['<!ATTLIST r a CDATA #IMPLIED><r/>', /markup declaration \(<!ATTLIST/],
    ['<! DOCTYPE r><r/>', /markup declaration \(<!…/],
    ['<!-- unterminated <!DOCTYPE r>', /document type declaration/],
    ['<r><![CDATA[ <!DOCTYPE ]]></r>', /document type declaration/],
    ['<!-', /markup declaration/],
  ];
  for (const [doc, why] of cases) t.match(xmlDeclarationProblem(doc), why, JSON.stringify(doc));
});

t.test('bytes: UTF-8 is scanned, UTF-16 and NULs refused', async (t) => {
  t.equal(xmlBytesProblem(Buffer.from('<r/>')), null);
  t.match(xmlBytesProblem(Buffer.from('<!DOCTYPE r><r/>')), /document type/);
  t.match(xmlBytesProblem(Buffer.from('\uFEFF<r/>', 'utf16le')), /not UTF-8/);
  t.match(xmlBytesProblem(Buffer.from([0xfe, 0xff, 0, 0x3c])), /not UTF-8/);
  t.match(xmlBytesProblem(Buffer.from('<\0!\0D\0', 'latin1')), /NUL bytes/);
});

t.test('JSON values of xml keys, escapes decoded', async (t) => {
  t.same(jsonXmlProblem('{"doc": "\\u003c!DOCTYPE r><r/>"}', ['doc']), { key: 'doc', problem: 'It has a document type declaration (<!DOCTYPE …>)' });
  t.match(jsonXmlProblem('[{"doc": "<a/>"}, {"doc": ["<b/>", "<!ENTITY x>"]}]', ['doc']), { key: 'doc' });
  t.equal(jsonXmlProblem('{"other": "<!DOCTYPE r>", "doc": "<a/>"}', ['doc']), null, 'only the xml keys');
  t.equal(jsonXmlProblem('not json', ['doc']), null, 'invalid JSON is PostgreSQL\'s to refuse');
});

t.test('XML media types and PostgreSQL types', async (t) => {
  const ct = (type: string, subtype: string) => ({ type, subtype, params: {} });
  t.ok(isXmlMedia(ct('application', 'xml')));
  t.ok(isXmlMedia(ct('text', 'xml')));
  t.ok(isXmlMedia(ct('application', 'vnd.cms.api.SessionInput+xml')));
  t.notOk(isXmlMedia(ct('application', 'json')));
  t.ok(isXmlType('xml'));
  t.ok(isXmlType('xml[]'));
  t.ok(isXmlType('pg_catalog.xml'));
  t.notOk(isXmlType('text'));
  t.notOk(isXmlType('public.xmlish'));
});
