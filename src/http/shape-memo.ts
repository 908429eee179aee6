// Plans and statements built once per request shape. A POST of a JSON body to a table or a
// function gives the same SQL text for every body with the same keys: only the one parameter that
// carries the body changes. So the planned action and its compiled statement are kept per shape —
// method, URL, the headers planning reads, and the body's key set — and a later request of that
// shape only puts its own body into the statement.
//
// The memo is checked, not assumed: on a miss the request is planned twice, once with its own
// body and once with a stand-in body of the same keys (null values). Only when both give the same
// SQL text and their values differ in exactly one place — the body parameter — is the shape kept;
// otherwise it is remembered as "not memoizable" and always planned in full. Entries live with
// the schema cache and configuration they were planned against (a reload starts afresh).
import { Buffer } from 'node:buffer';
import type { SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import { statementName } from '../db/transaction.js';
import type { Result } from '../errors/types.js';
import type { ApiRequest } from '../request/api-request.js';
import { parsePayload } from '../request/payload.js';
import { perCacheTable } from './cache-table.js';
import type { Statement } from '../sql/fragment.js';
import { fill, templateOf, type StatementTemplate } from './statement-template.js';

export interface Planned<P> {
  readonly plan: P;
  readonly statement: Statement;
}

interface Entry<P> {
  readonly plan: P;
  readonly template: StatementTemplate;
}

/** Shapes kept per schema cache and configuration (null: known not memoizable), at most 2,000. */
const shapesFor = perCacheTable<Entry<unknown> | null>(2_000);

/** The body of a memoizable request: JSON (by Content-Type or its absence), parsed for its keys. */
interface JsonBody {
  readonly text: string;
  readonly keys: ReadonlyArray<string>;
  readonly isObject: boolean;
}

function jsonBody(req: ApiRequest, forCall: boolean, columns: ReadonlyArray<string> | null): JsonBody | null {
  const ct = req.contentType;
  if (ct !== null && !(ct.type === 'application' && ct.subtype === 'json')) return null;
  const p = parsePayload(req.body, ct, { columns, forCall });
  return p.ok && p.value.kind === 'json' ? p.value : null;
}

/** A body of the same shape whose values are all null. */
function standIn(body: JsonBody, columns: ReadonlyArray<string> | null): Buffer {
  if (columns !== null) return Buffer.from(body.isObject ? '{}' : '[]');
  const row = JSON.stringify(Object.fromEntries(body.keys.map((k) => [k, null])));
  return Buffer.from(body.isObject ? row : `[${row}]`);
}

const header = (req: ApiRequest, name: string): string => req.headers[name] ?? '';

/** What makes two requests' plans and statements the same but for the body's values. */
interface Shape {
  readonly method: string;
  readonly schema: string;
  readonly path: string;
  readonly search: string;
  readonly prefer: string;
  readonly accept: string;
  readonly contentType: string;
  readonly isObject: boolean;
  readonly keys: ReadonlyArray<string>;
}

const keyOf = (s: Shape): string =>
  `${s.method}\n${s.schema}\n${s.path}\n${s.search}\n${s.prefer}\n${s.accept}\n${s.contentType}\n${s.isObject ? '{' : '['}${JSON.stringify(s.keys)}`;

function sameShape(a: Shape, b: Shape): boolean {
  if (a.method !== b.method || a.path !== b.path || a.search !== b.search || a.schema !== b.schema || a.isObject !== b.isObject) return false;
  if (a.prefer !== b.prefer || a.accept !== b.accept || a.contentType !== b.contentType || a.keys.length !== b.keys.length) return false;
  for (let i = 0; i < a.keys.length; i++) if (a.keys[i] !== b.keys[i]) return false;
  return true;
}

/**
 * The shape looked up last and its entry, in the table it was found in: a run of requests of one
 * shape (a client inserting rows one by one) compares its parts with the last one's instead of
 * building, hashing and comparing the whole key — some 6,000 instructions a request.
 */
let last: { readonly shapes: Map<string, Entry<unknown> | null>; readonly shape: Shape; readonly entry: Entry<unknown> | null } | null = null;

/**
 * Plan and compile `req` through `build`, or take the plan and statement of an earlier request of
 * the same shape. `columns` is the `columns=` list the planner reads the body with (or null).
 * Requests without a JSON body, or whose body does not parse, are planned in full every time.
 */
export function plannedByShape<P>(
  req: ApiRequest,
  cache: SchemaCache,
  config: AppConfig,
  forCall: boolean,
  columns: ReadonlyArray<string> | null,
  build: (req: ApiRequest) => Result<Planned<P>>,
): Result<Planned<P>> {
  const body = req.body === null && !forCall ? null : jsonBody(req, forCall, columns);
  if (body === null) return build(req);
  const shape: Shape = {
    method: req.method,
    schema: req.schema,
    path: req.path,
    search: req.search,
    prefer: header(req, 'prefer'),
    accept: header(req, 'accept'),
    contentType: header(req, 'content-type'),
    isObject: body.isObject,
    keys: body.keys,
  };
  const shapes = shapesFor(cache, config);
  let key: string | null = null;
  let hit: Entry<unknown> | null | undefined;
  if (last !== null && last.shapes === shapes && sameShape(last.shape, shape)) hit = last.entry;
  else {
    key = keyOf(shape);
    hit = shapes.get(key);
    if (hit !== undefined) last = { shapes, shape, entry: hit };
  }
  if (hit) return { ok: true, value: { plan: hit.plan as P, statement: fill(hit.template, [body.text]) } };
  const planned = build(req);
  if (!planned.ok || hit === null) return planned;

  // First request of this shape: plan it again with a stand-in body to find the body's parameter.
  const otherReq = { ...req, body: standIn(body, columns) };
  const other = build(otherReq);
  const otherBody = jsonBody(otherReq, forCall, columns);
  const a = planned.value.statement;
  const template = other.ok && otherBody ? templateOf(a, other.value.statement, [body.text], [otherBody.text], statementName(a.text), new Set()) : null;
  // Kept only when the body is bound in exactly one place (a body of nulls equals its stand-in: no hole).
  const entry = template === null || template.holes.length !== 1 ? null : { plan: planned.value.plan, template };
  shapes.set(key ?? keyOf(shape), entry);
  last = { shapes, shape, entry };
  return planned;
}
