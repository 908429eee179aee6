import t from 'tap';

import { SQLSTATE_TABLE, statusForSqlState } from '../../../src/errors/sqlstate.js';

// One row per line of the seed's "Database code to HTTP status" table: the pattern, a code that
// falls under it (for a prefix, one that no exact row claims), and the expected status.
const rows: ReadonlyArray<readonly [pattern: string, sample: string, anonymous: number, authenticated: number]> = [
  ['08*', '08006', 503, 503],   // connection failure
  ['09*', '09000', 500, 500],   // triggered action exception
  ['0L*', '0LP01', 403, 403],   // invalid grant operation
  ['0P*', '0P000', 403, 403],   // invalid role specification
  ['23503', '23503', 409, 409], // foreign key violation
  ['23505', '23505', 409, 409], // unique violation
  ['25006', '25006', 405, 405], // read-only transaction
  ['25*', '25P02', 500, 500],   // in failed transaction
  ['28*', '28P01', 403, 403],   // invalid password
  ['2D*', '2D000', 500, 500],   // invalid transaction termination
  ['38*', '38001', 500, 500],   // containing SQL not permitted
  ['39*', '39P01', 500, 500],   // trigger protocol violated
  ['3B*', '3B001', 500, 500],   // invalid savepoint specification
  ['40*', '40P01', 500, 500],   // deadlock detected
  ['53400', '53400', 500, 500], // configuration limit exceeded
  ['53*', '53100', 503, 503],   // disk full
  ['54*', '54001', 500, 500],   // statement too complex
  ['55*', '55P03', 500, 500],   // lock not available
  ['57*', '57014', 500, 500],   // query canceled
  ['58*', '58030', 500, 500],   // io error
  ['F0*', 'F0001', 500, 500],   // lock file exists
  ['HV*', 'HV00N', 500, 500],   // fdw unable to establish connection
  ['P0001', 'P0001', 400, 400], // raise_exception
  ['P0*', 'P0002', 500, 500],   // no_data_found
  ['XX*', 'XX000', 500, 500],   // internal error
  ['42883', '42883', 404, 404], // undefined function
  ['42P01', '42P01', 404, 404], // undefined table
  ['42P17', '42P17', 500, 500], // invalid object definition (infinite recursion)
  ['42501', '42501', 401, 403], // insufficient privilege
  ['PT123', 'PT123', 123, 123], // custom status (seed: PT<xyz> → xyz)
  ['other', '22P02', 400, 400], // invalid text representation
];

for (const [pattern, sample, anonymous, authenticated] of rows) {
  t.test(`${pattern} (${sample})`, async (t) => {
    t.equal(statusForSqlState(sample, false), anonymous, 'anonymous');
    t.equal(statusForSqlState(sample, true), authenticated, 'authenticated');
  });
}

t.test('the table lists exactly the seed rows, in order', async (t) => {
  t.same(
    SQLSTATE_TABLE.map((r) => r.pattern),
    rows.map(([p]) => p).filter((p) => p !== 'PT123' && p !== 'other'),
  );
});

t.test('exact codes win over class prefixes', async (t) => {
  t.equal(statusForSqlState('23505', false), 409);
  t.equal(statusForSqlState('23502', false), 400, 'not-null violation is "other"');
  t.equal(statusForSqlState('25006', false), 405);
  t.equal(statusForSqlState('25001', false), 500);
  t.equal(statusForSqlState('53400', false), 500);
  t.equal(statusForSqlState('53200', false), 503);
  t.equal(statusForSqlState('P0001', false), 400);
  t.equal(statusForSqlState('P0003', false), 500);
  t.equal(statusForSqlState('42P02', false), 400, 'an undefined parameter is "other"');
});

t.test('custom PT statuses', async (t) => {
  t.equal(statusForSqlState('PT200', false), 200);
  t.equal(statusForSqlState('PT402', true), 402);
  t.equal(statusForSqlState('PT599', false), 599);
  t.equal(statusForSqlState('PT999', false), 999, 'any three digits Node can send');
  t.equal(statusForSqlState('PT099', false), 500, 'below 100: not a status');
  t.equal(statusForSqlState('PT12', false), 500, 'two digits');
  t.equal(statusForSqlState('PTABC', false), 500, 'not digits');
});
