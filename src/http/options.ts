// OPTIONS on a table/view, a function or the root: 200 with `Allow` listing the verbs the target
// supports, as PostgREST's Response (RelInfoPlan / RoutineInfoPlan / SchemaInfoPlan) answers:
//   relation  OPTIONS,GET,HEAD + POST if insertable + PUT if insertable, updatable and keyed
//             + PATCH if updatable + DELETE if deletable
//   function  OPTIONS,POST for volatile functions, else OPTIONS,GET,HEAD,POST
//   root      OPTIONS,GET,HEAD
// No database round trip.
import { performance } from 'node:perf_hooks';
import { findRelation, findCallableRoutines } from '../catalog/lookup.js';
import type { Relation, SchemaCache } from '../catalog/types.js';
import { err, ok, type Result } from '../errors/types.js';
import { findRoutine, noRoutine } from '../plan/call-plan.js';
import { relationNotFound } from '../plan/embed.js';
import type { ApiRequest } from '../request/api-request.js';
import type { ResponseSpec } from '../response/types.js';
import type { AppState } from './app.js';

export function runOptions(req: ApiRequest, cache: SchemaCache, _app: AppState): Result<ResponseSpec> {
  const t0 = performance.now();
  const answer = optionsFor(req, cache);
  // Server-Timing names the response stage on OPTIONS too (PostgREST ServerTimingSpec.hs).
  return answer.ok ? ok({ ...answer.value, timings: { response: performance.now() - t0 } }) : answer;
}

function optionsFor(req: ApiRequest, cache: SchemaCache): Result<ResponseSpec> {
  const t = req.target;
  switch (t.kind) {
    case 'root':
      return ok(allow('OPTIONS,GET,HEAD'));
    case 'relation': {
      const rel = findRelation(cache, req.schema, t.name);
      if (!rel) return err(relationNotFound(cache, req.schema, t.name));
      return ok(allow(relationVerbs(rel)));
    }
    case 'routine': {
      const overloads = findCallableRoutines(cache, req.schema, t.name);
      if (overloads.length === 0) return err(noRoutine(cache, req.schema, t.name, [], 'json', false, overloads));
      // The overload a call without arguments would reach, else the first one.
      const picked = findRoutine(cache, req.schema, t.name, new Set(), 'json', false);
      const routine = picked.ok ? picked.value : overloads[0]!;
      return ok(allow(routine.volatility === 'volatile' ? 'OPTIONS,POST' : 'OPTIONS,GET,HEAD,POST'));
    }
  }
}

export function relationVerbs(rel: Relation): string {
  const verbs = ['OPTIONS,GET,HEAD'];
  if (rel.insertable) verbs.push('POST');
  if (rel.insertable && rel.updatable && rel.primaryKey.length > 0) verbs.push('PUT');
  if (rel.updatable) verbs.push('PATCH');
  if (rel.deletable) verbs.push('DELETE');
  return verbs.join(',');
}

function allow(verbs: string): ResponseSpec {
  return { status: 200, headers: { 'Access-Control-Allow-Origin': '*', Allow: verbs }, body: null };
}
