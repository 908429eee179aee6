// `dbrest openapi [config-file]`: the root document on stdout, in the configured openapi-version,
// with an anonymous request's privileges (follow-privileges), valid for an OpenAPI validator.
import { Validator } from '@seriousme/openapi-schema-validator';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, fixture } from '../../helpers/db.js';

const bin = path.resolve(process.cwd(), 'bin', 'dbrest.js');

t.test('dbrest openapi', async (t) => {
  const db = await createTestDatabase([fixture('sql', 'openapi.sql')]);
  t.teardown(() => db.drop());
  // an empty directory: no config file is found by search
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-openapi-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const run = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [bin, 'openapi', ...args], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', DBREST_DB_URI: db.uri, DBREST_DB_ANON_ROLE: 'openapi_anon', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  t.test('Swagger 2.0 by default, as an anonymous request sees it', async (t) => {
    const r = run([]);
    t.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    t.equal(doc.swagger, '2.0');
    t.equal(doc.info.title, 'My API title');
    t.equal(doc.host, 'localhost:3000', 'server-host and server-port defaults');
    t.ok(doc.paths['/child_entities']);
    t.notOk(doc.paths['/authors_only'], 'follow-privileges: db-anon-role');
    const v = new Validator();
    const res = await v.validate(doc);
    t.equal(res.valid, true, 'valid', { errors: res.errors });
  });

  t.test('--openapi-version 3.1, a config file, ignore-privileges', async (t) => {
    const file = path.join(cwd, 'dbrest.json');
    writeFileSync(file, JSON.stringify({ 'openapi-mode': 'ignore-privileges', 'openapi-server-proxy-uri': 'https://api.example.com/rest' }));
    const r = run([file, '--openapi-version', '3.1']);
    t.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    t.equal(doc.openapi, '3.1.0');
    t.strictSame(doc.servers, [{ url: 'https://api.example.com/rest' }]);
    t.ok(doc.paths['/authors_only'], 'ignore-privileges');
    const v = new Validator();
    const res = await v.validate(doc);
    t.equal(res.valid, true, 'valid', { errors: res.errors });
  });

  t.test('no database: exit 1 with a message', async (t) => {
    const r = run([], { DBREST_DB_URI: '' });
    t.equal(r.code, 1);
    t.match(r.stderr, /db-uri/);
    t.equal(r.stdout, '');
  });
});
