// The API explorer in a real browser: `dbrest serve` with no db-uri (the embedded default, its
// examples and their mounts) prints the explorer's URL; headless Chromium (Debian's, driven by
// playwright-core) opens it, finds the tables and a mounted route listed, authorises with a JWT,
// runs one GET through "Try it out" → "Execute" and sees its JSON in the page. A screenshot is saved
// in the test's temp dir and decoded to check it is not blank, and every request the page made went
// to the dbrest server: nothing was fetched from anywhere else.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { chromium, type Browser } from 'playwright-core';
import t from 'tap';
import { freePort } from '../../../src/embedded/postgres.js';
import { decodePng, distinctColours } from '../../helpers/png.js';
import { spawnServe } from '../../helpers/spawn-serve.js';

const CHROMIUM = process.env['DBREST_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
const SECRET = 'explorer-browser-test-secret-of-32-chars-at-least';
const UI_TIMEOUT = 60_000;

t.test('the explorer in headless Chromium, on the embedded default', { skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set DBREST_TEST_CHROMIUM)` }, async (t) => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'dbrest-explorer-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const port = await freePort();
  const serve = await spawnServe(cwd, port, { DBREST_SERVER_HOST: '127.0.0.1', DBREST_JWT_SECRET: SECRET });
  t.teardown(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
  });
  const origin = `http://127.0.0.1:${port}`;
  t.match(serve.output(), `listening on ${origin}`, 'serve started');
  // spawnServe returns as soon as the startup line is read; the next line is a write of its own.
  for (let i = 0; i < 200 && !serve.output().includes('API explorer'); i++) await new Promise((r) => setTimeout(r, 50));
  const lines = serve.output().split('\n');
  const listening = lines.findIndex((l) => l.includes('listening on'));
  t.equal(lines[listening + 1], `dbrest API explorer: ${origin}/_docs/`, 'serve prints the explorer URL under its startup line');

  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
  page.setDefaultTimeout(UI_TIMEOUT);
  const requests: Array<{ url: string; authorization: string | undefined }> = [];
  page.on('request', (r) => void requests.push({ url: r.url(), authorization: r.headers()['authorization'] }));
  const problems: string[] = [];
  page.on('pageerror', (e) => void problems.push(`page error: ${e.message}`));
  page.on('console', (m) => void (m.type() === 'error' ? problems.push(`console: ${m.text()}`) : undefined));

  const res = await page.goto(`${origin}/_docs/`);
  t.equal(res?.status(), 200);
  await page.waitForSelector('.opblock-summary-path');

  // The quickstart's tables and the examples' mounts, one list.
  const paths = await page.locator('.opblock-summary-path').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
  t.ok(paths.includes('/films'), 'a table is listed: /films');
  t.ok(paths.includes('/directors'), 'another: /directors');
  t.ok(paths.some((p) => p !== null && p.startsWith('/api/v2/pages')), `a mounted route is listed (${paths.filter((p) => p?.startsWith('/api/')).slice(0, 3).join(', ')} …)`);
  t.ok(paths.some((p) => p !== null && p.startsWith('/api/cms/v2/')), 'and the CMS API\'s');

  // Authorize: paste a token; the request below carries it.
  const token = await new SignJWT({ role: 'web_anon' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
  await page.locator('.auth-wrapper .authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  await dialog.locator('input').first().fill(token);
  await dialog.locator('button.authorize').click();
  await dialog.locator('button.close-modal').click();

  // Expand GET /films, Try it out, Execute.
  const films = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/films"]') }).first();
  await films.locator('.opblock-summary').click();
  await films.locator('.try-out__btn').click();
  await films.locator('button.execute').click();
  const status = films.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor();
  t.equal((await status.innerText()).trim(), '200', 'the GET answered 200');
  const body = await films.locator('.live-responses-table .response-col_description pre').first().innerText();
  const rows = JSON.parse(body) as Array<{ title?: unknown }>;
  t.ok(Array.isArray(rows) && rows.length > 0 && typeof rows[0]!.title === 'string', `its JSON is in the page (${rows.length} films)`);

  const apiCall = requests.find((r) => r.url.startsWith(`${origin}/films`));
  t.ok(apiCall, 'the page called the API');
  t.equal(apiCall?.authorization, `Bearer ${token}`, 'with the pasted token as a bearer token');

  const shot = await page.screenshot({ fullPage: false });
  const file = path.join(cwd, 'explorer.png');
  writeFileSync(file, shot);
  // To look at it after the temp dir is gone (CI artifacts): DBREST_TEST_SCREENSHOT=/some/file.png.
  if (process.env['DBREST_TEST_SCREENSHOT']) writeFileSync(process.env['DBREST_TEST_SCREENSHOT'], shot);
  const pixels = decodePng(shot);
  t.equal(pixels.width, 1280, 'the screenshot is the viewport');
  const colours = distinctColours(pixels);
  t.ok(colours > 50, `the screenshot is not blank (${colours} colours, ${shot.length} bytes, ${file})`);

  const elsewhere = requests.filter((r) => !r.url.startsWith(`${origin}/`) && !r.url.startsWith('data:') && !r.url.startsWith('blob:'));
  t.same(elsewhere.map((r) => r.url), [], `every request went to ${origin} (${requests.length} requests)`);
  t.same(problems, [], 'no script errors in the page');
});
