// What a read needs before it runs — plan, negotiated media, SQL, stream choice, Content-Location —
// depends only on the request's shape: schema, relation, query string, Accept, Prefer, Range and
// method, under one schema cache and config. Reads of one shape (a client polling, a hot page) are
// prepared once and then found by that key: a new schema cache (reload) starts afresh, and a
// failure (400, 406, …) is not kept, so it is always answered as it is found.
//
// The key leaves out the values of simple filters (http/read-template.ts): `/tracks?id=eq.17` and
// `/tracks?id=eq.90210` are one shape, kept once and checked once, and a read of it only puts its
// own values into the statements' values and rebuilds its Content-Location.
import type { SchemaCache } from '../catalog/types.js';
import { findRelation } from '../catalog/lookup.js';
import type { AppConfig } from '../config/types.js';
import { ok, type Result } from '../errors/types.js';
import type { ApiError } from '../errors/types.js';
import { legacyTargetWarning } from '../plan/filters.js';
import { planRead } from '../plan/read-plan.js';
import type { ReadPlan } from '../plan/types.js';
import type { ApiRequest } from '../request/api-request.js';
import { parseUrlEncoded } from '../request/urlencoded.js';
import { canonicalLocation } from '../response/headers.js';
import { negotiateMedia, type Negotiated } from '../response/negotiate.js';
import { sentAsBuilt } from '../response/read-body.js';
import { compile, type Sql, type Statement } from '../sql/fragment.js';
import { mediaBodySql, type MediaBody } from '../sql/media.js';
import { buildPlannedCountStatement, buildReadStatement } from '../sql/read.js';
import { buildReadStreamStatement, type StreamFormat } from '../sql/stream.js';
import { mediaBodyFor, readOffers } from './media.js';
import { perCacheTable } from './cache-table.js';
import { streamFormat } from './stream-policy.js';
import { txEnd } from './tx.js';
import { statementName } from '../db/transaction.js';
import { filterValues, standIns, valuelessSearch, withFilterValues } from './read-template.js';
import { fill, templateOf, type StatementTemplate } from './statement-template.js';

export interface PreparedRead {
  /**
   * As planned for the first read of the shape: its filter values may be another read's (only the
   * statements, the location and the warning are this read's own).
   */
  readonly plan: ReadPlan;
  readonly media: Negotiated;
  readonly mediaBody: MediaBody | undefined;
  /** The main statement before compiling (EXPLAIN wraps it; a shape with a plan media is never shared). */
  readonly main: Sql;
  /** Streamed through a cursor in this format (http/stream.ts), or null: buffered. */
  readonly format: StreamFormat | null;
  /**
   * Buffered: the main statement, and the planned count's when asked for. The main one's body
   * column comes as its bytes (rawColumn) when the body is sent as SQL built it.
   */
  readonly statements: ReadonlyArray<ReadStatement>;
  /** Streamed: the cursor's statement. */
  readonly streamStatement: Statement | null;
  /**
   * Streamed: the buffered statement limited to server-stream-threshold + 1 rows, run first (as a
   * buffered read: one round trip, pipelined) unless the shape recently overflowed (http/stream-memo.ts).
   */
  readonly probeStatement: ReadStatement | null;
  /** Content-Location, or null when too long for a header. */
  readonly location: string | null;
  readonly warning: string | null;
  /** The same object for every read of the shape (http/stream-memo.ts remembers shapes by it). */
  readonly shape: object;
}

/** A statement run buffered (db/batch.ts): `rawColumn`, the body's column taken as its bytes. */
export type ReadStatement = Statement & { readonly rawColumn?: number };

/** The envelope's body column (sql/read.ts: total_count, page_count, body, …). */
const BODY_COLUMN = 2;

/** The statement of a template with this read's values, its body column taken raw as the first read's was. */
function filled(t: StatementTemplate, values: ReadonlyArray<string>, rawColumn: number | undefined): ReadStatement {
  const s = fill(t, values);
  return rawColumn === undefined ? s : { text: s.text, values: s.values, name: s.name!, rawColumn };
}

/** Longer Content-Location values are left out: most clients refuse response headers over 16 KiB. */
const MAX_CONTENT_LOCATION = 8 * 1024;
/** Shapes kept per schema cache and configuration (at most 1,000), and the longest key kept. */
const shapesFor = perCacheTable<PreparedRead>(1000);
const MAX_KEY = 4096;

export function prepareRead(req: ApiRequest, relation: string, cache: SchemaCache, cfg: AppConfig): Result<PreparedRead> {
  const h = req.headers;
  const accept = h['accept'] ?? '';
  const prefer = h['prefer'] ?? '';
  const range = h['range'] ?? '';
  const rangeUnit = h['range-unit'] ?? '';
  const valueless = valuelessOf(req.search);
  if (valueless !== null) {
    const templated = templatedRead(req, relation, cache, cfg, templateKey(req.method, req.schema, relation, valueless, accept, prefer, range, rangeUnit));
    if (templated !== null) return templated;
  }
  const key = `${req.method}\n${req.schema}\n${relation}\n${req.search}\n${accept}\n${prefer}\n${range}\n${rangeUnit}`;
  const shapes = shapesFor(cache, cfg);
  const hit = shapes.get(key);
  if (hit !== undefined) return ok(hit);
  const made = makeRead(req, relation, cache, cfg);
  if (made.ok && key.length <= MAX_KEY) shapes.set(key, made.value);
  return made;
}

/** valuelessSearch of the query string seen last, kept: a client repeats its URL (a hot page, polling). */
let lastSearch = '';
let lastValueless: string | null = null;
function valuelessOf(search: string): string | null {
  if (search !== lastSearch) {
    lastValueless = valuelessSearch(search);
    lastSearch = search;
  }
  return lastValueless;
}

/**
 * The template key of a read, the same string as the last read's when its parts are the same: a
 * key built anew is a concatenation that the table lookup flattens and hashes, while the last one
 * is flat and hashed already; comparing eight short strings costs less.
 */
let lastParts: string[] = [];
let lastKey = '';
function templateKey(...parts: string[]): string {
  const last = lastParts;
  if (last.length === parts.length) {
    let i = 0;
    while (i < parts.length && parts[i] === last[i]) i++;
    if (i === parts.length) return lastKey;
  }
  lastParts = parts;
  lastKey = parts.join('\n');
  return lastKey;
}

/** Content-Location of the read seen last, kept by relation and query string (they alone make it). */
let lastLocationOf: readonly [string, string] = ['', ''];
let lastLocation = '';
function locationOf(relation: string, search: string): string {
  if (relation !== lastLocationOf[0] || search !== lastLocationOf[1]) {
    lastLocation = canonicalLocation(relation, parseUrlEncoded(search) ?? []);
    lastLocationOf = [relation, search];
  }
  return lastLocation;
}

/** A shape kept without its filter values: the first read's preparation and its statements' templates. */
interface Template {
  readonly first: PreparedRead;
  readonly slots: number;
  readonly statements: ReadonlyArray<StatementTemplate>;
  readonly stream: StatementTemplate | null;
  readonly probe: StatementTemplate | null;
}

/** Value-free shapes per schema cache and configuration (null: known not to be shareable). */
const templatesFor = perCacheTable<Template | null>(1000);

/**
 * The read from its shape's template, made and checked on its first read; null when the shape is
 * not shareable (then it is prepared by its whole query string).
 */
function templatedRead(req: ApiRequest, relation: string, cache: SchemaCache, cfg: AppConfig, key: string): Result<PreparedRead> | null {
  const templates = templatesFor(cache, cfg);
  const hit = templates.get(key);
  if (hit === null) return null;
  const values = filterValues(req.query);
  if (hit !== undefined) {
    if (values.length !== hit.slots) return null;
    const location = locationOf(relation, req.search);
    return ok({
      ...hit.first,
      statements: hit.statements.map((t, i) => filled(t, values, hit.first.statements[i]!.rawColumn)),
      streamStatement: hit.stream === null ? null : fill(hit.stream, values),
      probeStatement: hit.probe === null ? null : filled(hit.probe, values, hit.first.probeStatement!.rawColumn),
      location: location.length <= MAX_CONTENT_LOCATION ? location : null,
    });
  }
  const made = makeRead(req, relation, cache, cfg);
  if (!made.ok) return made;
  if (key.length <= MAX_KEY) templates.set(key, templateFrom(made.value, req, relation, cache, cfg, values));
  return made;
}

/** Plan the read again with stand-in values; the template when only the values' parameters differ. */
function templateFrom(
  own: PreparedRead,
  req: ApiRequest,
  relation: string,
  cache: SchemaCache,
  cfg: AppConfig,
  values: ReadonlyArray<string>,
): Template | null {
  if (values.length === 0 || own.media.plan) return null;
  const others = standIns(values.length);
  const other = makeRead({ ...req, query: withFilterValues(req.query, others) }, relation, cache, cfg);
  if (!other.ok) return null;
  const b = other.value;
  if (b.format !== own.format || b.warning !== own.warning || b.statements.length !== own.statements.length) return null;
  const used = new Set<number>();
  const one = (x: Statement | null, y: Statement | null): StatementTemplate | null | false => {
    if (x === null || y === null) return x === y ? null : false;
    return templateOf(x, y, values, others, x.name ?? statementName(x.text), used) ?? false;
  };
  const statements: StatementTemplate[] = [];
  for (let i = 0; i < own.statements.length; i++) {
    const t = one(own.statements[i]!, b.statements[i]!);
    if (!t) return null;
    statements.push(t);
  }
  const stream = one(own.streamStatement, b.streamStatement);
  const probe = one(own.probeStatement, b.probeStatement);
  if (stream === false || probe === false || used.size !== values.length) return null;
  return { first: own, slots: values.length, statements, stream, probe };
}

/** The plan with its root limited to `limit` rows (the same offset). */
export function limitedTo(plan: ReadPlan, limit: number): ReadPlan {
  const range = { offset: plan.range.offset, limit };
  return { ...plan, range, root: { ...plan.root, range } };
}

function makeRead(req: ApiRequest, relation: string, cache: SchemaCache, cfg: AppConfig): Result<PreparedRead, ApiError> {
  const count = req.preferences.count;
  const plan = planRead({ schema: req.schema, relation, query: req.query, range: req.range, count }, cache, cfg);
  if (!plan.ok) return plan;
  // Negotiated against the relation's media handlers (PostgREST: after planning, so a bad select wins).
  const offers = readOffers(cache, req.schema, relation, plan.value);
  const media = negotiateMedia(req.accept, offers, { planEnabled: cfg.dbPlanEnabled, acceptHeader: req.headers['accept'] });
  if (!media.ok) return media;
  const headersOnly = req.method === 'HEAD';
  // A plan explains the statement of the media it names (`for=`).
  const mediaBody = mediaBodyFor(cache, media.value.plan?.target ?? media.value, plan.value, null, headersOnly);
  const countOpt = count === 'planned' ? null : count;
  // A plan is explained without the response cap's wrapper: its top node is the statement's own, as PostgREST's.
  const maxResponseBytes = media.value.plan ? 0 : cfg.serverMaxResponseBytes;
  const readOptions =
    mediaBody === undefined
      ? { count: countOpt, maxRows: cfg.dbMaxRows, maxResponseBytes }
      : { count: countOpt, maxRows: cfg.dbMaxRows, body: mediaBodySql(mediaBody), maxResponseBytes };
  const main = buildReadStatement(plan.value, readOptions);
  const format = media.value.plan
    ? null
    : streamFormat(
        { media: media.value.media, headersOnly, count, readOnly: true, txEnd: txEnd(cfg, req.preferences), plan: plan.value, relation: findRelation(cache, req.schema, relation) ?? null },
        cfg,
      );
  // The body as SQL built it (no shaping in http/read.ts): taken as the bytes PostgreSQL sent.
  const rawColumn = mediaBody !== undefined || format !== null || sentAsBuilt(media.value.media) ? BODY_COLUMN : undefined;
  const raw = (st: Statement): ReadStatement => (rawColumn === undefined ? st : { ...st, rawColumn });
  const statements: ReadStatement[] = [];
  if (format === null && !media.value.plan) {
    statements.push(raw(compile(main)));
    if (count === 'planned' || count === 'estimated') statements.push(compile(buildPlannedCountStatement(plan.value)));
  }
  const location = canonicalLocation(relation, parseUrlEncoded(req.search) ?? []);
  return ok({
    plan: plan.value,
    media: media.value,
    mediaBody,
    main,
    format,
    statements,
    streamStatement: format === null ? null : compile(buildReadStreamStatement(plan.value, format)),
    probeStatement: format === null ? null : raw(compile(buildReadStatement(limitedTo(plan.value, cfg.serverStreamThreshold + 1), readOptions))),
    location: location.length <= MAX_CONTENT_LOCATION ? location : null,
    warning: legacyTargetWarning(plan.value.legacyTargets),
    shape: {},
  });
}
