// What a read or a call can produce beyond the built-ins (its media handlers, from the schema
// cache's per-relation index), and how the negotiated representation becomes the SQL body. Shared
// by runRead and executeCall, so every caller of either (RPC, route mounts) negotiates the same way.
// Pure: lookups into the schema cache and plain data.
import { anyElementMediaHandlers, findRelation, relationMediaHandlers, routineMediaHandler } from '../catalog/lookup.js';
import type { MediaHandler, SchemaCache } from '../catalog/types.js';
import type { PlannedCall } from '../plan/call-plan.js';
import type { ReadNode, ReadPlan } from '../plan/types.js';
import { NO_OFFERS, type MediaOffers, type Negotiated } from '../response/negotiate.js';
import type { MediaBody } from '../sql/media.js';
import { constant, sql } from '../sql/fragment.js';
import { buildReadRowsStatement } from '../sql/read.js';

const NONE: ReadonlyMap<string, MediaHandler> = new Map();

/** The one output column of a read whose select names exactly one plain field, else null. */
interface RawColumn {
  readonly name: string;
  readonly type: string | null;
}

function rawColumnOf(node: ReadNode): RawColumn | null {
  if (node.select.length !== 1 || node.embeds.some((e) => !e.silent)) return null;
  const s = node.select[0]!;
  if (s.kind !== 'field' || s.aggregate !== null) return null;
  const path = s.field.jsonPath;
  const type = s.cast ?? (path.length > 0 ? (path[path.length - 1]!.op === '->>' ? 'text' : 'json') : s.field.type);
  return { name: s.outputName, type };
}

const rawKind = (type: string | null): 'xml' | 'other' => (type === 'xml' ? 'xml' : 'other');

function offers(value: MediaHandler | null, own: ReadonlyMap<string, MediaHandler>, any: ReadonlyMap<string, MediaHandler>, raw: 'xml' | 'other' | null): MediaOffers {
  // The common case (no handlers, no single column) allocates nothing.
  if (value === null && own.size === 0 && any.size === 0 && raw === null) return NO_OFFERS;
  return { value, own, any, raw };
}

/** `GET /relation`: its aggregates (with the default select), anyelement ones, one-column raw output. */
export function readOffers(cache: SchemaCache, schema: string, relation: string, plan: ReadPlan): MediaOffers {
  const own = plan.defaultSelect ? relationMediaHandlers(cache, schema, relation) : NONE;
  const raw = rawColumnOf(plan.root);
  return offers(null, own, anyElementMediaHandlers(cache), raw === null ? null : rawKind(raw.type));
}

/**
 * A call: a non-SETOF function returning a media-type domain offers that type (its value, sent as
 * is); a function returning a table's rows offers that table's aggregates (default select); every
 * call offers the anyelement aggregates; a single value (or one selected column) offers raw output.
 */
export function callOffers(cache: SchemaCache, call: PlannedCall): MediaOffers {
  const r = call.routine.returns;
  if (r.kind === 'void') return NO_OFFERS;
  const any = anyElementMediaHandlers(cache);
  if (r.kind === 'scalar') {
    if (r.setOf) return offers(null, NONE, any, null);
    return offers(routineMediaHandler(cache, call.routine) ?? null, NONE, any, rawKind(r.type));
  }
  const table = r.isRelation && call.read.defaultSelect && findRelation(cache, r.type.schema, r.type.name) ? r.type : null;
  const raw = rawColumnOf(call.read.root);
  return offers(null, table ? relationMediaHandlers(cache, table.schema, table.name) : NONE, any, raw === null ? null : rawKind(raw.type));
}

/**
 * The SQL body for a negotiated handler or raw representation; undefined for the built-ins (JSON,
 * CSV, vnd.pgrst.*), which keep their own. HEAD builds no body (PostgREST's NoAgg).
 */
export function mediaBodyFor(
  cache: SchemaCache,
  media: Negotiated,
  read: ReadPlan,
  call: PlannedCall | null,
  headersOnly: boolean,
): MediaBody | undefined {
  if (media.media === 'csv' || media.media === 'ndjson') {
    if (headersOnly) return { kind: 'none' };
    if (media.media === 'ndjson') return { kind: 'ndjson', scalar: call !== null && call.result.kind === 'scalar' };
    // PostgREST takes the header from the first source row; a call's rows are its select over the
    // call's result (pgrst_source), so they are named by that select.
    return { kind: 'csv', header: call === null ? constant('pgrst_source') : sql`(${buildReadRowsStatement(read, { source: constant('pgrst_source') })})` };
  }
  if (media.media === 'geojson') return headersOnly ? { kind: 'none' } : { kind: 'geojson' };
  if (media.media !== 'handler' && media.media !== 'value' && media.media !== 'raw') return undefined;
  if (headersOnly) return { kind: 'none' };
  const scalar = call !== null && call.result.kind === 'scalar';
  const h = media.handler;
  if (media.media === 'handler' && h) {
    return { kind: 'aggregate', aggregate: h.function, relation: h.relation, scalar, binary: h.binary };
  }
  if (media.media === 'value' && h) return { kind: 'value', binary: h.binary, xml: h.xml === true };
  // raw: a scalar call's value, or the one selected column.
  const output = media.raw ?? 'text';
  if (scalar && call !== null) {
    const type = call.routine.returns.kind === 'scalar' ? call.routine.returns.type : null;
    const bytes = type === 'bytea' || routineMediaHandler(cache, call.routine)?.binary === true;
    return { kind: 'raw', column: 'pgrst_scalar', output, columnIsBytea: bytes };
  }
  const col = rawColumnOf(read.root);
  return { kind: 'raw', column: col?.name ?? 'pgrst_scalar', output, columnIsBytea: col?.type === 'bytea' };
}
