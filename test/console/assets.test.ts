// How the service serves the web console's files: content types, caching, compression, no
// way out of the assets folder, on and off switches, and mounting under a prefix.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { CONSOLE_ASSETS_DIR, CONSOLE_CSP, loadConsoleAssets, mountConsole } from '../../src/http/console.js';
import { Database, GraphDBService } from '../../src/index.js';

const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;
let dir: string;
let app: Hono;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-console-assets-'));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>t</title><script src="console/app-ABCDEFGH.js"></script>',
  );
  writeFileSync(path.join(dir, 'app-ABCDEFGH.js'), SCRIPT);
  writeFileSync(path.join(dir, 'app-ABCDEFGH.css'), 'body{margin:0}');
  writeFileSync(path.join(dir, 'favicon-ABCDEFGH.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(dir, 'notes.txt'), 'plain');
  writeFileSync(path.join(dir, 'secret.key'), 'not served: unknown type');
  mkdirSync(path.join(dir, 'sub'));
  writeFileSync(path.join(dir, 'sub', 'inner.js'), 'not served: in a subfolder');
  app = new Hono();
  mountConsole(app, loadConsoleAssets(dir));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('console files', () => {
  it('serves the page at / with its security headers, revalidated on every load', async () => {
    const r = await app.request('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toMatch(/script-src[^;]*unsafe/);
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    const html = await r.text();
    expect(html).toContain('console/app-ABCDEFGH.js');
    expect(await (await app.request('/index.html')).text()).toBe(html);
    const again = await app.request('/', { headers: { 'if-none-match': r.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await app.request('/', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('gives each file its type; hashed names are cached for good, others revalidated', async () => {
    const cases: [string, string, string][] = [
      ['app-ABCDEFGH.js', 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
      ['app-ABCDEFGH.css', 'text/css; charset=utf-8', 'public, max-age=31536000, immutable'],
      ['favicon-ABCDEFGH.svg', 'image/svg+xml', 'public, max-age=31536000, immutable'],
      ['notes.txt', 'text/plain; charset=utf-8', 'no-cache'],
    ];
    for (const [name, type, cache] of cases) {
      const r = await app.request(`/console/${name}`);
      expect(r.status, name).toBe(200);
      expect(r.headers.get('content-type'), name).toBe(type);
      expect(r.headers.get('cache-control'), name).toBe(cache);
      expect(r.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect(Buffer.from(await r.arrayBuffer()).equals(readFileSync(path.join(dir, name))), name).toBe(true);
    }
  });

  it('compresses text for clients that accept gzip, and only for them', async () => {
    const gz = await app.request('/console/app-ABCDEFGH.js', { headers: { 'accept-encoding': 'br, gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gz.headers.get('vary')).toBe('Accept-Encoding');
    const body = Buffer.from(await gz.arrayBuffer());
    expect(body.length).toBeLessThan(SCRIPT.length / 10);
    expect(Number(gz.headers.get('content-length'))).toBe(body.length);
    expect(gunzipSync(body).toString()).toBe(SCRIPT);
    for (const header of ['', 'identity', 'gzip;q=0', 'br']) {
      const plain = await app.request('/console/app-ABCDEFGH.js', { headers: { 'accept-encoding': header } });
      expect(plain.headers.get('content-encoding'), header).toBeNull();
      expect(await plain.text(), header).toBe(SCRIPT);
    }
    // Small files are sent as they are.
    const small = await app.request('/console/app-ABCDEFGH.css', { headers: { 'accept-encoding': 'gzip' } });
    expect(small.headers.get('content-encoding')).toBeNull();
  });

  it('answers HEAD with the headers and no body', async () => {
    const r = await app.request('/console/app-ABCDEFGH.js', { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(SCRIPT)));
    expect(await r.text()).toBe('');
  });

  it('serves nothing but the listed files: no traversal, no subfolders, no unknown types', async () => {
    const paths = [
      '/console/..%2Fpackage.json',
      '/console/%2e%2e%2f%2e%2e%2fpackage.json',
      '/console/..%5C..%5Cpackage.json',
      '/console/sub%2Finner.js',
      '/console/sub/inner.js',
      '/console/secret.key',
      '/console/index.html',
      '/console/',
      '/console/app-ABCDEFGH.js%00.txt',
      '/console/APP-ABCDEFGH.JS',
      `/console/${encodeURIComponent(path.join(dir, 'notes.txt'))}`,
    ];
    for (const p of paths) {
      const r = await app.request(p);
      expect(r.status, p).toBe(404);
      expect(await r.text(), p).not.toContain('not served');
    }
    // Dot segments are resolved before routing: they cannot climb out either.
    const climbed = await app.request('http://localhost/console/../../../etc/passwd');
    expect(climbed.status).toBe(404);
  });

  it('refuses other methods with Allow; OPTIONS lists them', async () => {
    for (const p of ['/', '/console/app-ABCDEFGH.js']) {
      const r = await app.request(p, { method: 'POST', body: '{}' });
      expect(r.status, p).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
      const o = await app.request(p, { method: 'OPTIONS' });
      expect(o.status).toBe(204);
      expect(o.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      // Every answer carries the security headers, the bodiless ones too.
      expect(o.headers.get('x-frame-options')).toBe('DENY');
      expect(o.headers.get('x-content-type-options')).toBe('nosniff');
      expect(o.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('says how to build the console when it was not built', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'graphdb-console-empty-'));
    try {
      const bare = new Hono();
      mountConsole(bare, loadConsoleAssets(path.join(empty, 'missing')));
      const r = await bare.request('/');
      expect(r.status).toBe(404);
      const body = (await r.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('NOT_FOUND');
      expect(body.error.message).toContain('npm run build:console');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the built console (npm install / npm run build:console)', () => {
  const built = existsSync(path.join(CONSOLE_ASSETS_DIR, 'index.html'));

  it('is in dist/console, and the page names files that are there', () => {
    expect(built, `run npm run build:console: ${CONSOLE_ASSETS_DIR} has no index.html`).toBe(true);
    const html = readFileSync(path.join(CONSOLE_ASSETS_DIR, 'index.html'), 'utf8');
    const referenced = [...html.matchAll(/(?:src|href)="console\/([^"]+)"/g)].map((m) => m[1]!);
    expect(referenced.length).toBe(3);
    const files = readdirSync(CONSOLE_ASSETS_DIR);
    for (const name of referenced) expect(files).toContain(name);
    // No inline script or style: the page works under script-src 'self' and style-src 'self'.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('keeps its JavaScript under 1 MB gzipped', () => {
    let total = 0;
    for (const name of readdirSync(CONSOLE_ASSETS_DIR)) {
      if (name.endsWith('.js'))
        total += gzipSync(readFileSync(path.join(CONSOLE_ASSETS_DIR, name)), { level: 9 }).length;
    }
    expect(total).toBeGreaterThan(10_000);
    expect(total).toBeLessThan(1024 * 1024);
  });
});

describe('turning the console on and off', () => {
  let db: Database;

  beforeAll(() => {
    db = new Database(':memory:', { maxThreadNum: 2 });
  });

  afterAll(() => {
    db.close();
  });

  async function withService<T>(config: object, body: (service: GraphDBService) => Promise<T>): Promise<T> {
    const service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, ...config });
    try {
      return await body(service);
    } finally {
      await service.close();
    }
  }

  it('is served by default and not with ServiceConfig.console = false', async () => {
    await withService({}, async (service) => {
      const url = await service.start();
      const r = await fetch(`${url}/`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const script = /src="(console\/[^"]+\.js)"/.exec(await r.text())?.[1];
      const js = await fetch(`${url}/${script}`);
      expect(js.status).toBe(200);
      expect(js.headers.get('content-encoding')).toBe('gzip');
    });
    await withService({ console: false }, async (service) => {
      const url = await service.start();
      const r = await fetch(`${url}/`);
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: { message: string } }).error.message).toBe('no route for GET /');
      expect((await fetch(`${url}/status`)).status).toBe(200);
    });
  });

  it('refuses a ServiceConfig.console that is not a boolean', () => {
    for (const value of ['yes', 1, null]) {
      expect(() => new GraphDBService(db, { console: value as unknown as boolean })).toThrow(
        /ServiceConfig\.console must be a boolean/,
      );
    }
  });

  it('can be mounted with createApp under a prefix, where the page redirects to its folder', async () => {
    await withService({ console: false }, async (service) => {
      const outer = new Hono();
      outer.route('/graph', createApp(service, { console: true }));
      const bare = await outer.request('/graph?x=1');
      expect(bare.status).toBe(308);
      expect(bare.headers.get('location')).toBe('/graph/index.html?x=1');
      expect(bare.headers.get('x-frame-options')).toBe('DENY');
      const page = await outer.request('/graph/index.html');
      expect(page.status).toBe(200);
      const script = /src="(console\/[^"]+\.js)"/.exec(await page.text())?.[1];
      expect((await outer.request(`/graph/${script}`)).status).toBe(200);
      const status = await outer.request('/graph/status');
      expect(status.status).toBe(200);
      // Off for this mount, whatever the service says.
      const off = new Hono();
      off.route('/graph', createApp(service, { console: false }));
      expect((await off.request('/graph/index.html')).status).toBe(404);
      expect(() => createApp(service, { console: 'on' as unknown as boolean })).toThrow(TypeError);
    });
  });
});
