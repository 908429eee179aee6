// The one SQL value type. Every interpolation in sql`…` that is not itself Sql becomes a bound
// parameter; identifiers go through ident()/qualified(), the single quoting door; constant() is the
// loudly named escape hatch for literal SQL written in our own source. Pure; no I/O.

/**
 * A piece of a fragment: literal SQL text, a bound value, or a nested fragment. Fragments nest
 * instead of being copied into each other (a request's statement is built from hundreds of small
 * fragments several levels deep; copying every level's parts cost more than the rest of building
 * it): compile() flattens them once.
 */
export type SqlPart = string | SqlValue | Sql;

interface SqlValue {
  readonly value: unknown;
  readonly cast: string | null;
}

export interface Sql {
  readonly __sql: true;
  readonly parts: ReadonlyArray<SqlPart>;
}

const makeSql = (parts: ReadonlyArray<SqlPart>): Sql => ({ __sql: true, parts });

export const isSql = (x: unknown): x is Sql =>
  typeof x === 'object' && x !== null && (x as { __sql?: unknown }).__sql === true;

/** Tagged template: sql`SELECT ${ident('a')} FROM t WHERE id = ${5}` → `$1` bound to 5. */
export function sql(strings: TemplateStringsArray, ...args: unknown[]): Sql {
  const parts: SqlPart[] = [];
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i]!;
    if (s !== '') parts.push(s);
    if (i < args.length) {
      const a = args[i];
      parts.push(isSql(a) ? a : { value: a, cast: null });
    }
  }
  return makeSql(parts);
}

/** Quote an identifier: double every `"`, refuse NUL (Postgres cannot store it). */
export function quoteIdent(name: string): string {
  if (name.includes('\u0000')) throw new Error('identifier contains a NUL byte');
  return '"' + name.replace(/"/g, '""') + '"';
}

export const ident = (name: string): Sql => makeSql([quoteIdent(name)]);

export const qualified = (q: { readonly schema: string; readonly name: string }): Sql =>
  makeSql([`${quoteIdent(q.schema)}.${quoteIdent(q.name)}`]);

/**
 * An explicit parameter. `cast` must be a type name that came from the schema cache (or our own
 * source), never from request text: it is written into the SQL as `$n::<cast>`.
 */
export const value = (v: unknown, cast: string | null = null): Sql =>
  makeSql([{ value: v, cast }]);

/** Raw SQL from our own source. Takes only string literal types so request data cannot reach it. */
export const constant = <T extends string>(text: string extends T ? never : T): Sql =>
  makeSql([text]);

/**
 * Raw SQL text for type names that come from the schema cache (format_type output); they are
 * Postgres' own spelling, not request text. Kept separate from constant() so it is easy to audit.
 */
export const catalogType = (typeName: string): Sql => {
  if (!/^[\w\s".,()[\]]+$/.test(typeName)) throw new Error(`unexpected type name ${JSON.stringify(typeName)}`);
  return makeSql([typeName]);
};

/**
 * A column DEFAULT expression exactly as pg_get_expr() printed it into the schema cache
 * (`nextval('public.films_id_seq'::regclass)`, `now()`). Catalog text, never request text.
 */
export const catalogExpression = (text: string): Sql => {
  if (text.includes('\u0000')) throw new Error('default expression contains a NUL byte');
  return makeSql([text]);
};

/**
 * A row count the planner computed (LIMIT, OFFSET), written as a literal. Not request text: a
 * number checked here to be a non-negative safe integer. A literal rather than a parameter because
 * PostgreSQL cannot build a generic plan around `LIMIT $1` and re-plans such a prepared statement
 * on every execution (measured: the W3 embed read took ~290 µs with `LIMIT $1`, ~200 µs with
 * `LIMIT 10`); PostgREST writes its limits the same way.
 */
export const rowCount = (n: number): Sql => {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row count: ${n}`);
  return makeSql([String(n)]);
};

export const empty: Sql = makeSql([]);

export function join(items: ReadonlyArray<Sql>, separator: Sql = sql`, `): Sql {
  const parts: SqlPart[] = new Array<SqlPart>(items.length === 0 ? 0 : 2 * items.length - 1);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts[2 * i - 1] = separator;
    parts[2 * i] = items[i]!;
  }
  return makeSql(parts);
}

export interface Statement {
  readonly text: string;
  readonly values: ReadonlyArray<unknown>;
  /** Prepared-statement name, when already known (else derived from the text when it runs). */
  readonly name?: string;
}

/** Render to text + values, numbering parameters `$1…$n` in order. */
export function compile(fragment: Sql): Statement {
  const out = { text: '', values: [] as unknown[] };
  render(fragment, out);
  return out;
}

function render(fragment: Sql, out: { text: string; values: unknown[] }): void {
  for (const part of fragment.parts) {
    if (typeof part === 'string') out.text += part;
    else if (isSql(part)) render(part, out);
    else {
      out.values.push(part.value);
      out.text += part.cast ? `$${out.values.length}::${part.cast}` : `$${out.values.length}`;
    }
  }
}
