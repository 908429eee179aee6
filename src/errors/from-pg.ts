// A database error → the ApiError the client sees. Status from errors/sqlstate.ts; body from the
// error's own message, detail and hint; two kinds of custom error raised by database functions:
//   RAISE SQLSTATE 'PT<xyz>'  → status <xyz>, body from message/detail/hint as usual;
//   RAISE SQLSTATE 'DBRST'    → MESSAGE is JSON {code, message, details?, hint?} and DETAIL is JSON
//                               {status, status_text?, headers?}: full control of status and body.
// PostgREST's spelling, 'PGRST', is accepted too, so schemas written for PostgREST work unchanged.
// Unparsable JSON in such a raise gives DBRST121 with PostgREST's hint texts.
import type { PgError } from '../db/pg-error.js';
import { isHeaderName, isHeaderValue } from '../response/header-syntax.js';
import { errors } from './catalog.js';
import { statusForSqlState } from './sqlstate.js';
import type { ApiError } from './types.js';

/** The SQLSTATE a function raises to take full control of the error response. */
export const CUSTOM_RAISE_SQLSTATE = 'DBRST';
/** PostgREST's spelling of it, accepted as well. */
export const PGRST_RAISE_SQLSTATE = 'PGRST';

/**
 * The role a JWT names does not exist (`SET ROLE` answers 22023 `role "x" does not exist`): the
 * token is refused, 401, as PostgREST answers (its ErrorSpec "when role does not exist"), not the 400
 * of other 22023s. A message test, as PostgREST's: the SQLSTATE alone does not say it.
 */
const ROLE_DOES_NOT_EXIST = (e: PgError): boolean => e.code === '22023' && /^role .* does not exist$/.test(e.message);

export function apiErrorFromPg(e: PgError, authenticated: boolean): ApiError {
  if (e.code === CUSTOM_RAISE_SQLSTATE || e.code === PGRST_RAISE_SQLSTATE) return fromCustomRaise(e);

  const status = ROLE_DOES_NOT_EXIST(e) ? 401 : statusForSqlState(e.code, authenticated);
  return {
    code: e.code,
    status,
    message: e.message,
    details: e.detail ?? null,
    hint: e.hint ?? null,
    // An unauthenticated request refused by the database is invited to authenticate (PostgREST).
    ...(status === 401 ? { headers: { 'WWW-Authenticate': 'Bearer' } } : {}),
  };
}

// ---- RAISE SQLSTATE 'DBRST' ----------------------------------------------------------------

/** Names the SQLSTATE the function actually raised ('DBRST' or PostgREST's 'PGRST'). */
const parseErrorMessage = (sqlstate: string) => `Could not parse JSON in the "RAISE SQLSTATE '${sqlstate}'" error`;
const MESSAGE_HINT =
  "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
// PostgREST's text, word for word (Query/RpcSpec.hs, PGRST121). dbrest is more lenient than the
// text says and also takes a DETAIL without 'headers' (the seed makes them optional).
const DETAIL_HINT =
  "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";


interface RaisedBody {
  readonly code: string;
  readonly message: string;
  readonly details: string | null;
  readonly hint: string | null;
}

interface RaisedResponse {
  readonly status: number;
  readonly statusText: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

function fromCustomRaise(e: PgError): ApiError {
  const body = parseRaisedMessage(e.message);
  if (body === null) {
    return errors.DBRST121(parseErrorMessage(e.code), {
      details: `Invalid JSON value for MESSAGE: '${e.message}'`,
      hint: MESSAGE_HINT,
    });
  }
  if (e.detail === undefined || e.detail === '') {
    return errors.DBRST121(parseErrorMessage(e.code), {
      details: 'DETAIL is missing in the RAISE statement',
      hint: DETAIL_HINT,
    });
  }
  const response = parseRaisedDetail(e.detail);
  if (response === null) {
    return errors.DBRST121(parseErrorMessage(e.code), {
      details: `Invalid JSON value for DETAIL: '${e.detail}'`,
      hint: DETAIL_HINT,
    });
  }
  return {
    code: body.code,
    status: response.status,
    message: body.message,
    details: body.details,
    hint: body.hint,
    ...(Object.keys(response.headers).length > 0 ? { headers: response.headers } : {}),
    ...(response.statusText !== undefined ? { statusText: response.statusText } : {}),
  };
}

function parseObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** A string, or null when absent/null; `undefined` means "present but not a string" (invalid). */
function optionalString(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : undefined;
}

function parseRaisedMessage(text: string): RaisedBody | null {
  const o = parseObject(text);
  if (o === null) return null;
  const { code, message } = o;
  const details = optionalString(o['details']);
  const hint = optionalString(o['hint']);
  if (typeof code !== 'string' || typeof message !== 'string' || details === undefined || hint === undefined) {
    return null;
  }
  return { code, message, details, hint };
}

function parseRaisedDetail(text: string): RaisedResponse | null {
  const o = parseObject(text);
  if (o === null) return null;
  const status = o['status'];
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 999) return null;

  const statusText = optionalString(o['status_text']);
  if (statusText === undefined || (statusText !== null && !isHeaderValue(statusText))) return null;

  const rawHeaders = o['headers'];
  const headers: Record<string, string> = {};
  if (rawHeaders !== undefined && rawHeaders !== null) {
    if (typeof rawHeaders !== 'object' || Array.isArray(rawHeaders)) return null;
    for (const [name, value] of Object.entries(rawHeaders as Record<string, unknown>)) {
      if (!isHeaderName(name) || typeof value !== 'string' || !isHeaderValue(value)) return null;
      headers[name] = value;
    }
  }
  return { status, statusText: statusText ?? undefined, headers };
}
