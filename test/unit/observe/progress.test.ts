// The progress line (observe/progress.ts): drawn in place on a terminal, nothing at all elsewhere,
// kept to the terminal's width; and the catalog phases as it words them.
import t from 'tap';
import { catalogProgress, catalogProgressLine, terminalProgress } from '../../../src/observe/progress.js';

function stream(isTTY: boolean | undefined, columns?: number) {
  const writes: string[] = [];
  return { writes, isTTY, columns, write: (s: string) => void writes.push(s) };
}

t.test('not a terminal: nothing is written, whatever is asked', async (t) => {
  for (const isTTY of [false, undefined]) {
    const s = stream(isTTY);
    const p = terminalProgress(s);
    p.update('schema cache: reading relations…');
    p.note('12 relations');
    p.clear();
    t.equal(catalogProgress(p), null, 'no callback for the catalog load: no line is even built');
    t.same(s.writes, [], `isTTY ${isTTY}`);
  }
});

t.test('a terminal: one line rewritten in place, cleared before a line that stays', async (t) => {
  const s = stream(true, 120);
  const p = terminalProgress(s, 'dbrest');
  p.update('first');
  p.update('second');
  t.same(s.writes, ['\r\x1b[2Kdbrest first', '\r\x1b[2Kdbrest second'], 'each update erases the line and redraws it, no newline');
  p.note('done: 3 relations');
  t.same(s.writes.slice(2), ['\r\x1b[2K', 'dbrest done: 3 relations\n'], 'a note clears the progress line first');
  p.clear();
  t.equal(s.writes.length, 4, 'nothing to clear once cleared');
  catalogProgress(p)!({ phase: 'functions', relations: 3, functions: null, columnsRead: true });
  t.same(s.writes.slice(4), ['\r\x1b[2Kdbrest schema cache: reading functions… (read: 3 relations, columns)'], 'the catalog load draws its phases');
});

t.test('a line wider than the terminal is cut (a wrapped line could not be erased)', async (t) => {
  const s = stream(true, 30);
  terminalProgress(s, 'dbrest').update('x'.repeat(100));
  const shown = s.writes[0]!.replace('\r\x1b[2K', '');
  t.ok(shown.length < 30, `fits in 30 columns (${shown.length})`);
  t.match(shown, /^dbrest x+…$/);
  const unsized = stream(true, 0);
  terminalProgress(unsized).update('short');
  t.equal(unsized.writes[0], '\r\x1b[2Kdbrest short', 'a pty of width 0 is taken as 80 columns');
});

t.test('the catalog phases', async (t) => {
  t.equal(catalogProgressLine({ phase: 'relations', relations: null, functions: null, columnsRead: false }), 'schema cache: reading relations…');
  t.equal(catalogProgressLine({ phase: 'foreign keys', relations: 1234, functions: null, columnsRead: false }), 'schema cache: reading foreign keys… (read: 1,234 relations)');
  t.equal(catalogProgressLine({ phase: 'types', relations: 1234, functions: 56, columnsRead: true }), 'schema cache: reading types… (read: 1,234 relations, 56 functions, columns)');
  t.equal(catalogProgressLine({ phase: 'building', relations: 1234, functions: 56, columnsRead: true }), 'schema cache: building from 1,234 relations and 56 functions…');
});
