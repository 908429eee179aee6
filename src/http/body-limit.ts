// The one answer to a request body over its limit (413), for PostgREST's URLs and mounts alike: the
// limit is server-max-body-size or a route mount's (mount/body-limit.ts).
import { errors } from '../errors/catalog.js';
import type { ApiError } from '../errors/types.js';
import type { BodyLimit } from '../mount/body-limit.js';

export function bodyTooLarge(limit: BodyLimit): ApiError {
  return errors.DBRST604('Payload Too Large', { details: `The request body is larger than ${limit.bytes} bytes (${limit.setBy})` });
}
