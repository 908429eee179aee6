// The request context PostgREST exposes to SQL as transaction-local GUCs, set in the same round trip
// as the query (db/transaction.ts sends them with one prepared set_config statement). Pure.
import type { AppConfig } from '../config/types.js';
import type { ApiRequest } from '../request/api-request.js';
import { quoteIdent } from './fragment.js';

export interface RequestIdentity {
  readonly role: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Hoisted per-role settings (db/role-settings.ts), applied after the role switch. */
export type HoistedSettings = ReadonlyMap<string, ReadonlyArray<readonly [string, string]>>;

/** PostgREST exposes the Cookie header only as request.cookies, never among request.headers. */
function headersWithoutCookie(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (!('cookie' in headers)) return headers;
  const { cookie: _cookie, ...rest } = headers;
  return rest;
}

export function contextSettings(
  req: Pick<ApiRequest, 'method' | 'path' | 'headers' | 'cookies' | 'schema'> & { readonly preferences?: { readonly timezone: string | null } },
  who: RequestIdentity,
  cfg: Pick<AppConfig, 'dbExtraSearchPath' | 'appSettings'>,
  hoisted: HoistedSettings = new Map(),
): Array<readonly [string, string]> {
  const searchPath = [req.schema, ...cfg.dbExtraSearchPath.filter((s) => s !== req.schema)].map(quoteIdent).join(', ');
  const settings: Array<readonly [string, string]> = [
    ['search_path', searchPath],
    ['request.method', req.method],
    ['request.path', req.path],
    ['request.headers', JSON.stringify(headersWithoutCookie(req.headers))],
    ['request.cookies', JSON.stringify(req.cookies)],
    ['request.jwt.claims', JSON.stringify(who.claims)],
  ];
  for (const [k, v] of Object.entries(cfg.appSettings)) settings.push([`app.settings.${k}`, v]);
  // Prefer: timezone; PostgreSQL refuses an unknown zone (22023), answered as PostgREST v16 does.
  if (req.preferences?.timezone) settings.push(['timezone', req.preferences.timezone]);
  // Last, so everything above is set by the authenticator before privileges drop.
  settings.push(['role', who.role]);
  settings.push(...(hoisted.get(who.role) ?? []));
  return settings;
}
