// The web console's static files, built by scripts/build-console.mjs into dist/console, served
// by the HTTP app: `/` is the page, `/console/<file>` its script, style sheet and icon
// (docs/console.md). Files are read once, into memory, from a listing of that one folder: a
// request names a file of that listing or gets 404, so no request path ever reaches the file
// system. Nothing here is known to src/core.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Context, Hono } from 'hono';
import { errorResponse, SECURITY_HEADERS } from './errors.js';

/** dist/console of this package (two folders up from both src/http and dist/http). */
export const CONSOLE_ASSETS_DIR = path.join(__dirname, '..', '..', 'dist', 'console', path.sep);

/** The URL folder of the console's files, relative to where the app is mounted. */
export const CONSOLE_ASSET_PREFIX = '/console/';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Types worth compressing (the others are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);

/** esbuild's `[name]-[hash]` file names: their content never changes under the same name. */
const HASHED_NAME = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/**
 * The page loads only its own files and talks only to its own origin: no inline script, no
 * style element, no framing. CodeMirror's styles go through constructed style sheets (the
 * editor sits in a shadow root), which style-src does not govern. Style attributes are
 * allowed because CodeMirror writes its tab size as one; they cannot run script, and the
 * console never writes markup from data (docs/console.md).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  readonly body: Uint8Array;
  readonly gzip: Uint8Array | undefined;
  readonly type: string;
  readonly etag: string;
  readonly cacheControl: string;
}

export interface ConsoleAssets {
  readonly dir: string;
  /** index.html, or undefined when the console was not built. */
  readonly page: Asset | undefined;
  /** The other files by name. */
  readonly files: ReadonlyMap<string, Asset>;
}

function makeAsset(body: Uint8Array, ext: string, cacheControl: string): Asset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const gzip = COMPRESSIBLE.has(ext) && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined;
  return {
    body,
    gzip: gzip && gzip.length < body.length ? gzip : undefined,
    type: CONTENT_TYPES[ext]!,
    etag,
    cacheControl,
  };
}

/**
 * Reads the console's files from `dir` (not its subfolders; files of unknown types are left
 * out). A missing folder gives no files and no page.
 */
export function loadConsoleAssets(dir: string = CONSOLE_ASSETS_DIR): ConsoleAssets {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  let page: Asset | undefined;
  const files = new Map<string, Asset>();
  for (const name of names.sort()) {
    const ext = path.extname(name).toLowerCase();
    if (CONTENT_TYPES[ext] === undefined) continue;
    const file = path.join(dir, name);
    if (!statSync(file).isFile()) continue;
    const body = readFileSync(file);
    if (name === 'index.html') page = makeAsset(body, ext, REVALIDATE);
    else files.set(name, makeAsset(body, ext, HASHED_NAME.test(name) ? IMMUTABLE : REVALIDATE));
  }
  return { dir, page, files };
}

let defaultAssets: ConsoleAssets | undefined;

function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().split(';');
    if (coding?.trim().toLowerCase() !== 'gzip') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function serveAsset(c: Context, asset: Asset, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    'content-type': asset.type,
    'cache-control': asset.cacheControl,
    etag: asset.etag,
    'x-content-type-options': 'nosniff',
    ...extraHeaders,
  };
  if (asset.gzip) headers.vary = 'Accept-Encoding';
  if (etagMatches(c.req.header('if-none-match'), asset.etag)) {
    return new Response(null, { status: 304, headers });
  }
  let body = asset.body;
  if (asset.gzip && acceptsGzip(c.req.header('accept-encoding'))) {
    body = asset.gzip;
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = String(body.length);
  return new Response(c.req.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
    status: 200,
    headers,
  });
}

function notBuilt(assets: ConsoleAssets): Response {
  return errorResponse(
    'NOT_FOUND',
    `the web console is not built: ${path.join(assets.dir, 'index.html')} is missing (run \`npm run build:console\`)`,
  );
}

function wrongMethod(method: string, where: string): Response {
  if (method === 'OPTIONS') {
    return new Response(null, { status: 204, headers: { allow: 'GET, HEAD, OPTIONS', ...SECURITY_HEADERS } });
  }
  return errorResponse(
    'METHOD_NOT_ALLOWED',
    `${method} is not allowed on ${where} (allowed: GET, HEAD, OPTIONS)`,
    {
      headers: { allow: 'GET, HEAD, OPTIONS' },
    },
  );
}

/**
 * Serves the console on `app`: the page at `/` (and `/index.html`) and its files under
 * `/console/`. The page's URLs are relative, so that it works wherever the app is mounted; a
 * request for the mount point without a trailing slash (`/graph` when mounted at `/graph`) is
 * redirected to `/graph/index.html`, under which they resolve. `assets` defaults to
 * dist/console, read on first use.
 */
// biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its environment type
export function mountConsole(app: Hono<any>, assets?: ConsoleAssets): void {
  const current = () => {
    if (assets) return assets;
    defaultAssets ??= loadConsoleAssets();
    return defaultAssets;
  };
  const page = (c: Context) => {
    const { page } = current();
    if (!page) return notBuilt(current());
    const url = new URL(c.req.url);
    if (!url.pathname.endsWith('/') && !url.pathname.endsWith('/index.html')) {
      return new Response(null, {
        status: 308,
        headers: { location: `${url.pathname}/index.html${url.search}`, ...SECURITY_HEADERS },
      });
    }
    return serveAsset(c, page, {
      'content-security-policy': CONSOLE_CSP,
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
  };
  app.get('/', page);
  app.get('/index.html', page);
  app.get(`${CONSOLE_ASSET_PREFIX}:file`, (c) => {
    const name = c.req.param('file');
    const asset = current().files.get(name);
    if (!asset) return errorResponse('NOT_FOUND', `no console file ${JSON.stringify(name)}`);
    return serveAsset(c, asset);
  });
  for (const path of ['/', '/index.html', `${CONSOLE_ASSET_PREFIX}:file`]) {
    app.all(path, (c) => wrongMethod(c.req.method, c.req.path));
  }
}
