// `dbrest types`: TypeScript types for @supabase/postgrest-js, generated from the schema of
// postgrest-js's own tests (test/fixtures/sql/postgrest_js_full.sql). Checked with the TypeScript
// compiler itself: typed queries (test/fixtures/typegen/queries.mts) compile, wrong ones do not; what
// that schema lacks is checked on test/fixtures/sql/typegen_extras.sql (test/fixtures/typegen/extras.mts).
// With DBREST_TYPEGEN_REFERENCE naming supabase's own generated file for that schema
// (packages/core/postgrest-js/test/types.generated.ts in supabase-js, not kept in this repository),
// the types are also compared with it (test/fixtures/typegen/compare.mts): equal but for the
// differences the README documents.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import ts from 'typescript';
import { createTestDatabase, fixture } from '../../helpers/db.js';

const root = process.cwd(); // tests run from the repository root
const bin = path.join(root, 'bin', 'dbrest.js');

/**
 * Where dbrest's types differ from supabase's file, each written down in the README ("Typed
 * clients"): functions the reference file predates, entries supabase added to it by hand, and the
 * partitions PostgREST (and dbrest) do not expose.
 */
const DOCUMENTED_DIFFERENCES = [
  'public.Functions.echo_bigint_as_text (only dbrest)',
  'public.Functions.extract_jsonb_bigint_as_text (only dbrest)',
  'public.Functions.scalar_computed_count (only reference)',
  'public.Functions.scalar_computed_ids (only reference)',
  'public.Tables.events_2024 (only reference)',
  'public.Tables.events_2025 (only reference)',
];

// Type-checking postgrest-js's select-string types is slow: 25 s alone, 88 s beside four other
// test files on 2 busy cores. The runner's 120 s per file is too tight for that.
t.setTimeout(300_000);

t.test('dbrest types', async (t) => {
  const db = await createTestDatabase([fixture('sql', 'postgrest_js_full.sql'), fixture('sql', 'typegen_extras.sql')]);
  t.teardown(() => db.drop());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-types-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[], env: Record<string, string> = {}) => {
    // stderr is a pipe: no progress lines
    const r = spawnSync(process.execPath, [bin, 'types', ...args], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', DBREST_DB_URI: db.uri, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  const printed = run(['--schema', 'public', '--schema', 'personal']);
  t.equal(printed.code, 0, printed.stderr);
  t.equal(printed.stderr, '', 'nothing on stderr when it is not a terminal');

  t.test('--output writes the same text to a file, --schema takes a comma list', async (t) => {
    const r = run(['--schema', 'public,personal', '--output', 'database.mts']);
    t.equal(r.code, 0, r.stderr);
    t.equal(r.stdout, '');
    t.equal(r.stderr, '');
    t.equal(readFileSync(path.join(dir, 'database.mts'), 'utf8'), printed.stdout);
  });

  const compileIn = (files: ReadonlyArray<string>) => {
    const program = ts.createProgram(files.map((f) => path.join(dir, f)), {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
    return { program, errors };
  };

  t.test('typed queries compile, wrong ones do not', async (t) => {
    writeFileSync(path.join(dir, 'database.mts'), printed.stdout);
    const extras = run(['--schema', 'extras', '--output', 'extras-db.mts']);
    t.equal(extras.code, 0, extras.stderr);
    copyFileSync(fixture('typegen', 'extras.mts'), path.join(dir, 'extras.mts'));
    copyFileSync(fixture('typegen', 'queries.mts'), path.join(dir, 'queries.mts'));
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const { errors } = compileIn(['queries.mts', 'extras.mts']);
    t.same(errors, [], 'no type errors, and every @ts-expect-error line is one');
  });

  const referenceFile = process.env.DBREST_TYPEGEN_REFERENCE;
  t.test('the types are supabase\'s but for the documented differences', { skip: referenceFile ? false : 'set DBREST_TYPEGEN_REFERENCE to supabase\'s types.generated.ts for this schema' }, async (t) => {
    copyFileSync(fixture('typegen', 'compare.mts'), path.join(dir, 'compare.mts'));
    // The reference as supabase keeps it says `Json = unknown` (its tests' choice); the generator
    // prints the JSON value type, as dbrest does. Compared with dbrest's Json, the rest is as printed.
    const reference = readFileSync(referenceFile!, 'utf8');
    t.match(reference, /^export type Json = unknown$/m);
    writeFileSync(
      path.join(dir, 'reference.mts'),
      reference.replace(/^export type Json = unknown$/m, "import type { Json } from './database.mjs'\nexport type { Json }"),
    );
    const { program, errors } = compileIn(['compare.mts']);
    t.same(errors, []);
    const compare = program.getSourceFile(path.join(dir, 'compare.mts'))!;
    const alias = compare.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'Differences')!;
    const checker = program.getTypeChecker();
    const type = checker.getTypeAtLocation(alias.name);
    const differences = (type.isUnion() ? type.types : type.flags & ts.TypeFlags.Never ? [] : [type]).map((m) =>
      m.isStringLiteral() ? m.value : checker.typeToString(m),
    );
    t.same(differences.sort(), DOCUMENTED_DIFFERENCES);
  });

  t.test('the configured db-schemas by default, the first one the helpers\' default', async (t) => {
    const r = run([], { DBREST_DB_SCHEMAS: 'personal' });
    t.equal(r.code, 0, r.stderr);
    t.match(r.stdout, /^ {2}personal: \{$/m);
    t.notMatch(r.stdout, /^ {2}public: \{$/m);
    t.match(r.stdout, /type DefaultSchema = DatabaseWithoutInternals\[Extract<keyof Database, 'personal'>\]/);
  });

  t.test('no db-uri and no embedded database to be had: exit 1 with one line', async (t) => {
    // With no db-uri, types uses the embedded default as serve runs it (test/cli/embedded-commands);
    // here its directory cannot be made.
    const r = run([], { DBREST_DB_URI: '', DBREST_DB_EMBEDDED_DIR: '/dev/null/pgdata' });
    t.equal(r.code, 1);
    t.match(r.stderr, /the embedded PostgreSQL did not start/);
    t.equal(r.stdout, '');
  });
});
