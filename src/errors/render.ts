// ApiError → HTTP response parts. The only place an error becomes bytes: body in the database error
// shape honouring `client-error-verbosity`, `Content-Type`, and `Proxy-Status: dbrest; error=<code>`
// (RFC 9209) so even a HEAD response names the error.
import type { ApiError } from './types.js';

export interface RenderedError {
  readonly status: number;
  readonly statusText?: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export const ERROR_CONTENT_TYPE = 'application/json; charset=utf-8';
export const PROXY_STATUS_TOKEN = 'dbrest';

/** RFC 9110 token characters: emitted bare, as PostgREST does; anything else as a quoted string. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function proxyStatusError(code: string): string {
  if (TOKEN.test(code)) return code;
  // sf-string: printable ASCII only, with `"` and `\` escaped. Custom codes are user data.
  const printable = code.replace(/[^\x20-\x7e]/g, '');
  return `"${printable.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export function renderError(e: ApiError, verbosity: 'verbose' | 'minimal'): RenderedError {
  // Key order as PostgREST sends it.
  const payload =
    verbosity === 'verbose'
      ? { code: e.code, details: e.detailsJson ?? e.details, hint: e.hint, message: e.message }
      : { code: e.code, message: e.message };

  const headers: Record<string, string> = {
    'Content-Type': ERROR_CONTENT_TYPE,
    'Proxy-Status': `${PROXY_STATUS_TOKEN}; error=${proxyStatusError(e.code)}`,
  };
  // Error-specific headers (WWW-Authenticate, Allow, a custom raise's headers) replace a base header
  // of the same name, compared case-insensitively.
  for (const [name, value] of Object.entries(e.headers ?? {})) {
    for (const existing of Object.keys(headers)) {
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    }
    headers[name] = value;
  }

  return {
    status: e.status,
    ...(e.statusText !== undefined ? { statusText: e.statusText } : {}),
    headers,
    body: JSON.stringify(payload),
  };
}
