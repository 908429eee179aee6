// `response.headers` and `response.status`, set by SQL with set_config and read back in the main
// statement (PostgREST's contract). Pure.
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import { isHeaderName, isHeaderValue } from './header-syntax.js';

export interface ResponseOverrides {
  readonly status: number | null;
  readonly headers: ReadonlyArray<readonly [string, string]>;
}

export function parseResponseGucs(headersGuc: string | null, statusGuc: string | null): Result<ResponseOverrides> {
  let status: number | null = null;
  if (statusGuc !== null && statusGuc !== '') {
    const n = Number(statusGuc);
    if (!Number.isInteger(n) || n < 100 || n > 599) {
      return err(errors.DBRST112('response.status guc must be a valid status code', { details: `got ${JSON.stringify(statusGuc)}` }));
    }
    status = n;
  }
  const headers: Array<[string, string]> = [];
  if (headersGuc !== null && headersGuc !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(headersGuc);
    } catch {
      parsed = null;
    }
    const invalid = () => err(errors.DBRST111('response.headers guc must be a JSON array composed of objects with a single key and a string value'));
    if (!Array.isArray(parsed)) return invalid();
    for (const item of parsed) {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) return invalid();
      const entries = Object.entries(item as Record<string, unknown>);
      if (entries.length !== 1 || typeof entries[0]![1] !== 'string') return invalid();
      const [name, value] = entries[0] as [string, string];
      // HTTP can carry only token names and values without control characters (no header injection).
      if (!isHeaderName(name) || !isHeaderValue(value)) {
        return err(errors.DBRST111('response.headers guc must be a JSON array composed of objects with a single key and a string value', {
          details: `not a valid HTTP header: ${JSON.stringify(name)}`,
        }));
      }
      headers.push([name, value]);
    }
  }
  return ok({ status, headers });
}
