import t from 'tap';

import { toPgError } from '../../../src/db/pg-error.js';

// Shaped like node-postgres' DatabaseError (pg-protocol), without needing a server.
class DatabaseError extends Error {
  severity: string | undefined = 'ERROR';
  code: string | undefined;
  detail: string | undefined;
  hint: string | undefined;
  position: string | undefined;
  internalPosition: string | undefined;
  internalQuery: string | undefined;
  where: string | undefined;
  schema: string | undefined;
  table: string | undefined;
  column: string | undefined;
  dataType: string | undefined;
  constraint: string | undefined;
  file: string | undefined;
  line: string | undefined;
  routine: string | undefined;
}

t.test('copies every field a DatabaseError carries', async (t) => {
  const e = new DatabaseError('duplicate key value violates unique constraint "films_pkey"');
  Object.assign(e, {
    code: '23505', detail: 'Key (id)=(1) already exists.', hint: 'h', position: '15', internalPosition: '3',
    internalQuery: 'select 1', where: 'PL/pgSQL function f() line 3 at RAISE', schema: 'api', table: 'films',
    column: 'id', dataType: 'integer', constraint: 'films_pkey', file: 'nbtinsert.c', line: '666',
    routine: '_bt_check_unique',
  });
  t.same(toPgError(e), {
    code: '23505',
    message: 'duplicate key value violates unique constraint "films_pkey"',
    detail: 'Key (id)=(1) already exists.', hint: 'h', position: '15', internalPosition: '3',
    internalQuery: 'select 1', where: 'PL/pgSQL function f() line 3 at RAISE', schema: 'api', table: 'films',
    column: 'id', dataType: 'integer', constraint: 'films_pkey', file: 'nbtinsert.c', line: '666',
    routine: '_bt_check_unique', severity: 'ERROR',
  });
});

t.test('unset fields are left out', async (t) => {
  const e = new DatabaseError('boom');
  e.code = 'P0001';
  t.same(toPgError(e), { code: 'P0001', message: 'boom', severity: 'ERROR' });
});

t.test('custom SQLSTATEs are database errors too', async (t) => {
  t.equal(toPgError(Object.assign(new DatabaseError('{}'), { code: 'DBRST' }))?.code, 'DBRST');
  t.equal(toPgError(Object.assign(new DatabaseError('x'), { code: 'PT402' }))?.code, 'PT402');
});

t.test('anything else is not a database error', async (t) => {
  t.equal(toPgError(null), null);
  t.equal(toPgError('23505'), null);
  t.equal(toPgError(new Error('plain')), null);
  t.equal(toPgError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32 })), null, 'a system error');
  t.equal(toPgError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), null);
  t.equal(toPgError({ code: '23505', message: 1, severity: 'ERROR' }), null, 'message not a string');
  t.equal(toPgError({ code: '2350', message: 'm', severity: 'ERROR' }), null, 'not a SQLSTATE');
});
