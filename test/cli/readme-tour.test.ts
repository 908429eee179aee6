// The docs test: every curl line of README.md's tour runs, as written, against a fresh embedded
// `dbrest serve` (no db-uri, a temporary directory, a free port: `localhost:3000` is rewritten to it)
// and answers as its comment says: the status it names (else a 2xx; "4xx" for the error example),
// the Content-Range it names, and a body that is not empty. A tour that drifts from the software
// fails here. The server is started with db-embedded-dir set, which is checked too. The tour's
// `npx dbrest types` lines run too (as `node bin/dbrest.js`, on the same embedded database), and its
// TypeScript example type-checks against the types they wrote, with the type its comment gives `data`.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import ts from 'typescript';
import { freePort } from '../../src/embedded/postgres.js';
import { spawnServe } from '../helpers/spawn-serve.js';

const run = promisify(execFile);

interface TourLine {
  /** The command as the README writes it (continuations joined). */
  readonly command: string;
  /** The comment after it, or ''. */
  readonly comment: string;
}

function tourSection(readme: string): string {
  const start = readme.indexOf('## A 60-second tour');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end);
}

/** The curl commands (or, with `types`, the `npx dbrest types` ones) of the tour's sh blocks. */
function tourCommands(readme: string, which: 'curl' | 'types' = 'curl'): TourLine[] {
  const section = tourSection(readme);
  const out: TourLine[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1]!.replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) {
      if (which === 'types' ? !line.startsWith('npx dbrest types') : !line.startsWith('curl ') || !line.includes('localhost:3000')) continue;
      const hash = line.search(/\s#\s/);
      out.push({ command: (hash === -1 ? line : line.slice(0, hash)).trim(), comment: hash === -1 ? '' : line.slice(hash).replace(/^\s#\s/, '').trim() });
    }
  }
  return out;
}

interface Answer { status: number; headers: Record<string, string>; body: string }

/** Headers of the last response (curl -i prints one block per response) and the body after them. */
function parse(raw: string): Answer {
  const at = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, at).split('\r\n');
  const headers: Record<string, string> = {};
  for (const h of head.slice(1)) {
    const i = h.indexOf(':');
    headers[h.slice(0, i).toLowerCase()] = h.slice(i + 1).trim();
  }
  return { status: Number(head[0]!.split(' ')[1]), headers, body: raw.slice(at + 4) };
}

t.test('the README tour answers as it says, on a fresh embedded server', async (t) => {
  const readme = readFileSync('README.md', 'utf8');
  const lines = tourCommands(readme);
  t.ok(lines.length >= 10, `the tour has its curl lines (${lines.length})`);

  const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-tour-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const port = await freePort();
  const serve = await spawnServe(cwd, port, { DBREST_DB_EMBEDDED_DIR: 'data/pg' });
  t.teardown(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
  });
  t.match(serve.output(), `listening on http://localhost:${port}`, 'serve starts with no db-uri');
  t.ok(existsSync(path.join(cwd, 'data', 'pg', 'PG_VERSION')), 'db-embedded-dir: the cluster is where the key says');
  t.notOk(existsSync(path.join(cwd, '.dbrest')), 'and not in the default place');

  for (const line of lines) {
    // -s: no progress meter; -i: the status line and headers before the body.
    const command = line.command.replace(/localhost:3000/g, `localhost:${port}`).replace(/^curl /, 'curl -s -i ');
    const { stdout } = await run('sh', ['-c', command], { cwd, maxBuffer: 16 * 1024 * 1024 });
    const a = parse(stdout);
    const label = `${line.command}${line.comment ? `  # ${line.comment}` : ''}`;
    const promised = /(?:^|\s)(\d{3})(?=[\s,:]|$)/.exec(line.comment)?.[1];
    if (promised !== undefined) t.equal(a.status, Number(promised), `${label}: status`);
    else if (/\b4xx\b/.test(line.comment)) {
      t.ok(a.status >= 400 && a.status < 500, `${label}: a 4xx (got ${a.status})`);
      t.match(JSON.parse(a.body), { code: String }, `${label}: a JSON error with a code`);
    } else t.ok(a.status >= 200 && a.status < 300, `${label}: a 2xx (got ${a.status})`);
    const range = /Content-Range: (\S+)/.exec(line.comment)?.[1];
    if (range !== undefined) t.equal(a.headers['content-range'], range, `${label}: Content-Range`);
    if (/cookie/i.test(line.comment)) t.ok(a.headers['set-cookie'], `${label}: a cookie`);
    t.ok(a.body.length > 0, `${label}: a body`);
  }

  t.test('the typed client: `npx dbrest types` writes the types, the example type-checks against them', async (t) => {
    const typesLines = tourCommands(readme, 'types');
    t.ok(typesLines.length >= 1, 'the tour has an `npx dbrest types` line');
    // As a user runs it: no variables of the test run, the database of the serve above (same directory, same db-embedded-dir).
    const env: Record<string, string> = { NO_COLOR: '1', DBREST_DB_EMBEDDED_DIR: 'data/pg' };
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('DBREST_') && !k.startsWith('PGRST_')) env[k] = v;
    for (const line of typesLines) {
      const command = line.command.replace(/^npx dbrest /, `'${process.execPath}' '${path.resolve('bin/dbrest.js')}' `);
      const { stderr } = await run('sh', ['-c', command], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
      // (It says which embedded database it uses; no progress line, stderr not being a terminal.)
      t.notMatch(stderr, /schema cache: (reading|building)|\x1b\[2K/, `${line.command}: no progress to a pipe`);
    }
    t.match(readFileSync(path.join(cwd, 'db.ts'), 'utf8'), /^export type Database = \{/m, 'db.ts holds the Database type');

    const example = /```ts\n([\s\S]*?)```/.exec(tourSection(readme))?.[1];
    t.ok(example, 'the tour has a TypeScript example');
    const claimed = /\/\/ data: (.+)$/m.exec(example ?? '')?.[1];
    t.ok(claimed, 'its comment says the type of data');
    // The comment's type is checked too: `data` must be exactly it.
    const check = `\ntype Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;\nconst dataIsAsClaimed: Equal<typeof data, ${claimed}> = true;\nvoid dataIsAsClaimed;\n`;
    writeFileSync(path.join(cwd, 'tour.ts'), `${example}${check}`);
    symlinkSync(path.resolve('node_modules'), path.join(cwd, 'node_modules'), 'dir');
    const program = ts.createProgram([path.join(cwd, 'tour.ts')], {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true, types: [],
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '));
    t.same(errors, [], 'the example compiles, and data has the type its comment says');
  });
});
