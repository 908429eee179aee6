// Per-role settings (`ALTER ROLE r SET statement_timeout = '1s'`) that db-hoisted-tx-settings names.
// Postgres applies role settings only at login, and dbrest logs in as the authenticator, so like
// PostgREST we read them with the schema cache and set them per request after switching role.

export interface RoleSettingsClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<{ role: string; settings: string[] | null }> }>;
}

export type RoleSettings = ReadonlyMap<string, ReadonlyArray<readonly [string, string]>>;

const ROLE_SETTINGS_SQL = `
  SELECT r.rolname AS role, s.setconfig AS settings
  FROM pg_catalog.pg_db_role_setting s
  JOIN pg_catalog.pg_roles r ON r.oid = s.setrole
  WHERE s.setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))
  ORDER BY s.setdatabase`; // database-specific settings come last and win

export async function fetchRoleSettings(client: RoleSettingsClient, hoisted: ReadonlyArray<string>): Promise<RoleSettings> {
  const allowed = new Set(hoisted);
  const out = new Map<string, Map<string, string>>();
  if (allowed.size === 0) return new Map();
  const { rows } = await client.query(ROLE_SETTINGS_SQL);
  for (const row of rows) {
    for (const item of row.settings ?? []) {
      const eq = item.indexOf('=');
      if (eq <= 0) continue;
      const name = item.slice(0, eq);
      if (!allowed.has(name)) continue;
      if (!out.has(row.role)) out.set(row.role, new Map());
      out.get(row.role)!.set(name, item.slice(eq + 1));
    }
  }
  return new Map([...out].map(([role, m]) => [role, [...m]]));
}

/**
 * The role dbrest logs in as (the authenticator), read with the schema cache: a JWT may not name it,
 * since SET ROLE to it would lift every privilege the request roles were denied (auth/jwt.ts).
 */
export async function fetchSessionUser(client: { query(text: string): Promise<{ rows: Array<{ session_user?: unknown }> }> }): Promise<string | null> {
  const { rows } = await client.query('SELECT session_user');
  const name = rows[0]?.session_user;
  return typeof name === 'string' ? name : null;
}
