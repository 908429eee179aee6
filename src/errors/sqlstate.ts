// SQLSTATE → HTTP status: one table, mirroring the seed's "Database code to HTTP status" table
// (and PostgREST's mapSQLtoHTTP) line by line. An entry is either an exact five-character code or a
// two-character class prefix (written `08*`); exact codes always win over prefixes, whatever their
// position in the table. Anything unmatched is a client error (400).

/** Status for a row of the table; a function when it depends on whether the request is authenticated. */
type StatusRule = number | ((authenticated: boolean) => number);

interface SqlStateRow {
  /** `XXXXX` (exact code) or `XX*` (class prefix). */
  readonly pattern: string;
  readonly status: StatusRule;
  readonly meaning: string;
}

export const SQLSTATE_TABLE: ReadonlyArray<SqlStateRow> = [
  { pattern: '08*', status: 503, meaning: 'connection error' },                          // 08* → 503
  { pattern: '09*', status: 500, meaning: 'triggered action exception' },                // 09* → 500
  { pattern: '0L*', status: 403, meaning: 'invalid grantor' },                           // 0L* → 403
  { pattern: '0P*', status: 403, meaning: 'invalid role specification' },                // 0P* → 403
  { pattern: '23503', status: 409, meaning: 'foreign key violation' },                   // 23503 → 409
  { pattern: '23505', status: 409, meaning: 'uniqueness violation' },                    // 23505 → 409
  { pattern: '25006', status: 405, meaning: 'read-only transaction' },                   // 25006 → 405
  { pattern: '25*', status: 500, meaning: 'invalid transaction state' },                 // 25* → 500
  { pattern: '28*', status: 403, meaning: 'invalid auth specification' },                // 28* → 403
  { pattern: '2D*', status: 500, meaning: 'invalid transaction termination' },           // 2D* → 500
  { pattern: '38*', status: 500, meaning: 'external routine exception' },                // 38* → 500
  { pattern: '39*', status: 500, meaning: 'external routine invocation' },               // 39* → 500
  { pattern: '3B*', status: 500, meaning: 'savepoint exception' },                       // 3B* → 500
  { pattern: '40*', status: 500, meaning: 'transaction rollback' },                      // 40* → 500
  { pattern: '53400', status: 500, meaning: 'config limit exceeded' },                   // 53400 → 500
  { pattern: '53*', status: 503, meaning: 'insufficient resources' },                    // 53* → 503
  { pattern: '54*', status: 500, meaning: 'too complex' },                               // 54* → 500
  { pattern: '55*', status: 500, meaning: 'object not in prerequisite state' },          // 55* → 500
  { pattern: '57*', status: 500, meaning: 'operator intervention' },                     // 57* → 500
  { pattern: '58*', status: 500, meaning: 'system error' },                              // 58* → 500
  { pattern: 'F0*', status: 500, meaning: 'config file error' },                         // F0* → 500
  { pattern: 'HV*', status: 500, meaning: 'foreign data wrapper error' },                // HV* → 500
  { pattern: 'P0001', status: 400, meaning: 'default code for a raised exception' },     // P0001 → 400
  { pattern: 'P0*', status: 500, meaning: 'procedural language error' },                 // P0* → 500
  { pattern: 'XX*', status: 500, meaning: 'internal error' },                            // XX* → 500
  { pattern: '42883', status: 404, meaning: 'undefined function' },                      // 42883 → 404
  { pattern: '42P01', status: 404, meaning: 'undefined table' },                         // 42P01 → 404
  { pattern: '42P17', status: 500, meaning: 'infinite recursion' },                      // 42P17 → 500
  { pattern: '42501', status: (authenticated) => (authenticated ? 403 : 401),            // 42501 → 403 / 401
    meaning: 'insufficient privileges' },
  // PT<xyz> → <xyz> (custom status, handled below: not a fixed pattern)
  // other → 400
];

const DEFAULT_STATUS = 400;

const exact = new Map<string, StatusRule>();
const prefixes = new Map<string, StatusRule>();
for (const row of SQLSTATE_TABLE) {
  if (row.pattern.endsWith('*')) prefixes.set(row.pattern.slice(0, -1), row.status);
  else exact.set(row.pattern, row.status);
}

/**
 * `PT<xyz>`: a custom status chosen by the raising function. Any three digits Node can send
 * (100-999) are used as is; 000-099 give 500.
 */
const CUSTOM_STATUS = /^PT(\d{3})$/;

function resolve(rule: StatusRule, authenticated: boolean): number {
  return typeof rule === 'number' ? rule : rule(authenticated);
}

/** HTTP status for a database error's SQLSTATE (seed table; exact codes win over class prefixes). */
export function statusForSqlState(code: string, authenticated: boolean): number {
  const exactRule = exact.get(code);
  if (exactRule !== undefined) return resolve(exactRule, authenticated);

  const custom = CUSTOM_STATUS.exec(code);
  if (custom) {
    const status = Number(custom[1]);
    return status >= 100 ? status : 500;
  }
  if (code.startsWith('PT')) return 500; // PT followed by something that is not a status (PostgREST: 500)

  const prefixRule = prefixes.get(code.slice(0, 2));
  if (prefixRule !== undefined) return resolve(prefixRule, authenticated);

  return DEFAULT_STATUS;
}
