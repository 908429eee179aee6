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
  // Concatenated, not an array joined: Array#join cost more than the key's hashing.
  const key = `${req.method}\n${req.schema}\n${req.path}\n${req.search}\n${header(req, 'prefer')}\n${header(req, 'accept')}\n${header(req, 'content-type')}\n${body.isObject ? '{' : '['}${JSON.stringify(body.keys)}`;
  const shapes = shapesFor(cache, config);
  const hit = shapes.get(key);
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
  shapes.set(key, template === null || template.holes.length !== 1 ? null : { plan: planned.value.plan, template });
  return planned;
}
