// The CMS API example (examples/cms) over real HTTP: a test database loaded with the example's own SQL,
// a server mounting its routes.json as web_anon, log-in helpers, and a small XML parser so that XML
// bodies are compared as element trees, not as strings.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createTestDatabase } from '../../helpers/db.js';
import { startTestServer, type RequestOptions, type TestResponse, type TestServer } from '../../helpers/server.js';

export const EXAMPLE_DIR = path.resolve(process.cwd(), 'examples', 'cms');
export const BASE = '/api/cms/v2';
export const PASSWORDS: Record<string, string> = {
  admin: 'Lumen-Admin-2024',
  editor: 'Editor-Pass-77',
  visitor: 'Visitor-Pass-31',
  translator: 'Traduire-2024',
};

interface Teardown {
  teardown(fn: () => unknown): void;
}

export function exampleSql(): string[] {
  return readdirSync(EXAMPLE_DIR).filter((f) => f.endsWith('.sql')).sort().map((f) => path.join(EXAMPLE_DIR, f));
}

export async function startCmsServer(t: Teardown, config: Record<string, string> = {}): Promise<TestServer> {
  const db = await createTestDatabase(exampleSql());
  t.teardown(() => db.drop());
  const routes = readFileSync(path.join(EXAMPLE_DIR, 'routes.json'), 'utf8');
  return startTestServer(t, { db, config: { 'db-anon-role': 'web_anon', routes, ...config } });
}

export interface Session {
  readonly cookie: string;
  readonly csrf: string;
  readonly identifier: string;
  readonly userId: number;
}

/** `CMSSESSID=…` from a Set-Cookie header. */
export function cookieOf(res: TestResponse): string {
  const set = res.headers['set-cookie'] ?? '';
  const m = /CMSSESSID=[^;,]*/.exec(set);
  if (!m) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
  return m[0];
}

export async function login(s: TestServer, who: string): Promise<Session> {
  const res = await s.request(`${BASE}/user/sessions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/vnd.cms.api.SessionInput+json', Accept: 'application/vnd.cms.api.Session+json' },
    body: JSON.stringify({ SessionInput: { login: who, password: PASSWORDS[who] } }),
  });
  if (res.status !== 201) throw new Error(`login ${who}: ${res.status} ${res.text}`);
  const session = res.json().Session;
  return { cookie: cookieOf(res), csrf: session.csrfToken, identifier: session.identifier, userId: Number(session.User._href.split('/').pop()) };
}

/** A request as the session's browser sends it: the cookie, and the CSRF token on unsafe methods. */
export function as(s: TestServer, session: Session | null, p: string, opts: RequestOptions & { csrf?: boolean } = {}): Promise<TestResponse> {
  const method = (opts.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (session) {
    headers['Cookie'] = session.cookie;
    if ((opts.csrf ?? !['GET', 'HEAD', 'OPTIONS'].includes(method))) headers['X-CSRF-Token'] = session.csrf;
  }
  return s.request(p.startsWith('/') && !p.startsWith(BASE) ? BASE + p : p, { ...opts, method, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) });
}

// ---- XML as trees ------------------------------------------------------------------------------------

export interface XmlElement {
  readonly name: string;
  readonly attrs: Record<string, string>;
  readonly children: XmlElement[];
  /** The element's text (concatenated, unescaped), '' when it has only children. */
  readonly text: string;
}

function unescape(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (_, e: string) =>
    e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'amp' ? '&' : e === 'quot' ? '"' : e === 'apos' ? "'"
      : String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)));
}

/** Parse a document (declaration optional); throws on anything not well-formed. */
export function parseXml(doc: string): { declaration: string | null; root: XmlElement } {
  let i = 0;
  let declaration: string | null = null;
  const decl = /^<\?xml[^?]*\?>/.exec(doc);
  if (decl) {
    declaration = decl[0];
    i = decl[0].length;
  }
  const ws = () => {
    while (i < doc.length && /\s/.test(doc[i]!)) i++;
  };
  const element = (): XmlElement => {
    if (doc[i] !== '<') throw new Error(`expected < at ${i}: ${doc.slice(i, i + 30)}`);
    const head = /^<([A-Za-z_][\w.-]*)((?:\s+[\w.:-]+\s*=\s*"[^"]*")*)\s*(\/?)>/.exec(doc.slice(i));
    if (!head) throw new Error(`bad start tag at ${i}: ${doc.slice(i, i + 40)}`);
    i += head[0].length;
    const attrs: Record<string, string> = {};
    for (const a of head[2]!.matchAll(/([\w.:-]+)\s*=\s*"([^"]*)"/g)) attrs[a[1]!] = unescape(a[2]!);
    const children: XmlElement[] = [];
    let text = '';
    if (head[3] === '/') return { name: head[1]!, attrs, children, text };
    for (;;) {
      const lt = doc.indexOf('<', i);
      if (lt === -1) throw new Error(`unclosed <${head[1]}>`);
      text += doc.slice(i, lt);
      i = lt;
      if (doc.startsWith('</', i)) {
        const close = `</${head[1]}>`;
        if (!doc.startsWith(close, i)) throw new Error(`expected ${close} at ${i}`);
        i += close.length;
        return { name: head[1]!, attrs, children, text: children.length > 0 ? unescape(text).trim() : unescape(text) };
      }
      children.push(element());
    }
  };
  ws();
  const root = element();
  ws();
  if (i !== doc.length) throw new Error(`trailing content: ${doc.slice(i, i + 30)}`);
  return { declaration, root };
}

export const child = (e: XmlElement, name: string): XmlElement | undefined => e.children.find((c) => c.name === name);
export const childrenNamed = (e: XmlElement, name: string): XmlElement[] => e.children.filter((c) => c.name === name);

/**
 * The JSON a tree maps back to under the spec's §2.3 rules (attributes → `_x` members, `_href` →
 * `__href`, +xml → +json; repeated list items → the list member), so XML and JSON answers can be
 * compared as values. `lists` maps an item element name to its JSON list member.
 */
const LISTS: Record<string, string> = { ActivityLogGroup: 'ActivityLogGroups', ActivityLog: 'ActivityLogEntries', Bookmark: 'items', Event: 'events' };
export function xmlToJson(e: XmlElement): unknown {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.attrs)) {
    const key = k === '_href' ? '__href' : `_${k}`;
    out[key] = k === 'media-type' ? v.replace(/\+xml$/, '+json') : v;
  }
  if (e.children.length === 0 && Object.keys(e.attrs).length === 0) return e.text;
  for (const c of e.children) {
    const list = LISTS[c.name];
    if (list && e.name !== 'data') {
      ((out[list] ??= []) as unknown[]).push(xmlToJson(c));
    } else out[c.name] = xmlToJson(c);
  }
  return out;
}

/** JSON with every scalar as its XML text (numbers and booleans as strings; `{}` as ''), for comparison with xmlToJson. */
export function asXmlText(v: unknown): unknown {
  if (v === null) return '';
  if (Array.isArray(v)) return v.map(asXmlText);
  if (typeof v === 'object') {
    // An empty list has no XML elements at all.
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => !(Array.isArray(x) && x.length === 0));
    if (entries.length === 0) return '';
    return Object.fromEntries(entries.map(([k, x]) => [k, asXmlText(x)]));
  }
  return String(v);
}
