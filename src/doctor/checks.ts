// The database checks of `dbrest doctor`, as catalog queries run by the configured role (the
// authenticator): every one reads pg_catalog only and binds the schemas and the anonymous role as
// parameters. Each row becomes a Finding whose fix is SQL naming the object (quoted identifiers).
import type pg from 'pg';
import { quoteIdent } from '../sql/fragment.js';
import type { Finding } from './findings.js';

export interface DoctorTarget {
  /** The exposed schemas: db-schemas and the schemas route mounts call into. */
  readonly schemas: ReadonlyArray<string>;
  readonly anonRole: string | null;
  /** The embedded default (fsync=off is its db-embedded-durable=false trade, not a mistake). */
  readonly embedded: boolean;
}

type Row = Record<string, unknown>;
const q = quoteIdent;
const qualified = (schema: unknown, name: unknown): string => `${q(String(schema))}.${q(String(name))}`;

// Relations of the exposed schemas (tables, partitioned tables, views, materialized and foreign tables).
const EXPOSED = `
  SELECT c.oid, n.nspname AS schema, c.relname AS name, c.relkind AS kind, c.relrowsecurity AS rls, c.relowner
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`;

const ROLES = `
  SELECT current_user AS authenticator, a.rolsuper AS auth_super, a.rolbypassrls AS auth_bypass,
         r.rolname IS NOT NULL AS anon_exists, coalesce(r.rolsuper, false) AS anon_super, coalesce(r.rolbypassrls, false) AS anon_bypass,
         r.rolname IS NOT NULL AND pg_has_role(current_user, r.oid, 'MEMBER') AS can_become_anon
  FROM pg_roles a LEFT JOIN pg_roles r ON r.rolname = $1::text
  WHERE a.rolname = current_user`;

// Owned by the authenticator itself, or by a role whose privileges it inherits.
const OWNED = `
  SELECT e.schema, e.name, e.kind, pg_get_userbyid(e.relowner) AS owner
  FROM (${EXPOSED}) e
  WHERE pg_has_role(current_user, e.relowner, 'USAGE')
  ORDER BY 1, 2`;

// Any column privilege counts: GRANT INSERT (a, b) lets anon write as much as a table grant does.
const ANON_WRITES = `
  SELECT e.schema, e.name, e.kind,
         array_remove(ARRAY[
           CASE WHEN has_any_column_privilege($2::text, e.oid, 'INSERT') THEN 'INSERT' END,
           CASE WHEN has_any_column_privilege($2::text, e.oid, 'UPDATE') THEN 'UPDATE' END,
           CASE WHEN has_table_privilege($2::text, e.oid, 'DELETE') THEN 'DELETE' END], NULL) AS privileges
  FROM (${EXPOSED}) e
  WHERE NOT (e.kind IN ('r', 'p') AND e.rls)
    AND (has_any_column_privilege($2::text, e.oid, 'INSERT') OR has_any_column_privilege($2::text, e.oid, 'UPDATE')
         OR has_table_privilege($2::text, e.oid, 'DELETE'))
  ORDER BY 1, 2`;

const ANON_READS_WITHOUT_RLS = `
  SELECT e.schema, e.name
  FROM (${EXPOSED}) e
  WHERE e.kind IN ('r', 'p') AND NOT e.rls AND has_any_column_privilege($2::text, e.oid, 'SELECT')
  ORDER BY 1, 2`;

const DEFINER_WITHOUT_SEARCH_PATH = `
  SELECT n.nspname AS schema, p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args,
         CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END AS kind
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = ANY($1::text[]) AND p.prosecdef
    AND NOT EXISTS (SELECT FROM unnest(p.proconfig) s WHERE s LIKE 'search\\_path=%')
  ORDER BY 1, 2, 3`;

// A foreign key is covered by a (non-partial) index whose leading columns are its columns, in any order.
const UNINDEXED_FOREIGN_KEYS = `
  SELECT n.nspname AS schema, c.relname AS name, k.conname AS constraint,
         array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(attnum, i)
               JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.i) AS columns
  FROM pg_constraint k
  JOIN pg_class c ON c.oid = k.conrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE k.contype = 'f' AND n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p')
    AND NOT EXISTS (
      SELECT FROM pg_index i
      WHERE i.indrelid = k.conrelid AND i.indpred IS NULL
        AND (i.indkey::int2[])[0:cardinality(k.conkey) - 1] @> k.conkey
        AND (i.indkey::int2[])[0:cardinality(k.conkey) - 1] <@ k.conkey)
  ORDER BY 1, 2, 3`;

const KIND_WORD: Record<string, string> = { r: 'TABLE', p: 'TABLE', v: 'VIEW', m: 'MATERIALIZED VIEW', f: 'FOREIGN TABLE' };

export async function databaseFindings(client: pg.Client, target: DoctorTarget): Promise<Finding[]> {
  const out: Finding[] = [];
  const schemas = [...target.schemas];
  const rows = async (text: string, values: unknown[]): Promise<Row[]> => (await client.query(text, values)).rows as Row[];

  const [roles] = await rows(ROLES, [target.anonRole]);
  const auth = String(roles!['authenticator']);
  if (roles!['auth_super'] === true || roles!['auth_bypass'] === true) {
    const what = roles!['auth_super'] === true ? 'a superuser' : 'allowed to bypass row-level security';
    out.push({
      level: 'error', check: 'authenticator-superuser', subject: auth,
      message: `the role dbrest connects as (${auth}) is ${what}: a request that runs as it (no JWT and no db-anon-role, or a JWT naming it) bypasses every grant and policy`,
      fix: `CREATE ROLE authenticator LOGIN NOINHERIT NOSUPERUSER NOBYPASSRLS PASSWORD '…';  -- connect as it, and GRANT it the request roles`,
    });
  }
  // A superuser "inherits" every owner: the finding above says it all.
  for (const r of roles!['auth_super'] === true ? [] : await rows(OWNED, [schemas])) {
    const object = qualified(r['schema'], r['name']);
    out.push({
      level: 'warn', check: 'authenticator-owns', subject: object,
      message: `${object} is owned by ${String(r['owner'])}, which the authenticator (${auth}) is or inherits: owners pass grants and row-level security`,
      fix: `ALTER ${KIND_WORD[String(r['kind'])] ?? 'TABLE'} ${object} OWNER TO api_owner;  -- a NOLOGIN role requests never run as`,
    });
  }
  if (target.embedded === false) {
    const [fsync] = await rows(`SELECT current_setting('fsync') AS fsync`, []);
    if (fsync!['fsync'] === 'off') {
      out.push({
        level: 'error', check: 'fsync-off', subject: 'fsync',
        message: 'the database runs with fsync=off: a crash of its machine can corrupt it',
        fix: `ALTER SYSTEM SET fsync = on; SELECT pg_reload_conf();`,
      });
    }
  }
  for (const r of await rows(DEFINER_WITHOUT_SEARCH_PATH, [schemas])) {
    const fn = `${qualified(r['schema'], r['name'])}(${String(r['args'])})`;
    out.push({
      level: 'warn', check: 'definer-search-path', subject: fn,
      message: `SECURITY DEFINER ${fn} has no search_path of its own: a caller's search_path can make it run their objects with its owner's rights`,
      fix: `ALTER ${String(r['kind'])} ${fn} SET search_path = pg_catalog, ${q(String(r['schema']))}, pg_temp;`,
    });
  }
  for (const r of await rows(UNINDEXED_FOREIGN_KEYS, [schemas])) {
    const table = qualified(r['schema'], r['name']);
    const columns = (r['columns'] as string[]).map(q).join(', ');
    out.push({
      level: 'warn', check: 'foreign-key-index', subject: `${table}(${columns})`,
      message: `foreign key ${q(String(r['constraint']))} of ${table} (${columns}) has no index: embedding ${table} under its parent scans it whole`,
      fix: `CREATE INDEX ON ${table} (${columns});`,
    });
  }
  if (target.anonRole === null) return out;

  const anon = q(target.anonRole);
  if (roles!['anon_exists'] !== true) {
    out.push({ level: 'error', check: 'anon-role-missing', subject: target.anonRole, message: `db-anon-role ${anon} does not exist: every request without a JWT fails`, fix: `CREATE ROLE ${anon} NOLOGIN; GRANT ${anon} TO ${q(auth)};` });
    return out;
  }
  if (roles!['anon_super'] === true || roles!['anon_bypass'] === true) {
    out.push({ level: 'error', check: 'anon-superuser', subject: target.anonRole, message: `db-anon-role ${anon} is a superuser or bypasses row-level security: anyone can do anything`, fix: `ALTER ROLE ${anon} NOSUPERUSER NOBYPASSRLS;` });
  }
  if (roles!['can_become_anon'] !== true) {
    out.push({ level: 'error', check: 'anon-role-not-granted', subject: target.anonRole, message: `the authenticator (${auth}) may not SET ROLE ${anon}: every request without a JWT fails`, fix: `GRANT ${anon} TO ${q(auth)};` });
  }
  for (const r of await rows(ANON_WRITES, [schemas, target.anonRole])) {
    const object = qualified(r['schema'], r['name']);
    const privileges = (r['privileges'] as string[]).join(', ');
    const table = r['kind'] === 'r' || r['kind'] === 'p';
    out.push({
      level: 'warn', check: 'anon-can-write', subject: object,
      message: `anonymous requests (${anon}) may ${privileges} ${object}${table ? ', and no row-level security limits which rows' : ''}`,
      fix: `REVOKE ${privileges} ON ${object} FROM ${anon};` +
        (table ? `  -- or, when anonymous writes are meant: ALTER TABLE ${object} ENABLE ROW LEVEL SECURITY; and a CREATE POLICY … TO ${anon} per command` : ''),
    });
  }
  for (const r of await rows(ANON_READS_WITHOUT_RLS, [schemas, target.anonRole])) {
    const object = qualified(r['schema'], r['name']);
    out.push({
      level: 'warn', check: 'anon-reads-without-rls', subject: object,
      message: `anonymous requests (${anon}) read ${object}, which has no row-level security: every row is public`,
      fix: `ALTER TABLE ${object} ENABLE ROW LEVEL SECURITY; CREATE POLICY anon_read ON ${object} FOR SELECT TO ${anon} USING (true);  -- or the rows anon may see`,
    });
  }
  return out;
}
