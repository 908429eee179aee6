// URL path → Target. `/` is the API root, `/rpc/<name>` a routine, `/<name>` a relation; anything
// deeper is DBRST125 (PostgREST's "Invalid path specified in request URL").
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { Target } from './api-request.js';

export function resolveTarget(pathname: string): Result<Target> {
  const segments = pathname.split('/').filter((s) => s !== '');
  let decoded: string[];
  try {
    decoded = segments.map((s) => decodeURIComponent(s));
  } catch {
    return err(errors.DBRST125('Invalid path specified in request URL'));
  }
  if (decoded.length === 0) return ok({ kind: 'root' });
  if (decoded.length === 1) return ok({ kind: 'relation', name: decoded[0]! });
  if (decoded.length === 2 && decoded[0] === 'rpc') return ok({ kind: 'routine', name: decoded[1]! });
  return err(errors.DBRST125('Invalid path specified in request URL'));
}
