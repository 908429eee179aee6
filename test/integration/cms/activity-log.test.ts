// CMS API activity log (spec §7): GET (newest first, offset/limit) and POST with an
// ActivityLogGroupListInput in JSON and XML — every criterion and operator, nesting, sort clauses,
// date expressions, paging — checked against a reference evaluation of the demo fixture; every bad
// input a 400, other body types 415; visibility by scope (all / own) and the 401s.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { as, asXmlText, login, parseXml, startCmsServer, xmlToJson, type Session } from './cms-server.js';

interface Entry { id: number; object_class: string; object_id: string; action: string; data: Record<string, string> }
interface Group { id: number; user_id: number; logged_at: string; entries: Entry[] }
const FIXTURE = JSON.parse(readFileSync(new URL('../../../../../shared/fixtures/cms-demo.json', import.meta.url), 'utf8'));
const GROUPS: Group[] = FIXTURE.activity_log_groups;
const epoch = (g: Group) => Date.parse(g.logged_at) / 1000;
const CONTENT = 'Cms\\Contracts\\Content\\Content';

/** Reference evaluation of a criterion (JSON form) on a fixture group. */
function matches(c: any, g: Group): boolean {
  const list = (v: unknown) => (Array.isArray(v) ? v : [v]);
  switch (c.type) {
    case 'action': return g.entries.some((e) => list(c.value).includes(e.action));
    case 'object_class': return g.entries.some((e) => e.object_class === c.class && (!c.ids || c.ids.map(String).includes(e.object_id)));
    case 'user': return list(c.value).includes(g.user_id);
    case 'logged_at': {
      const v = Date.parse(c.value) / 1000;
      const x = epoch(g);
      return ({ '=': x === v, '<>': x !== v, '<': x < v, '<=': x <= v, '>': x > v, '>=': x >= v } as Record<string, boolean>)[c.operator ?? '=']!;
    }
    case 'and': return c.criteria.every((k: any) => matches(k, g));
    case 'or': return c.criteria.some((k: any) => matches(k, g));
    case 'not': return !matches(c.criterion, g);
  }
  throw new Error(c.type);
}

/** The ids of the groups of a response, found by (logged_at, user_id) in the fixture. */
function idsOf(list: any): number[] {
  return list.ActivityLogGroups.map((r: any) => {
    const g = GROUPS.find((x) => epoch(x) === r.logged_at && x.user_id === r.user_id);
    if (!g) throw new Error(`unknown group ${JSON.stringify(r)}`);
    return g.id;
  });
}

const asc = (a: Group, b: Group) => epoch(a) - epoch(b) || a.id - b.id;

t.test('CMS API activity log', async (t) => {
  const s = await startCmsServer(t);
  const admin = await login(s, 'admin');
  const editor = await login(s, 'editor');
  const visitor = await login(s, 'visitor');
  const search = (who: Session, input: unknown, headers: Record<string, string> = {}) =>
    as(s, who, '/activity-log-group/list', {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.cms.api.ActivityLogGroupListInput+json', ...headers },
      body: input === undefined ? '' : JSON.stringify({ ActivityLogGroupListInput: input }),
    });
  const ids = async (who: Session, input: unknown) => {
    const res = await search(who, input);
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    return idsOf(res.json().ActivityLogGroupList);
  };
  const expected = (filter: (g: Group) => boolean, visible = (_: Group) => true) =>
    GROUPS.filter((g) => visible(g) && filter(g)).sort(asc).map((g) => g.id);

  t.test('GET: newest first, every entry, the spec example', async (t) => {
    const res = await as(s, admin, '/activity-log-group/list?limit=1');
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'application/vnd.cms.api.ActivityLogGroupList+json');
    t.same(res.json(), {
      ActivityLogGroupList: {
        '_media-type': 'application/vnd.cms.api.ActivityLogGroupList+json',
        _href: '/api/cms/v2/activity-log-group/list',
        ActivityLogGroups: [{
          '_media-type': 'application/vnd.cms.api.ActivityLogGroup+json', user_id: 14, logged_at: 1719598800,
          ActivityLogEntries: [{
            '_media-type': 'application/vnd.cms.api.ActivityLog+json', object_id: '46',
            object_class: 'Cms\\Contracts\\Content\\ContentType',
            action: 'update', data: { identifier: 'product' },
          }],
        }],
      },
    });
    const all = idsOf((await as(s, admin, '/activity-log-group/list?limit=100')).json().ActivityLogGroupList);
    t.same(all, [...GROUPS].sort(asc).reverse().map((g) => g.id), 'logged_at descending, ties by id descending');
    t.same(all.slice(18, 20), [12, 11], 'groups 11 and 12 share logged_at');
    t.equal(idsOf((await as(s, admin, '/activity-log-group/list')).json().ActivityLogGroupList).length, 25, 'default limit 25');
    t.same(idsOf((await as(s, admin, '/activity-log-group/list?offset=28&limit=5&x=1')).json().ActivityLogGroupList), [2, 1]);
    const g11 = (await as(s, admin, '/activity-log-group/list?offset=19&limit=1')).json().ActivityLogGroupList.ActivityLogGroups[0];
    t.same(g11.ActivityLogEntries.map((e: any) => [e.object_id, e.action]), [['69', 'create'], ['69', 'publish'], ['70', 'create'], ['70', 'publish']], 'entries in id order');
    const g7 = (await as(s, admin, '/activity-log-group/list?offset=23&limit=1')).json().ActivityLogGroupList.ActivityLogGroups[0];
    t.same(g7.ActivityLogEntries[2].data, {}, 'empty data is {}');
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'offset=-1', 'offset=', 'limit=1&limit=1']) {
      t.equal((await as(s, admin, `/activity-log-group/list?${q}`)).status, 400, q);
    }
    t.equal((await as(s, admin, '/activity-log-group/list', { method: 'HEAD' })).status, 200, 'HEAD');
  });

  t.test('XML: the same tree; data as child elements, <data/> when empty', async (t) => {
    const json = (await as(s, admin, '/activity-log-group/list?offset=20&limit=6')).json().ActivityLogGroupList;
    const xml = await as(s, admin, '/activity-log-group/list?offset=20&limit=6', { headers: { Accept: 'application/vnd.cms.api.ActivityLogGroupList+xml' } });
    t.equal(xml.headers['content-type'], 'application/vnd.cms.api.ActivityLogGroupList+xml');
    const root = parseXml(xml.text).root;
    t.equal(root.name, 'ActivityLogGroupList');
    t.same(root.attrs, { 'media-type': 'application/vnd.cms.api.ActivityLogGroupList+xml', href: '/api/cms/v2/activity-log-group/list' });
    t.same(xmlToJson(root), asXmlText(json));
    const g7 = root.children.find((g) => g.children.some((c) => c.name === 'logged_at' && c.text === String(epoch(GROUPS[6]!))))!;
    const hide = g7.children.filter((c) => c.name === 'ActivityLog')[2]!;
    t.same(hide.children.map((c) => c.name), ['object_id', 'object_class', 'action', 'data']);
    t.same(hide.children[3], { name: 'data', attrs: {}, children: [], text: '' }, '<data/>');
    t.equal(hide.children[1]!.text, 'Cms\\Contracts\\Content\\Location');
  });

  t.test('POST: defaults, criteria, operators, sorting, paging (JSON)', async (t) => {
    t.same(await ids(admin, undefined), expected(() => true).slice(0, 25), 'empty body: oldest first, 25');
    t.same(await ids(admin, {}), expected(() => true).slice(0, 25));
    const criteria: any[] = [
      { type: 'action', value: 'trash' },
      { type: 'action', value: ['create', 'publish'] },
      { type: 'action', value: ['nothing'] },
      { type: 'object_class', class: CONTENT },
      { type: 'object_class', class: CONTENT, ids: ['64', 67] },
      { type: 'object_class', class: 'Cms\\Contracts\\User\\User', ids: [41] },
      { type: 'user', value: 41 },
      { type: 'user', value: [41, 63] },
      { type: 'logged_at', value: '2024-03-04T10:00:00+00:00' },
      ...['=', '<>', '<', '<=', '>', '>='].map((operator) => ({ type: 'logged_at', value: '2024-03-04T10:00:00+00:00', operator })),
      { type: 'logged_at', value: '2024-03-01T00:00:00+00:00', operator: '>=' },
      { type: 'and', criteria: [{ type: 'user', value: 14 }, { type: 'action', value: 'update' }] },
      { type: 'or', criteria: [{ type: 'user', value: 63 }, { type: 'action', value: ['hide', 'reveal'] }] },
      { type: 'not', criterion: { type: 'object_class', class: CONTENT } },
      { type: 'not', criterion: { type: 'or', criteria: [{ type: 'user', value: 14 }, { type: 'and', criteria: [{ type: 'user', value: 41 }, { type: 'action', value: 'create' }] }] } },
    ];
    for (const c of criteria) {
      t.same(await ids(admin, { criteria: [c], limit: 100 }), expected((g) => matches(c, g)), JSON.stringify(c));
    }
    const spec = [
      { type: 'object_class', class: CONTENT },
      { type: 'action', value: ['create', 'publish'] },
      { type: 'logged_at', value: '2024-03-01T00:00:00+00:00', operator: '>=' },
    ];
    const want = expected((g) => spec.every((c) => matches(c, g))).reverse();
    t.same(await ids(admin, { offset: 0, limit: 10, criteria: spec, sortClauses: [{ type: 'logged_at', direction: 'DESC' }] }), want.slice(0, 10), 'the spec example (criteria AND-ed)');
    t.same(await ids(admin, { offset: '2', limit: '3', criteria: spec, sortClauses: [{ type: 'logged_at', direction: 'DESC' }] }), want.slice(2, 5), 'offset/limit as digit strings');
    t.same(await ids(admin, { criteria: [{ type: 'logged_at', value: '2024-03-04T10:00:00Z' }], sortClauses: [{ type: 'logged_at' }] }), [11, 12], 'ties ascending by default');
    t.same(await ids(admin, { criteria: [{ type: 'logged_at', value: '2024-03-04T10:00:00Z' }], sortClauses: [{ type: 'logged_at', direction: 'DESC' }] }), [12, 11], 'ties follow the direction');
    t.same(await ids(admin, { criteria: [{ type: 'user', value: 63 }], sortClauses: [] }), [5, 10, 15, 21, 26], 'an empty sortClauses list: ascending');
    t.same(await ids(admin, { criteria: [{ type: 'user', value: 63 }], sortClauses: [{ type: 'logged_at', direction: 'DESC' }, { type: 'logged_at', direction: 'ASC' }] }), [26, 21, 15, 10, 5], 'the first clause decides');
    t.same(await ids(admin, { criteria: [], limit: 100 }), expected(() => true), 'no criteria');
    t.same(await ids(admin, { criteria: [{ type: 'and', criteria: [] }], limit: 2 }), [1, 2]);
    t.same(await ids(admin, { criteria: [{ type: 'or', criteria: [] }] }), []);
    t.same(await ids(admin, { limit: 100, offset: 29 }), [30]);
    t.same(await ids(admin, { limit: 1, offset: 100 }), []);
    const multi = (await search(admin, { criteria: [{ type: 'object_class', class: CONTENT, ids: ['70'] }] })).json().ActivityLogGroupList.ActivityLogGroups;
    t.equal(multi.length, 1);
    t.equal(multi[0].ActivityLogEntries.length, 4, 'a group lists all its entries even when one matched');
  });

  t.test('date expressions', async (t) => {
    const count = async (value: string, operator = '>=') =>
      (await search(admin, { criteria: [{ type: 'logged_at', value, operator }], limit: 100 })).json().ActivityLogGroupList.ActivityLogGroups.length;
    const after = (iso: string) => GROUPS.filter((g) => epoch(g) >= Date.parse(iso) / 1000).length;
    t.equal(await count('2024-03-04'), after('2024-03-04T00:00:00Z'), 'YYYY-MM-DD is 00:00 UTC');
    t.equal(await count('2024-03-04T10:00'), after('2024-03-04T10:00:00Z'), 'no seconds, no zone: UTC');
    t.equal(await count('2024-03-04 10:00:01'), after('2024-03-04T10:00:01Z'), 'a space for T');
    t.equal(await count('2024-03-04T12:00:00+02:00'), after('2024-03-04T10:00:00Z'), 'an offset');
    t.equal(await count('2024-03-04T10:00:00Z'), after('2024-03-04T10:00:00Z'));
    t.equal(await count(`@${Date.parse('2024-06-01T00:00:00Z') / 1000}`), after('2024-06-01T00:00:00Z'), '@unix');
    for (const v of ['now', 'today', 'tomorrow', 'yesterday', 'NOW', '-30 days', '- 1 hour', '+1 week 2 days', '-1 year', '-2 Months', '-10 mins', '-5 secs', '-3 weeks -1day']) {
      t.equal(await count(v), 0, `${v}: nothing logged after (the demo data is in 2024)`);
      t.equal(await count(v, '<'), 30, `${v} <`);
    }
    t.equal(await count('-100 years'), 30, 'a relative date in the past');
    t.equal(await count('-5000 days'), 30);
    for (const bad of ['', 'soon', '2024-13-01', '2024-02-30', '2024-03-04T25:00', '03/04/2024', '@x', '-1 fortnight', '1', '2024-03-04T10:00:00+2', 'now now']) {
      const res = await search(admin, { criteria: [{ type: 'logged_at', value: bad }] });
      t.equal(res.status, 400, `bad date ${JSON.stringify(bad)}`);
    }
  });

  t.test('POST in XML: the spec example, both roots, every criterion shape', async (t) => {
    const post = (xml: string, ct = 'application/vnd.cms.api.ActivityLogGroupListInput+xml', accept = 'application/json') =>
      as(s, admin, '/activity-log-group/list', { method: 'POST', headers: { 'Content-Type': ct, Accept: accept }, body: xml });
    const example = `<?xml version="1.0" encoding="UTF-8"?>
<ActivityLogListInput>
  <offset>0</offset>
  <limit>10</limit>
  <criteria>
    <criterion type="object_class"><class>Cms\\Contracts\\Content\\Content</class></criterion>
    <criterion type="action"><value>create</value><value>publish</value></criterion>
    <criterion type="logged_at"><value>2024-03-01T00:00:00+00:00</value><operator>&gt;=</operator></criterion>
  </criteria>
  <sortClauses>
    <sortClause type="logged_at">DESC</sortClause>
  </sortClauses>
</ActivityLogListInput>`;
    const jsonAnswer = await ids(admin, {
      offset: 0, limit: 10, sortClauses: [{ type: 'logged_at', direction: 'DESC' }],
      criteria: [{ type: 'object_class', class: CONTENT }, { type: 'action', value: ['create', 'publish'] }, { type: 'logged_at', value: '2024-03-01T00:00:00+00:00', operator: '>=' }],
    });
    for (const ct of ['application/vnd.cms.api.ActivityLogGroupListInput+xml', 'application/xml', 'text/xml']) {
      const res = await post(example, ct);
      t.equal(res.status, 200, ct);
      t.same(idsOf(res.json().ActivityLogGroupList), jsonAnswer, `${ct}: same as the JSON input`);
    }
    const group = await post(example.replaceAll('ActivityLogListInput', 'ActivityLogGroupListInput'));
    t.same(idsOf(group.json().ActivityLogGroupList), jsonAnswer, 'root ActivityLogGroupListInput');
    const inXml = await post(example, 'application/xml', 'application/vnd.cms.api.ActivityLogGroupList+xml');
    t.equal(inXml.headers['content-type'], 'application/vnd.cms.api.ActivityLogGroupList+xml');
    t.same(xmlToJson(parseXml(inXml.text).root), asXmlText(group.json().ActivityLogGroupList), 'answered in XML');

    const shapes: Array<[string, any]> = [
      ['<criterion type="user"><value>63</value></criterion>', { type: 'user', value: 63 }],
      ['<criterion type="user"><value>63</value><value>14</value></criterion>', { type: 'user', value: [63, 14] }],
      ['<criterion type="object_class"><class>Cms\\Contracts\\Content\\Content</class><ids><id>64</id><id>67</id></ids></criterion>', { type: 'object_class', class: CONTENT, ids: ['64', '67'] }],
      ['<criterion type="logged_at"><value>2024-03-04T10:00:00Z</value></criterion>', { type: 'logged_at', value: '2024-03-04T10:00:00Z' }],
      ['<criterion type="logged_at"><value>2024-03-04T10:00:00Z</value><operator>&lt;</operator></criterion>', { type: 'logged_at', value: '2024-03-04T10:00:00Z', operator: '<' }],
      ['<criterion type="logged_at"><value>2024-03-04T10:00:00Z</value><operator>&lt;&gt;</operator></criterion>', { type: 'logged_at', value: '2024-03-04T10:00:00Z', operator: '<>' }],
      ['<criterion type="and"><criterion type="user"><value>14</value></criterion><criterion type="action"><value>update</value></criterion></criterion>',
        { type: 'and', criteria: [{ type: 'user', value: 14 }, { type: 'action', value: 'update' }] }],
      ['<criterion type="or"><criterion type="user"><value>63</value></criterion><criterion type="action"><value>hide</value></criterion></criterion>',
        { type: 'or', criteria: [{ type: 'user', value: 63 }, { type: 'action', value: 'hide' }] }],
      ['<criterion type="not"><criterion type="object_class"><class>Cms\\Contracts\\Content\\Content</class></criterion></criterion>',
        { type: 'not', criterion: { type: 'object_class', class: CONTENT } }],
    ];
    for (const [xml, c] of shapes) {
      const res = await post(`<ActivityLogListInput><limit>100</limit><criteria>${xml}</criteria></ActivityLogListInput>`);
      t.equal(res.status, 200, xml);
      t.same(idsOf(res.json().ActivityLogGroupList), expected((g) => matches(c, g)), xml);
    }
    const asc2 = await post('<ActivityLogListInput><criteria><criterion type="user"><value>63</value></criterion></criteria><sortClauses><sortClause type="logged_at"></sortClause></sortClauses></ActivityLogListInput>');
    t.same(idsOf(asc2.json().ActivityLogGroupList), [5, 10, 15, 21, 26], 'empty sortClause text = ASC');

    const bad = [
      '<ActivityLogListInput><limit>10</limit>',
      '<Other><limit>10</limit></Other>',
      '<ActivityLogListInput><size>10</size></ActivityLogListInput>',
      '<ActivityLogListInput><limit>0</limit></ActivityLogListInput>',
      '<ActivityLogListInput><limit>101</limit></ActivityLogListInput>',
      '<ActivityLogListInput><offset>-1</offset></ActivityLogListInput>',
      '<ActivityLogListInput><limit>1</limit><limit>2</limit></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion><value>x</value></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="colour"><value>x</value></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><crit type="action"><value>x</value></crit></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="action"></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="action"><value>x</value><class>y</class></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="user"><value>abc</value></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="logged_at"><value>2024-01-01</value><operator>=~</operator></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="logged_at"><value>someday</value></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="logged_at"><value>2024-01-01</value><value>2024-01-02</value></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="not"><criterion type="user"><value>1</value></criterion><criterion type="user"><value>2</value></criterion></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><criteria><criterion type="not"></criterion></criteria></ActivityLogListInput>',
      '<ActivityLogListInput><sortClauses><sortClause type="name">ASC</sortClause></sortClauses></ActivityLogListInput>',
      '<ActivityLogListInput><sortClauses><sortClause type="logged_at">UP</sortClause></sortClauses></ActivityLogListInput>',
      '<ActivityLogListInput><sortClauses><sortClause>ASC</sortClause></sortClauses></ActivityLogListInput>',
      '<ActivityLogListInput><sortClauses><sort type="logged_at">ASC</sort></sortClauses></ActivityLogListInput>',
    ];
    for (const xml of bad) {
      const res = await post(xml, 'application/xml', 'application/xml');
      t.equal(res.status, 400, xml);
      t.equal(res.headers['content-type'], 'application/vnd.cms.api.ErrorMessage+xml');
      t.equal(parseXml(res.text).root.children[0]!.text, '400');
    }
  });

  t.test('POST in JSON: every malformed input is a 400', async (t) => {
    const raw = (body: string) => as(s, admin, '/activity-log-group/list', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    for (const body of ['{', '[]', '"x"', '{"ActivityLogListInput": {}}', '{"ActivityLogGroupListInput": {}, "x": 1}', '{"ActivityLogGroupListInput": []}', '{"ActivityLogGroupListInput": null}']) {
      t.equal((await raw(body)).status, 400, body);
    }
    const bad: any[] = [
      { size: 1 },
      { limit: 0 }, { limit: 101 }, { limit: 1.5 }, { limit: '1x' }, { limit: null }, { offset: -1 }, { offset: true },
      { criteria: {} }, { criteria: 'x' }, { sortClauses: {} },
      { criteria: [1] },
      { criteria: [{}] },
      { criteria: [{ type: 1 }] },
      { criteria: [{ type: 'colour', value: 'x' }] },
      { criteria: [{ type: 'action' }] },
      { criteria: [{ type: 'action', value: [] }] },
      { criteria: [{ type: 'action', value: 1 }] },
      { criteria: [{ type: 'action', value: ['x', 1] }] },
      { criteria: [{ type: 'action', value: 'x', extra: 1 }] },
      { criteria: [{ type: 'object_class' }] },
      { criteria: [{ type: 'object_class', class: 1 }] },
      { criteria: [{ type: 'object_class', class: CONTENT, ids: '64' }] },
      { criteria: [{ type: 'object_class', class: CONTENT, ids: [true] }] },
      { criteria: [{ type: 'user' }] },
      { criteria: [{ type: 'user', value: '14' }] },
      { criteria: [{ type: 'user', value: [14.5] }] },
      { criteria: [{ type: 'logged_at' }] },
      { criteria: [{ type: 'logged_at', value: 1719598800 }] },
      { criteria: [{ type: 'logged_at', value: 'now', operator: '==' }] },
      { criteria: [{ type: 'logged_at', value: 'now', operator: 1 }] },
      { criteria: [{ type: 'and' }] },
      { criteria: [{ type: 'or', criteria: {} }] },
      { criteria: [{ type: 'and', criteria: [{ type: 'nope' }] }] },
      { criteria: [{ type: 'not' }] },
      { criteria: [{ type: 'not', criterion: [] }] },
      { criteria: [{ type: 'not', criterion: { type: 'user', value: 1 }, criteria: [] }] },
      { sortClauses: [1] },
      { sortClauses: [{}] },
      { sortClauses: [{ type: 'name' }] },
      { sortClauses: [{ type: 'logged_at', direction: 'desc' }] },
      { sortClauses: [{ type: 'logged_at', direction: 'UP' }] },
      { sortClauses: [{ type: 'logged_at', direction: 'ASC', x: 1 }] },
    ];
    for (const input of bad) {
      const res = await search(admin, input);
      t.equal(res.status, 400, JSON.stringify(input));
      t.match(res.json(), { ErrorMessage: { errorCode: 400, errorMessage: 'Bad Request' } });
    }
  });

  t.test('415 for other body types; 401 before 400; CSRF on POST', async (t) => {
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.cms.api.SessionInput+json', 'multipart/form-data; boundary=x']) {
      const res = await as(s, admin, '/activity-log-group/list', { method: 'POST', headers: { 'Content-Type': ct }, body: '{}' });
      t.equal(res.status, 415, ct);
      t.match(res.json(), { ErrorMessage: { errorCode: 415, errorMessage: 'Unsupported Media Type' } });
    }
    t.equal((await as(s, admin, '/activity-log-group/list', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '' })).status, 200, 'an empty body needs no type');
    t.equal((await as(s, null, '/activity-log-group/list', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' })).status, 401, 'anonymous: 401 before 415');
    t.equal((await as(s, visitor, '/activity-log-group/list', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' })).status, 401, 'no policy: 401 before 400');
    const noCsrf = await as(s, admin, '/activity-log-group/list', { method: 'POST', csrf: false });
    t.equal(noCsrf.status, 401);
    t.equal(noCsrf.json().ErrorMessage.errorDescription, 'Missing or invalid CSRF token');
    t.equal((await as(s, null, '/activity-log-group/list')).status, 401, 'GET anonymous');
    t.equal((await as(s, visitor, '/activity-log-group/list')).status, 401, 'GET without activity_log/read');
    t.equal((await as(s, visitor, '/activity-log-group/list?limit=0')).status, 401, '401 before 400');
  });

  t.test('scope: admin sees all, editor only its own groups', async (t) => {
    const own = (g: Group) => g.user_id === 41;
    t.same(await ids(editor, { limit: 100 }), expected(() => true, own));
    t.same(await ids(editor, { criteria: [{ type: 'user', value: [14, 63] }] }), [], 'criteria act on visible groups');
    t.same(await ids(editor, { criteria: [{ type: 'action', value: 'publish' }], limit: 100 }), expected((g) => matches({ type: 'action', value: 'publish' }, g), own));
    const get = idsOf((await as(s, editor, '/activity-log-group/list?limit=100')).json().ActivityLogGroupList);
    t.same(get, expected(() => true, own).reverse());
    t.same(await ids(admin, { limit: 100 }), expected(() => true));
  });
});
