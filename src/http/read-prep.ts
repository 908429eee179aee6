// What a read needs before it runs — plan, negotiated media, SQL, stream choice, Content-Location —
// depends only on the request's shape: schema, relation, query string, Accept, Prefer, Range and
// method, under one schema cache and config. Reads of one shape (a client polling, a hot page) are
// prepared once and then found by that key: a new schema cache (reload) starts afresh, and a
// failure (400, 406, …) is not kept, so it is always answered as it is found.
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
import { compile, type Sql, type Statement } from '../sql/fragment.js';
import { mediaBodySql, type MediaBody } from '../sql/media.js';
import { buildPlannedCountStatement, buildReadStatement } from '../sql/read.js';
import { buildReadStreamStatement, type StreamFormat } from '../sql/stream.js';
import { mediaBodyFor, readOffers } from './media.js';
import { perCacheTable } from './cache-table.js';
import { streamFormat } from './stream-policy.js';
import { txEnd } from './tx.js';

export interface PreparedRead {
  readonly plan: ReadPlan;
  readonly media: Negotiated;
  readonly mediaBody: MediaBody | undefined;
  /** The main statement before compiling (EXPLAIN wraps it). */
  readonly main: Sql;
  /** Streamed through a cursor in this format (http/stream.ts), or null: buffered. */
  readonly format: StreamFormat | null;
  /** Buffered: the main statement, and the planned count's when asked for. */
  readonly statements: ReadonlyArray<Statement>;
  /** Streamed: the cursor's statement. */
  readonly streamStatement: Statement | null;
  /**
   * Streamed: the buffered statement limited to server-stream-threshold + 1 rows, run first (as a
   * buffered read: one round trip, pipelined) unless the shape recently overflowed (http/stream-memo.ts).
   */
  readonly probeStatement: Statement | null;
  /** Content-Location, or null when too long for a header. */
  readonly location: string | null;
  readonly warning: string | null;
}

/** Longer Content-Location values are left out: most clients refuse response headers over 16 KiB. */
const MAX_CONTENT_LOCATION = 8 * 1024;
/** Shapes kept per schema cache and configuration (at most 1,000), and the longest key kept. */
const shapesFor = perCacheTable<PreparedRead>(1000);
const MAX_KEY = 4096;

export function prepareRead(req: ApiRequest, relation: string, cache: SchemaCache, cfg: AppConfig): Result<PreparedRead> {
  const h = req.headers;
  const key = `${req.method}\n${req.schema}\n${relation}\n${req.search}\n${h['accept'] ?? ''}\n${h['prefer'] ?? ''}\n${h['range'] ?? ''}\n${h['range-unit'] ?? ''}`;
  const shapes = shapesFor(cache, cfg);
  const hit = shapes.get(key);
  if (hit !== undefined) return ok(hit);
  const made = makeRead(req, relation, cache, cfg);
  if (made.ok && key.length <= MAX_KEY) shapes.set(key, made.value);
  return made;
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
  const statements: Statement[] = [];
  if (format === null && !media.value.plan) {
    statements.push(compile(main));
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
    probeStatement: format === null ? null : compile(buildReadStatement(limitedTo(plan.value, cfg.serverStreamThreshold + 1), readOptions)),
    location: location.length <= MAX_CONTENT_LOCATION ? location : null,
    warning: legacyTargetWarning(plan.value.legacyTargets),
  });
}
