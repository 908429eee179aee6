// The API explorer (server-docs-path): Swagger UI's static build, served from swagger-ui-dist in
// node_modules, pointed at the root path's OpenAPI document. Nothing is fetched from elsewhere: the
// page's Content-Security-Policy allows its own origin only, and Swagger UI's validator badge (an
// image from validator.swagger.io) is turned off.
//
//   GET <docs>            → 301 to <docs>/ (the page's asset URLs are relative, so a proxy's prefix holds)
//   GET <docs>/           → the page; its script (explorer.js) loads the document from the API root
//   GET <docs>/<asset>    → one of a fixed list of files; any other name (`..%2f…` included) is a 404
//
// The document the explorer shows is the root's answer with two changes made in the browser, so
// the root path's own answer never changes: its server is the one the page came from, and a bearer
// (JWT) scheme is declared when the document has none, for Swagger UI's Authorize button.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { errors } from '../errors/catalog.js';
import { err, ok, type Result } from '../errors/types.js';
import type { SchemaCache } from '../catalog/types.js';
import type { RouteGroup } from '../config/types.js';
import { parseTemplate, SEGMENT_PATTERNS, type TemplateSegment } from '../mount/template.js';
import type { ResponseSpec } from '../response/types.js';

interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  readonly cacheControl: string;
}

/** The files of swagger-ui-dist the page uses (its BaseLayout needs neither the standalone preset nor the maps). */
const DIST_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Assets change only with the package: cached for a day, revalidated by ETag after. The page is always revalidated. */
const ASSET_CACHE = 'public, max-age=86400';
const PAGE_CACHE = 'no-cache';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI (React) sets style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** The page's script: runs in the browser, so plain ES2017 (no modules, nothing to build). */
const EXPLORER_JS = `// dbrest's API explorer: the OpenAPI document of the API root (3.1 when the server has it), shown
// by Swagger UI with the server the page came from and a bearer-token scheme for "Authorize".
(function () {
  'use strict';
  var holder = document.getElementById('swagger-ui');
  var status = document.getElementById('explorer-status');
  var root = new URL(holder.getAttribute('data-api-root'), location.href);
  var ACCEPT = 'application/openapi+json;version=3.1, application/openapi+json;q=0.9, application/json;q=0.8';

  var BEARER_HELP = 'Paste a JWT: it is sent as "Authorization: Bearer <token>".';
  function withExplorerServer(doc) {
    var base = root.href.replace(/\\/+$/, '');
    if (typeof doc.openapi === 'string') {
      doc.servers = [{ url: base }];
      doc.components = doc.components || {};
      var schemes = doc.components.securitySchemes;
      if (!schemes || Object.keys(schemes).length === 0) {
        doc.components.securitySchemes = { JWT: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: BEARER_HELP } };
        if (!doc.security) doc.security = [{ JWT: [] }];
      }
    } else if (typeof doc.swagger === 'string') {
      doc.host = root.host;
      doc.schemes = [root.protocol.replace(':', '')];
      doc.basePath = root.pathname;
      var defs = doc.securityDefinitions;
      if (!defs || Object.keys(defs).length === 0) {
        doc.securityDefinitions = { JWT: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Type "Bearer " and then the JWT.' } };
        if (!doc.security) doc.security = [{ JWT: [] }];
      }
    }
    return doc;
  }

  function show(message) {
    status.textContent = message;
    status.hidden = false;
  }

  fetch(root.href, { headers: { Accept: ACCEPT }, credentials: 'same-origin' })
    .then(function (res) {
      if (!res.ok) return res.text().then(function (text) { throw new Error(res.status + ' ' + text); });
      return res.json();
    })
    .then(function (doc) {
      window.ui = SwaggerUIBundle({
        spec: withExplorerServer(doc),
        dom_id: '#swagger-ui',
        deepLinking: true,
        displayRequestDuration: true,
        validatorUrl: null,
        presets: [SwaggerUIBundle.presets.apis],
        layout: 'BaseLayout',
      });
    })
    .catch(function (e) {
      show('Could not load the OpenAPI document from ' + root.href + ': ' + e.message);
    });
})();
`;

const EXPLORER_CSS = `body { margin: 0; background: #fafafa; }
#explorer-status { margin: 2em auto; max-width: 1400px; padding: 1em; font: 14px sans-serif; color: #a00; }
`;

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page at `<docs>/`; `apiRoot` is the relative way back to `/` (`../` for `/_docs`). */
function page(apiRoot: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API explorer · dbrest</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="stylesheet" href="explorer.css">
<link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="explorer-status" hidden></div>
<div id="swagger-ui" data-api-root="${escapeHtml(apiRoot)}"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="explorer.js"></script>
</body>
</html>
`;
}

const asset = (body: Buffer, contentType: string, cacheControl: string): Asset => ({
  body,
  contentType,
  cacheControl,
  etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`,
});

/** swagger-ui-dist's directory, found the way Node finds the package. */
function distDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/** Loaded on first use and kept (the bundle is 1.7 MB; read once, not per request). */
let files: Map<string, Asset> | null = null;
function ownFiles(): Map<string, Asset> {
  if (files !== null) return files;
  const dir = distDir();
  const loaded = new Map<string, Asset>();
  for (const [name, type] of Object.entries(DIST_FILES)) loaded.set(name, asset(readFileSync(path.join(dir, name)), type, ASSET_CACHE));
  loaded.set('explorer.js', asset(Buffer.from(EXPLORER_JS), 'text/javascript; charset=utf-8', ASSET_CACHE));
  loaded.set('explorer.css', asset(Buffer.from(EXPLORER_CSS), 'text/css; charset=utf-8', ASSET_CACHE));
  files = loaded;
  return loaded;
}

const pages = new Map<string, Asset>();
function pageFor(docsPath: string): Asset {
  let p = pages.get(docsPath);
  if (p === undefined) {
    const depth = docsPath.split('/').length - 1;
    p = asset(Buffer.from(page('../'.repeat(depth))), 'text/html; charset=utf-8', PAGE_CACHE);
    pages.set(docsPath, p);
  }
  return p;
}

const COMMON_HEADERS = { 'X-Content-Type-Options': 'nosniff' } as const;

function answer(a: Asset, method: string, ifNoneMatch: string | undefined, extra: Record<string, string> = {}): ResponseSpec {
  const headers = { ...COMMON_HEADERS, 'Content-Type': a.contentType, 'Cache-Control': a.cacheControl, ETag: a.etag, ...extra };
  const fresh = ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim() === a.etag || t.trim() === '*');
  if (fresh) return { status: 304, headers: { ...COMMON_HEADERS, ETag: a.etag, 'Cache-Control': a.cacheControl }, body: null };
  return { status: 200, headers: method === 'HEAD' ? { ...headers, 'Content-Length': String(a.body.length) } : headers, body: method === 'HEAD' ? null : a.body };
}

/**
 * The tables, views and functions that `docsPath` hides: the explorer answers first, so a relation
 * named like its one-segment path (`/_docs`), or a function under `/rpc` when it is `/rpc`, is out
 * of reach while it is on. Qualified names, for a start-up warning.
 */
export function shadowedByDocs(docsPath: string | null, cache: SchemaCache): string[] {
  if (docsPath === null || docsPath === '') return [];
  const segments = docsPath.split('/').filter((s) => s !== '');
  if (segments[0] === 'rpc') return cache.routines.filter((r) => segments.length === 1 || r.name === segments[1]).map((r) => `${r.schema}.${r.name}`);
  if (segments.length !== 1) return [];
  return cache.relations.filter((r) => r.name === segments[0]).map((r) => `${r.schema}.${r.name}`);
}

/**
 * The route mounts whose template matches `docsPath` or a path below it (`GET /:slug` under
 * `/_docs`): the explorer answers those URLs first. Literal overlaps are configuration errors
 * already (config/validate.ts, docsPathCollision); these start with a parameter or a tail, so only
 * some of their URLs are lost, silently without this. `METHODS path`, for a start-up warning.
 */
export function mountsShadowedByDocs(docsPath: string | null, routes: ReadonlyArray<RouteGroup>): string[] {
  if (docsPath === null || docsPath === '') return [];
  const docs = docsPath.split('/').filter((s) => s !== '');
  const hidden: string[] = [];
  for (const group of routes) {
    for (const mount of group.routes) {
      const t = parseTemplate(mount.path);
      if (t.ok && templateReaches(t.value.segments, docs)) hidden.push(`${mount.methods.join(',')} ${mount.path}`);
    }
  }
  return hidden;
}

/** Whether some path the template matches is `docs` or below it (segments, in order). */
function templateReaches(template: ReadonlyArray<TemplateSegment>, docs: ReadonlyArray<string>): boolean {
  for (const [i, d] of docs.entries()) {
    const seg = template[i];
    if (seg === undefined) return false; // the template ends above the explorer's path
    if (seg.kind === 'tail') return true;
    if (seg.kind === 'static' ? seg.text !== d : !admits(SEGMENT_PATTERNS[seg.type], d)) return false;
  }
  return true; // every segment of the explorer's path matched: the rest is below it
}

const admits = (pattern: string | null, segment: string): boolean => pattern === null || new RegExp(pattern).test(segment);

/** Whether `pathname` is the explorer's (`docsPath` or below it). */
export function isDocsPath(docsPath: string | null, pathname: string): docsPath is string {
  return docsPath !== null && docsPath !== '' && (pathname === docsPath || pathname.startsWith(docsPath + '/'));
}

/**
 * The explorer's answer for a request whose path isDocsPath(). `url` is the request target as
 * sent (path and query); the query is ignored.
 */
export function serveDocs(docsPath: string, method: string, url: string, ifNoneMatch: string | undefined): Result<ResponseSpec> {
  if (method !== 'GET' && method !== 'HEAD') {
    return err(errors.DBRST117(`Unsupported HTTP method: ${method}`, { headers: { Allow: 'GET, HEAD' } }));
  }
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  if (pathname === docsPath) {
    // Relative, so that it holds behind a proxy that mounts the API under a prefix.
    const last = docsPath.slice(docsPath.lastIndexOf('/') + 1);
    return ok({ status: 301, headers: { ...COMMON_HEADERS, Location: `${last}/` }, body: null });
  }
  // Exact names only: an encoded slash or dot-dot (`..%2fpackage.json`) is just a name not listed.
  const name = pathname.slice(docsPath.length + 1);
  if (name === '' || name === 'index.html') return ok(answer(pageFor(docsPath), method, ifNoneMatch, { 'Content-Security-Policy': CSP }));
  let found: Asset | undefined;
  try {
    found = ownFiles().get(name);
  } catch (e) {
    return err(errors.DBRSTX00('The API explorer is not available', { details: `swagger-ui-dist could not be read: ${(e as Error).message}` }));
  }
  if (found === undefined) return err(errors.DBRST125(`Not a file of the API explorer: ${pathname}`));
  return ok(answer(found, method, ifNoneMatch));
}
