// What the root document covers for one request: the schema's comment (its title and description)
// and, with openapi-mode = follow-privileges, which of the schema cache's relations and routines the
// request's role may access. One statement, run in the request's transaction after the role switch
// (http/root.ts), so privileges are the role's own, exactly as PostgREST's accessibleTables /
// accessibleFuncs / schemaDescription queries see them. Pure: builds the statement and reads its row.
//
// The objects are the schema cache's, passed as arrays (qualified names, regprocedure signatures)
// and looked up again (relations in the catalogs, routines with to_regprocedure), so an object
// dropped since the cache was loaded is simply left out rather than failing the request.
import type { SchemaCache } from '../../catalog/types.js';
import type { ResolvedGroup } from '../../mount/check.js';
import type { Statement } from '../../sql/fragment.js';
import { relationKey, type ApiScope } from './model.js';

const DESCRIPTION_SQL = `SELECT (
  SELECT d.description
  FROM pg_catalog.pg_namespace n
  JOIN pg_catalog.pg_description d
    ON d.objoid = n.oid AND d.classoid = 'pg_catalog.pg_namespace'::pg_catalog.regclass AND d.objsubid = 0
  WHERE n.nspname = $1
)`;

// PostgREST's accessibleTables condition: owned (through membership), or any table privilege, or
// any column privilege. Routines: EXECUTE. Indexes are 1-based positions in the arrays; `$n` names
// the array parameter each subquery reads.
// Relations are looked up in the catalogs by schema and name (not with to_regclass, which fails with
// 42501 when the role lacks USAGE on a schema: the document is then still 200, without them).
const accessibleRelations = (schemas: string, names: string) => `(
  SELECT pg_catalog.json_agg(r.i ORDER BY r.i)::text
  FROM ROWS FROM (pg_catalog.unnest(${schemas}::text[]), pg_catalog.unnest(${names}::text[])) WITH ORDINALITY AS r (schema, name, i)
  JOIN pg_catalog.pg_namespace n ON n.nspname = r.schema
  JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = r.name
  WHERE pg_catalog.pg_has_role(c.relowner, 'USAGE')
     OR pg_catalog.has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
     OR pg_catalog.has_any_column_privilege(c.oid, 'SELECT, INSERT, UPDATE, REFERENCES')
)`;
// to_regprocedure fails with 42501 for a name in a schema the role may not use (the routine's own,
// or an argument type's), so it is only asked when the role may use every schema the signature
// names (`schemas`: a JSON array per routine); a routine it could not name is left out, not a 403.
// CASE, not AND, so the guard is evaluated first.
const executableRoutines = (signatures: string, schemas: string) => `(
  SELECT pg_catalog.json_agg(r.i ORDER BY r.i)::text
  FROM ROWS FROM (pg_catalog.unnest(${signatures}::text[]), pg_catalog.unnest(${schemas}::text[])) WITH ORDINALITY AS r (signature, schemas, i)
  WHERE CASE WHEN NOT EXISTS (
      SELECT FROM pg_catalog.json_array_elements_text(r.schemas::json) AS s (name)
      JOIN pg_catalog.pg_namespace ns ON ns.nspname = s.name
      WHERE NOT pg_catalog.has_schema_privilege(ns.oid, 'USAGE'))
    THEN pg_catalog.has_function_privilege(pg_catalog.to_regprocedure(r.signature), 'EXECUTE') ELSE false END
)`;

const ACCESS_SQL = `${DESCRIPTION_SQL},
${accessibleRelations('$2', '$3')},
${executableRoutines('$4', '$5')}`;

// Route mounts' targets, in any schema: the same conditions on more arrays.
const MOUNT_ACCESS_SQL = `${ACCESS_SQL},
${accessibleRelations('$6', '$7')},
${executableRoutines('$8', '$9')}`;

/**
 * The schemas a regprocedure signature names (the schema cache writes it with an empty search_path,
 * so every name outside pg_catalog is qualified), as a JSON array: `a.f(b.t, text)` → ["a","b"].
 */
export function signatureSchemas(signature: string): string {
  const found = new Set<string>();
  for (const m of signature.matchAll(/(?:^|[(,\s])("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)\./g)) {
    const id = m[1]!;
    found.add(id.startsWith('"') ? id.slice(1, -1).replace(/""/g, '"') : id);
  }
  return JSON.stringify([...found]);
}

/** The relations and routines of `schema` the statement asks about, in the arrays' order. */
export interface AccessQuestion {
  readonly schema: string;
  readonly followPrivileges: boolean;
  readonly relations: ReadonlyArray<string>;
  readonly routines: ReadonlyArray<string>;
  /**
   * Route mounts' targets (follow-privileges, when the document describes mounts): relations as
   * schema and name, routines by signature. Absent: the document has no mounts.
   */
  readonly mounts?: {
    readonly relations: ReadonlyArray<{ readonly schema: string; readonly name: string }>;
    readonly routines: ReadonlyArray<string>;
  };
}

/** `mounts`: the resolved route mounts the document describes (none but for the default schema). */
export function accessQuestion(cache: SchemaCache, schema: string, followPrivileges: boolean, mounts: ReadonlyArray<ResolvedGroup> = []): AccessQuestion {
  const q: AccessQuestion = {
    schema,
    followPrivileges,
    relations: followPrivileges ? cache.relations.filter((r) => r.schema === schema).map((r) => r.name) : [],
    routines: followPrivileges ? cache.routines.filter((r) => r.schema === schema).map((r) => r.signature) : [],
  };
  if (!followPrivileges || mounts.length === 0) return q;
  const relations = new Map<string, { schema: string; name: string }>();
  const routines = new Set<string>();
  for (const g of mounts) {
    for (const m of g.mounts) {
      if (m.kind === 'relation') relations.set(relationKey(m.relation), { schema: m.relation.schema, name: m.relation.name });
      else if (m.kind === 'call') routines.add(m.routine.signature);
    }
  }
  return { ...q, mounts: { relations: [...relations.values()], routines: [...routines] } };
}

/** One row: the schema comment, then (follow-privileges) JSON arrays of accessible positions. */
export function buildAccessStatement(q: AccessQuestion): Statement {
  if (!q.followPrivileges) return { text: DESCRIPTION_SQL, values: [q.schema] };
  const schemas = q.relations.map(() => q.schema);
  const base = [q.schema, schemas, q.relations, q.routines, q.routines.map(signatureSchemas)];
  if (q.mounts === undefined) return { text: ACCESS_SQL, values: base };
  const m = q.mounts;
  return { text: MOUNT_ACCESS_SQL, values: [...base, m.relations.map((r) => r.schema), m.relations.map((r) => r.name), m.routines, m.routines.map(signatureSchemas)] };
}

function positions(cell: unknown): number[] {
  if (cell === null || cell === undefined) return [];
  const parsed: unknown = typeof cell === 'string' ? JSON.parse(cell) : cell;
  return Array.isArray(parsed) ? parsed.map(Number) : [];
}

/** The statement's row (an array of cells) → the scope of the document. */
export function readAccessRow(q: AccessQuestion, row: ReadonlyArray<unknown>): ApiScope {
  const description = row[0];
  const schemaDescription = typeof description === 'string' ? description : null;
  if (!q.followPrivileges) return { schema: q.schema, relations: null, routines: null, schemaDescription };
  const scope: ApiScope = {
    schema: q.schema,
    relations: new Set(positions(row[1]).map((i) => q.relations[i - 1]!).filter((n) => n !== undefined)),
    routines: new Set(positions(row[2]).map((i) => q.routines[i - 1]!).filter((n) => n !== undefined)),
    schemaDescription,
  };
  if (q.mounts === undefined) return scope;
  const m = q.mounts;
  return {
    ...scope,
    mountTargets: {
      relations: new Set(positions(row[3]).flatMap((i) => { const r = m.relations[i - 1]; return r ? [relationKey(r)] : []; })),
      routines: new Set(positions(row[4]).flatMap((i) => m.routines[i - 1] ?? [])),
    },
  };
}
