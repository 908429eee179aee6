// The route template a request is counted and logged under: `/films` for a relation, `/rpc/f` for a
// function (`/schema.films` outside the default schema), `/` for the root. A name the schema cache
// does not know is UNMATCHED_ROUTE: labels never carry text a client made up. Pure; a label is built
// once per relation or function object of a schema cache and kept.
import { findRelation, findRoutines } from '../catalog/lookup.js';
import type { Relation, Routine, SchemaCache } from '../catalog/types.js';
import type { ApiRequest } from '../request/api-request.js';
import { UNMATCHED_ROUTE } from './metrics.js';

const labels = new WeakMap<Relation | Routine, string>();

function labelOf(o: Relation | Routine, cache: SchemaCache, prefix: string): string {
  let l = labels.get(o);
  if (l === undefined) {
    l = prefix + (o.schema === cache.schemas[0] ? o.name : `${o.schema}.${o.name}`);
    labels.set(o, l);
  }
  return l;
}

export function routeLabel(req: ApiRequest, cache: SchemaCache): string {
  switch (req.target.kind) {
    case 'root':
      return '/';
    case 'relation': {
      const r = findRelation(cache, req.schema, req.target.name);
      return r === undefined ? UNMATCHED_ROUTE : labelOf(r, cache, '/');
    }
    case 'routine': {
      const r = findRoutines(cache, req.schema, req.target.name)[0];
      return r === undefined ? UNMATCHED_ROUTE : labelOf(r, cache, '/rpc/');
    }
  }
}
