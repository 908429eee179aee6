// Configuration reload without a restart: SIGUSR2 and NOTIFY 'reload config' re-read the file,
// env and flags; keys that shape listeners or the pool are kept until a restart.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freePort } from '../../../src/embedded/postgres.js';
import { createTestDatabase } from '../../helpers/db.js';
import { httpRequest, startTestServer } from '../../helpers/server.js';

const quickstart = 'examples/quickstart/schema.sql';

t.test('reloadConfig swaps what can change live and reports what needs a restart', async (t) => {
  const s = await startTestServer(t, { fixtures: [quickstart], config: { 'db-anon-role': 'web_anon' } });
  t.same(Object.keys((await s.request('/nope')).json()), ['code', 'details', 'hint', 'message']);
  const kept = await s.server.reloadConfig({ ...s.config, clientErrorVerbosity: 'minimal', serverPort: 1 });
  t.same(kept, ['serverPort']);
  t.same(Object.keys((await s.request('/nope')).json()), ['code', 'message'], 'the new verbosity applies');
  t.equal(s.server.app.config.serverPort, s.config.serverPort, 'server-port kept until a restart');
});

const waitFor = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test('dbrest serve: SIGUSR2 and NOTIFY reload config re-read the config file', async (t) => {
  const db = await createTestDatabase([quickstart]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-reload-'));
  t.teardown(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });
  const port = await freePort();
  const file = path.join(dir, 'dbrest.json');
  const write = (verbosity: string) =>
    writeFileSync(file, JSON.stringify({ 'db-uri': db.uri, 'db-anon-role': 'web_anon', 'server-host': '127.0.0.1', 'server-port': port, 'client-error-verbosity': verbosity }));
  write('verbose');
  const child = spawn(process.execPath, ['bin/dbrest.js', 'serve', file], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise((r) => child.on('exit', r));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  await waitFor(async () => output.includes('listening on'), 'the server');
  const keys = async () => Object.keys((await httpRequest(`http://127.0.0.1:${port}/nope`)).json());
  t.same(await keys(), ['code', 'details', 'hint', 'message']);

  write('minimal');
  child.kill('SIGUSR2');
  await waitFor(async () => (await keys()).length === 2, 'SIGUSR2 to apply the file');
  t.same(await keys(), ['code', 'message']);

  write('verbose');
  await db.query(`NOTIFY dbrest, 'reload config'`);
  await waitFor(async () => (await keys()).length === 4, "NOTIFY 'reload config' to apply the file");
  t.same(await keys(), ['code', 'details', 'hint', 'message']);
});
