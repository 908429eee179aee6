// server-max-response-bytes, checked in PostgreSQL: a buffered answer's body is measured where it
// is built, and one over the cap fails the statement (so a write is rolled back) instead of being
// sent: Node never receives it (a string past ~512 MiB is a RangeError there, and a 64 MiB body
// is already ~128 MiB of UTF-16 and its copies). Plain SQL has no RAISE and dbrest creates no
// functions in the user's database, so, as sql/mutate.ts's postconditions do, a failed check makes
// an integer cast fail (22P02) on a text carrying a per-process mark, the cap and the size. Pure.
//
// It bounds what is sent, not what PostgreSQL builds: the body exists before it is measured. The
// embed budget (plan/embed-budget.ts) and db-statement-timeout bound the building.
import { randomBytes } from 'node:crypto';
import { constant, sql, value, type Sql } from './fragment.js';

export const RESPONSE_CAP_MARK = `dbrest-response-cap-${randomBytes(12).toString('hex')}`;

/**
 * `select` (one envelope row, with a `body` column) followed by `response_cap`, an integer column:
 * NULL while the body is at most `cap` bytes, else the failing cast. `cap` 0 (no limit): `select`
 * as it is. The envelope is a subquery and the cap reads its `body` column: written beside the body
 * in one select list, the body's expression is evaluated again for octet_length (json_agg is shared,
 * but its `::text` is a copy through json's output and text's input functions: at 50,000 rows, 14 MB,
 * 380 ms instead of 262 without a cap; 275 this way). `with` is the statement's WITH clause, kept at
 * the top (a data-modifying CTE must be).
 */
export function withResponseCap(withClause: Sql, select: Sql, cap: number | undefined): Sql {
  if (!cap) return sql`${withClause}${select}`;
  const size = constant('pg_catalog.octet_length(pgrst_envelope.body)');
  const text = sql`(${value(`${RESPONSE_CAP_MARK} ${cap} `, 'text')} || (${size})::text)::integer`;
  return sql`${withClause}SELECT pgrst_envelope.*, CASE WHEN ${size} > ${value(cap, 'bigint')} THEN ${text} END AS response_cap FROM (${select}) AS pgrst_envelope`;
}

// Quoted whole, as PostgreSQL quotes the text it could not cast, so a value that merely contains
// the mark does not match.
const MARKED = new RegExp(`"${RESPONSE_CAP_MARK} (\\d+) (\\d+)"`);

/** The cap and the body's size behind a database error, or null when the error is a real one. */
export function responseCapFailure(e: { readonly code: string; readonly message: string }): { readonly cap: number; readonly bytes: number } | null {
  if (e.code !== '22P02') return null;
  const m = MARKED.exec(e.message);
  return m === null ? null : { cap: Number(m[1]), bytes: Number(m[2]) };
}
