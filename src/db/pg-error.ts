// Every field a PostgreSQL ErrorResponse carries, as node-postgres' DatabaseError exposes it, so
// nothing useful is lost before errors/from-pg.ts turns it into an ApiError.

export interface PgError {
  /** SQLSTATE (five characters), e.g. `23505`, or `PT404` / `DBRST` for custom raises. */
  readonly code: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  /** Error cursor position in the original query string (1-based, as sent). */
  readonly position?: string;
  readonly internalPosition?: string;
  readonly internalQuery?: string;
  /** Call-stack context (`PL/pgSQL function f() line 3 at RAISE`). */
  readonly where?: string;
  readonly schema?: string;
  readonly table?: string;
  readonly column?: string;
  readonly dataType?: string;
  readonly constraint?: string;
  /** Server source file, line and routine that reported the error. */
  readonly file?: string;
  readonly line?: string;
  readonly routine?: string;
  /** `ERROR`, `FATAL` or `PANIC` (localized text in older servers). */
  readonly severity?: string;
}

const OPTIONAL_FIELDS = [
  'detail', 'hint', 'position', 'internalPosition', 'internalQuery', 'where', 'schema', 'table',
  'column', 'dataType', 'constraint', 'file', 'line', 'routine', 'severity',
] as const satisfies ReadonlyArray<keyof PgError>;

/** A SQLSTATE is five digits or upper-case letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * The PgError inside `e` when `e` is a database error reported by the server (node-postgres'
 * DatabaseError, or anything shaped like it), else null. Node system errors (`ECONNRESET`, `EPIPE`)
 * and driver errors are not database errors: they carry no SQLSTATE-with-severity.
 */
export function toPgError(e: unknown): PgError | null {
  if (typeof e !== 'object' || e === null) return null;
  const o = e as Record<string, unknown>;
  const code = o['code'];
  const message = o['message'];
  if (typeof code !== 'string' || !SQLSTATE.test(code) || typeof message !== 'string') return null;
  const fromServer =
    typeof o['severity'] === 'string' || (e as { constructor?: { name?: unknown } }).constructor?.name === 'DatabaseError';
  if (!fromServer) return null;

  const out: { -readonly [K in keyof PgError]: PgError[K] } = { code, message };
  for (const field of OPTIONAL_FIELDS) {
    const value = o[field];
    if (typeof value === 'string') out[field] = value;
  }
  return out;
}
