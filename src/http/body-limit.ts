// The one answer to a request body over server-max-body-size (413), for PostgREST's URLs and mounts alike.
import { errors } from '../errors/catalog.js';
import type { ApiError } from '../errors/types.js';

export function bodyTooLarge(limit: number): ApiError {
  return errors.DBRST604('Payload Too Large', { details: `The request body is larger than ${limit} bytes (server-max-body-size)` });
}
