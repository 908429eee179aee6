// planCall: `GET|HEAD|POST /rpc/f` → PlannedCall (PostgREST's Plan.callReadPlan + findProc). Chooses
// the overload by the argument names, decides how the arguments travel (one JSON parameter unpacked
// in SQL, typed parameters, or the whole body for a single unnamed parameter), and plans the
// select/filters/order/range applied to the function's rows. Pure; errors as values.
//
// planBoundCall is the same for a routine whose arguments were already bound from other request
// parts (engine spec §5 route mounts: path, query, header, cookie, body): it yields the same
// PlannedCall, so http/call.ts executes and renders both identically.
import { callableRoutineNames, findCallableRoutines, findRelation } from '../catalog/lookup.js';
import type { Column, Routine, RoutineParam, SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';
import { errors } from '../errors/catalog.js';
import { err, ok, type ApiError, type Result } from '../errors/types.js';
import type { ApiRequest } from '../request/api-request.js';
import { parsePayload, payloadMedia, type PayloadMedia } from '../request/payload.js';
import { isXmlType, jsonXmlProblem, xmlRefused, xmlValueProblem } from '../request/xml-guard.js';
import type { QueryParams, RangeHeader } from '../request/types.js';
import { qualified, sql } from '../sql/fragment.js';
import { fuzzyGetOne } from '../catalog/fuzzy.js';
import { planReadFromCall } from './read-plan.js';
import type { ReadPlan } from './types.js';

/** One argument's value: text (cast to the parameter's type in SQL), a list (VARIADIC), bytes, or NULL. */
export type CallArgValue = string | ReadonlyArray<string> | Buffer | null;

export type CallArgs =
  /**
   * POST with a JSON object: the body is ONE json parameter unpacked by
   * `json_to_record(…) AS _(a integer, b text)`, and each named parameter reads its column.
   */
  | { readonly kind: 'json'; readonly text: string; readonly isObject: boolean }
  /** `?a=1&b=x`, a form body or a route mount's bindings: `f(a := $1::integer, b := $2::text)`. */
  | { readonly kind: 'direct'; readonly values: ReadonlyMap<string, CallArgValue> }
  /** One unnamed parameter (or `Prefer: params=single-object`): `f($1::json)` with the whole body. */
  | { readonly kind: 'positional'; readonly value: CallArgValue };

/** What the function gives back, as the response shapes it. */
export type CallResult =
  | { readonly kind: 'void' }
  /** Base/domain/enum type: the rows have one column, `pgrst_scalar`. */
  | { readonly kind: 'scalar'; readonly setOf: boolean }
  /** A row type: a table's, a composite type's, RETURNS TABLE or OUT parameters. */
  | { readonly kind: 'composite'; readonly setOf: boolean };

export interface PlannedCall {
  readonly routine: Routine;
  /** The input parameters the call passes, in declaration order (others take their defaults). */
  readonly params: ReadonlyArray<RoutineParam>;
  readonly args: CallArgs;
  readonly result: CallResult;
  /** `select=`, filters, `order=`, `limit`/`offset`/`Range` over the function's rows. */
  readonly read: ReadPlan;
  /** GET/HEAD, or a stable/immutable function: run in a READ ONLY transaction. */
  readonly readOnly: boolean;
  /** HEAD: no body. */
  readonly headersOnly: boolean;
  /** `Prefer: max-affected=n` with `handling=strict`: more rows → DBRST124, rolled back. */
  readonly maxAffected: number | null;
}

export type CallConfig = Pick<AppConfig, 'dbMaxRows' | 'dbAggregatesEnabled'>;

/** Input modes: what a caller passes (OUT and TABLE parameters describe the result). */
export const inputParams = (r: Routine): RoutineParam[] =>
  r.params.filter((p) => p.mode === 'in' || p.mode === 'inout' || p.mode === 'variadic');

// ---- /rpc/f -----------------------------------------------------------------------------------------

export function planCall(req: ApiRequest, name: string, cache: SchemaCache, cfg: CallConfig): Result<PlannedCall> {
  const isRead = req.method === 'GET' || req.method === 'HEAD';
  if (!isRead && req.method !== 'POST') {
    return err(errors.DBRST101(`Cannot use the ${req.method} method on RPC`));
  }

  // The arguments and the names they carry (PostgREST's paramKeys).
  let media: PayloadMedia = 'json';
  let keys: string[];
  let source:
    | { kind: 'pairs'; pairs: ReadonlyArray<readonly [string, string]> }
    | { kind: 'json'; text: string; isObject: boolean }
    | { kind: 'raw'; body: CallArgValue };
  if (isRead) {
    source = { kind: 'pairs', pairs: req.query.rpcArgs };
    keys = req.query.rpcArgs.map(([k]) => k);
  } else {
    media = payloadMedia(req.contentType) ?? 'json';
    const payload = parsePayload(req.body, req.contentType, { columns: req.query.columns, forCall: true });
    if (!payload.ok) return payload;
    const p = payload.value;
    if (p.kind === 'json') {
      source = { kind: 'json', text: p.text, isObject: p.isObject };
      keys = [...p.keys];
    } else if (p.kind === 'form') {
      source = { kind: 'pairs', pairs: p.pairs };
      keys = p.pairs.map(([k]) => k);
    } else {
      // bytea takes the bytes; text and xml the UTF-8 text.
      source = { kind: 'raw', body: p.media === 'binary' ? p.body : p.body.toString('utf8') };
      keys = [];
    }
  }
  const keySet = new Set(keys);

  const singleObject = !isRead && req.preferences.params === 'single-object';
  const found = singleObject
    ? findSingleObjectRoutine(cache, req.schema, name)
    : findRoutine(cache, req.schema, name, keySet, media, !isRead);
  if (!found.ok) return found;
  const routine = found.value;
  const inputs = inputParams(routine);

  let args: CallArgs;
  let passed: RoutineParam[];
  const unnamedSingle = inputs.length === 1 && inputs[0]!.name === '';
  if (singleObject || unnamedSingle) {
    passed = inputs.slice(0, 1);
    if (source.kind === 'raw') args = { kind: 'positional', value: source.body };
    else if (source.kind === 'json') args = { kind: 'positional', value: source.text };
    else args = { kind: 'positional', value: JSON.stringify(Object.fromEntries(source.pairs)) };
  } else {
    passed = inputs.filter((p) => keySet.has(p.name));
    if (source.kind === 'json') args = { kind: 'json', text: source.text, isObject: source.isObject };
    else if (source.kind === 'pairs') args = { kind: 'direct', values: directArgs(routine, source.pairs) };
    else args = { kind: 'direct', values: new Map() };
  }

  return planCallOf(routine, passed, args, req, cache, cfg, { readOnly: isRead || routine.volatility !== 'volatile' });
}

/**
 * A call whose arguments are already bound by name (a route mount): `values` maps parameter names to
 * values (text is cast to the parameter's type in SQL, a list feeds VARIADIC, a Buffer a bytea);
 * parameters left out take their defaults; a single unnamed parameter is bound under the name ''.
 * Same planning, execution and response as RPC.
 *
 * `opts.query` shapes the result (select/filters/order/limit; default: none, since a mount's query
 * string usually feeds arguments); `opts.readOnly` defaults to "not volatile".
 */
export function planBoundCall(
  routine: Routine,
  values: ReadonlyMap<string, CallArgValue>,
  req: ApiRequest,
  cache: SchemaCache,
  cfg: CallConfig,
  opts: { readonly readOnly?: boolean; readonly query?: QueryParams } = {},
): Result<PlannedCall> {
  const inputs = inputParams(routine);
  const unknown = [...values.keys()].filter((k) => !inputs.some((p) => p.name === k));
  if (unknown.length > 0) return err(noRoutine(cache, routine.schema, routine.name, [...values.keys()], 'json', true, [routine]));
  const missing = inputs.filter((p) => !p.hasDefault && p.mode !== 'variadic' && !values.has(p.name));
  if (missing.length > 0) return err(noRoutine(cache, routine.schema, routine.name, [...values.keys()], 'json', true, [routine]));
  const passed = inputs.filter((p) => values.has(p.name));
  const query = opts.query ?? EMPTY_QUERY;
  // One unnamed parameter (bound under the name ''): passed by position, as /rpc passes a body.
  const args: CallArgs =
    inputs.length === 1 && inputs[0]!.name === '' ? { kind: 'positional', value: values.get('') ?? null } : { kind: 'direct', values };
  return planCallOf(routine, passed, args, { ...req, query, range: null }, cache, cfg, {
    readOnly: opts.readOnly ?? routine.volatility !== 'volatile',
  });
}

/** No select, filters, order or range: the function's result as it is. */
export const EMPTY_QUERY: QueryParams = { select: null, logic: [], order: [], ranges: [], columns: null, onConflict: null, rpcArgs: [] };

function planCallOf(
  routine: Routine,
  passed: ReadonlyArray<RoutineParam>,
  args: CallArgs,
  req: Pick<ApiRequest, 'method' | 'schema' | 'query' | 'range' | 'preferences'>,
  cache: SchemaCache,
  cfg: CallConfig,
  opts: { readonly readOnly: boolean },
): Result<PlannedCall> {
  const result = callResult(routine);
  const strict = req.preferences.handling === 'strict';
  const maxAffected = strict ? req.preferences.maxAffected : null;
  // PostgREST's MaxAffectedRpcViolation: max-affected cannot limit a function that returns one value.
  if (maxAffected !== null && (result.kind === 'void' || !result.setOf)) {
    return err(errors.DBRST128('Function must return SETOF or TABLE when max-affected preference is used with handling=strict'));
  }
  const xml = xmlArgsProblem(passed, args);
  if (xml !== null) return err(xml);
  const read = planCallRead(routine, req, cache, cfg);
  if (!read.ok) return read;
  return ok({
    routine,
    params: passed,
    args,
    result,
    read: read.value,
    readOnly: opts.readOnly,
    headersOnly: req.method === 'HEAD',
    maxAffected,
  });
}

/**
 * Every value a call passes to an xml parameter (a raw body, a JSON key, a query or form argument, a
 * mount's binding) is refused when it carries a DTD, before PostgreSQL parses it (request/xml-guard.ts).
 */
function xmlArgsProblem(passed: ReadonlyArray<RoutineParam>, args: CallArgs): ApiError | null {
  const xmlParams = passed.filter((p) => isXmlType(p.type));
  if (xmlParams.length === 0) return null;
  const refused = (name: string, problem: string) => xmlRefused(name === '' ? 'The request body' : `The argument ${name}`, problem);
  switch (args.kind) {
    case 'positional': {
      const problem = xmlValueProblem(args.value);
      return problem === null ? null : refused(xmlParams[0]!.name, problem);
    }
    case 'direct':
      for (const p of xmlParams) {
        const problem = xmlValueProblem(args.values.get(p.name));
        if (problem !== null) return refused(p.name, problem);
      }
      return null;
    case 'json': {
      const found = jsonXmlProblem(args.text, xmlParams.map((p) => p.name));
      return found === null ? null : refused(found.key, found.problem);
    }
  }
}

export function callResult(routine: Routine): CallResult {
  const r = routine.returns;
  if (r.kind === 'void') return { kind: 'void' };
  return { kind: r.kind, setOf: r.setOf };
}

/** The read over the call's rows; scalars expose one column, `pgrst_scalar`, and ignore `select=`. */
function planCallRead(
  routine: Routine,
  req: Pick<ApiRequest, 'schema' | 'query' | 'range' | 'preferences'>,
  cache: SchemaCache,
  cfg: CallConfig,
): Result<ReadPlan> {
  const r = routine.returns;
  let columns: Column[] = [];
  let relation = null;
  let query: QueryParams = req.query;
  if (r.kind === 'composite') {
    if (r.isRelation && findRelation(cache, r.type.schema, r.type.name)) relation = r.type;
    else {
      columns = routine.params
        .filter((p) => p.mode === 'out' || p.mode === 'inout' || p.mode === 'table')
        .map((p, i) => syntheticColumn(p.name, p.type, i + 1));
    }
  } else {
    columns = [syntheticColumn('pgrst_scalar', r.kind === 'scalar' ? r.type : 'void', 1)];
    query = { ...req.query, select: null };
  }
  // The source SQL is supplied when the statement is built (sql/call.ts reads from its CTE).
  return planReadFromCall(
    {
      schema: req.schema,
      source: { kind: 'call', from: sql`${qualified(routine)}()`, columns, relation },
      query,
      range: req.range as RangeHeader | null,
      count: req.preferences.count,
    },
    cache,
    cfg,
  );
}

function syntheticColumn(name: string, type: string, position: number): Column {
  return {
    name,
    type,
    baseType: type,
    nullable: true,
    default: null,
    maxLength: null,
    description: null,
    enumValues: [],
    position,
    generated: false,
  };
}

/**
 * `?v=1&v=2` → VARIADIC v = {1,2}; other repeated names keep the last value (PostgREST's toRpcParams).
 */
function directArgs(routine: Routine, pairs: ReadonlyArray<readonly [string, string]>): Map<string, CallArgValue> {
  const variadic = new Set(routine.params.filter((p) => p.mode === 'variadic').map((p) => p.name));
  const out = new Map<string, CallArgValue>();
  for (const [k, v] of pairs) {
    if (variadic.has(k)) {
      const prev = out.get(k);
      out.set(k, Array.isArray(prev) ? [...(prev as ReadonlyArray<string>), v] : [v]);
    } else out.set(k, v);
  }
  return out;
}

// ---- overloads ----------------------------------------------------------------------------------

const RAW_MEDIA: ReadonlySet<PayloadMedia> = new Set<PayloadMedia>(['text', 'xml', 'binary']);
/** Which unnamed parameter type takes a body of each media type (PostgREST's hasSingleUnnamedParam). */
const BODY_PARAM_TYPES: Readonly<Partial<Record<PayloadMedia, ReadonlyArray<string>>>> = {
  json: ['json', 'jsonb'],
  text: ['text'],
  xml: ['xml'],
  binary: ['bytea'],
};

/**
 * PostgREST's findProc: overloads whose required parameters are exactly the given names (plus any
 * of the optional ones) win; else a function with one unnamed parameter of the body's type.
 * Several winners → DBRST203 (300); none → DBRST202 (404) with a hint.
 */
export function findRoutine(
  cache: SchemaCache,
  schema: string,
  name: string,
  keys: ReadonlySet<string>,
  media: PayloadMedia,
  isPost: boolean,
): Result<Routine> {
  const overloads = findCallableRoutines(cache, schema, name);
  const matching: Routine[] = [];
  const fallback: Routine[] = [];
  for (const r of overloads) {
    if (matchesParams(r, keys, media, isPost)) matching.push(r);
    else if (hasSingleUnnamedParam(r, media, isPost)) fallback.push(r);
  }
  if (matching.length === 1) return ok(matching[0]!);
  if (matching.length > 1) return err(ambiguousRoutine(matching));
  if (fallback.length === 1) return ok(fallback[0]!);
  if (fallback.length > 1) return err(ambiguousRoutine(fallback));
  return err(noRoutine(cache, schema, name, [...keys], media, isPost, overloads));
}

function matchesParams(r: Routine, keys: ReadonlySet<string>, media: PayloadMedia, isPost: boolean): boolean {
  const params = inputParams(r);
  if (params.length === 0) return keys.size === 0 && !(isPost && RAW_MEDIA.has(media));
  const required = params.filter((p) => !p.hasDefault).map((p) => p.name);
  const optional = new Set(params.filter((p) => p.hasDefault).map((p) => p.name));
  const rest = [...keys].filter((k) => !optional.has(k));
  return rest.length === required.length && required.every((p) => keys.has(p));
}

function hasSingleUnnamedParam(r: Routine, media: PayloadMedia, isPost: boolean): boolean {
  const params = inputParams(r);
  if (!isPost || params.length !== 1 || params[0]!.name !== '') return false;
  return (BODY_PARAM_TYPES[media] ?? []).includes(params[0]!.type);
}

/** `Prefer: params=single-object`: the overload with one json/jsonb parameter, named or not. */
function findSingleObjectRoutine(cache: SchemaCache, schema: string, name: string): Result<Routine> {
  const overloads = findCallableRoutines(cache, schema, name);
  const hits = overloads.filter((r) => {
    const p = inputParams(r);
    return p.length === 1 && (p[0]!.type === 'json' || p[0]!.type === 'jsonb');
  });
  if (hits.length === 1) return ok(hits[0]!);
  if (hits.length > 1) return err(ambiguousRoutine(hits));
  return err(noRoutine(cache, schema, name, [], 'json', true, overloads));
}

export function ambiguousRoutine(routines: ReadonlyArray<Routine>): ApiError {
  const describe = (r: Routine) =>
    `${r.schema}.${r.name}(${inputParams(r).map((p) => `${p.name} => ${p.type}`).join(', ')})`;
  // PostgREST lists the candidates fewest parameters first (Query/RpcSpec.hs, PGRST203); ties
  // keep the schema cache's order (by signature).
  const ordered = [...routines].sort((a, b) => inputParams(a).length - inputParams(b).length);
  return errors.DBRST203(`Could not choose the best candidate function between: ${ordered.map(describe).join(', ')}`, {
    hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
  });
}

/** DBRST202 with PostgREST's message, details and hint (PostgREST's NoRpc). */
export function noRoutine(
  cache: SchemaCache,
  schema: string,
  name: string,
  keys: ReadonlyArray<string>,
  media: PayloadMedia,
  isPost: boolean,
  overloads: ReadonlyArray<Routine>,
): ApiError {
  const sorted = [...new Set(keys)].sort();
  const onlySingle = isPost && RAW_MEDIA.has(media);
  const func = `${schema}.${name}`;
  const withParams = sorted.length === 0 ? ' without parameters' : `(${sorted.join(', ')})`;
  const message = `Could not find the function ${func}${onlySingle ? '' : withParams} in the schema cache`;
  const prmsDet = sorted.length === 0 ? ' without parameters' : ` with parameter${sorted.length > 1 ? 's' : ''} ${sorted.join(', ')}`;
  let searched: string;
  if (isPost && media === 'text') searched = ' with a single unnamed text parameter';
  else if (isPost && media === 'xml') searched = ' with a single unnamed xml parameter';
  else if (isPost && media === 'binary') searched = ' with a single unnamed bytea parameter';
  else if (isPost && media === 'json') searched = `${prmsDet} or with a single unnamed json/jsonb parameter`;
  else searched = prmsDet;
  const details = `Searched for the function ${func}${searched}, but no matches were found in the schema cache.`;

  let hint: string | null = null;
  if (!onlySingle) {
    if (overloads.length === 0) {
      const names = callableRoutineNames(cache, schema);
      const close = fuzzyGetOne(name, names, 0.75);
      if (close !== null) hint = `Perhaps you meant to call the function ${schema}.${close}`;
    } else {
      const listToText = (xs: ReadonlyArray<string>) => `(${[...xs].sort().join(', ')})`;
      const lists = overloads.map((r) => listToText(inputParams(r).map((p) => p.name)));
      const close = fuzzyGetOne(listToText(sorted), lists);
      if (close !== null) hint = `Perhaps you meant to call the function ${func}${close}`;
    }
  }
  return errors.DBRST202(message, { details, hint });
}
