// The web console in a real browser: Debian's Chromium driven by playwright-core against
// `graphdb serve :memory: --demo`. Skipped, with a message, where no Chromium is installed
// (`apt-get install chromium`; GRAPHDB_CHROMIUM names another binary). Each test saves a
// screenshot under test-results/console/; GRAPHDB_DOCS_SCREENSHOT=1 also writes the graph
// view's to docs/console-graph.png. One of the long suites (vitest.long.config.ts, `npm run
// test:all`), run alone, so that the page-load budget is measured on a quiet machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = path.join(root, 'test-results', 'console');

// GRAPHDB_CHROMIUM, when set, is the only browser tried.
const candidates = process.env.GRAPHDB_CHROMIUM
  ? [process.env.GRAPHDB_CHROMIUM]
  : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const chromiumPath = candidates.find((p) => existsSync(p));
if (!chromiumPath) {
  console.warn(
    `web console browser tests SKIPPED: no Chromium at ${candidates.join(' or ')} (apt-get install chromium, or set GRAPHDB_CHROMIUM)`,
  );
}

let server: ChildProcess | undefined;
let baseUrl = '';
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let userDataDir = '';

/** Starts `graphdb serve :memory: --demo --port 0` and resolves to its URL. */
function startServer(): Promise<string> {
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin', 'quiverdb.js'), 'serve', ':memory:', '--demo', '--port', '0'],
    {
      cwd: os.tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  server = child;
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`graphdb serve printed no URL; stderr: ${err}`)), 20_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /Web console: (http:\/\/[\w.:[\]-]+\/)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`graphdb serve exited with ${code}; stderr: ${err}`));
    });
  });
}

async function cypher(query: string, parameters?: Record<string, unknown>) {
  const r = await fetch(new URL('cypher', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, parameters }),
  });
  return (await r.json()) as {
    rows: unknown[][];
    error?: { code: string; message: string; line?: number; column?: number };
  };
}

async function open(): Promise<void> {
  await page.goto(baseUrl);
  await page.locator('[data-testid=query-editor] .cm-content').waitFor();
}

/** Replaces the editor's text by typing `text` (real key presses). */
async function typeQuery(text: string): Promise<void> {
  await page.locator('[data-testid=query-editor] .cm-content').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
  await page.keyboard.press('Escape');
}

/** Replaces the editor's text at once (no auto-closed brackets). */
async function setQuery(text: string): Promise<void> {
  await page.locator('[data-testid=query-editor] .cm-content').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

/** Presses Ctrl+Enter (⌘+Enter) and waits until that run has finished. */
async function runWithKeyboard(): Promise<void> {
  const summary = page.locator('[data-testid=result-summary]');
  const runs = Number((await summary.getAttribute('data-runs')) ?? '0');
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect.poll(async () => Number((await summary.getAttribute('data-runs')) ?? '0')).toBe(runs + 1);
}

async function editorText(): Promise<string> {
  return page
    .locator('[data-testid=query-editor] .cm-content')
    .evaluate((el) => (el as HTMLElement).innerText);
}

async function layoutIdle(): Promise<void> {
  await expect
    .poll(() => page.locator('[data-testid=graph-view]').getAttribute('data-layout'), { timeout: 10_000 })
    .toBe('idle');
}

interface Pixels {
  /** Pixels of each colour. */
  counts: number[];
  /** Per colour, a point (relative to the element) well inside a disc of that colour, if any. */
  inside: ({ x: number; y: number } | null)[];
}

/** A screenshot of the graph view as the user sees it, its overlays (legend, buttons, notes, inspector) masked out. */
function graphShot(): Promise<Buffer> {
  const overlays = ['graph-legend', 'graph-note', 'inspector'].map((id) =>
    page.locator(`[data-testid=${id}]`),
  );
  overlays.push(page.locator('.graph-tools'));
  return page.locator('[data-testid=graph-view]').screenshot({ mask: overlays, maskColor: '#000000' });
}

/**
 * Reads a screenshot pixel by pixel (decoded by the browser): how many pixels have each of
 * `colours` (within a small tolerance), and a point inside a disc of each.
 */
async function pixelsOf(png: Buffer, colours: string[]): Promise<Pixels> {
  return page.evaluate(
    async ({ data, colours }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(image, 0, 0);
      const { width, height } = canvas;
      const px = ctx.getImageData(0, 0, width, height).data;
      const rgb = colours.map((c) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16)));
      const match = (offset: number, [r, g, b]: number[]) =>
        Math.abs(px[offset]! - r!) <= 12 &&
        Math.abs(px[offset + 1]! - g!) <= 12 &&
        Math.abs(px[offset + 2]! - b!) <= 12;
      const scale = window.devicePixelRatio || 1;
      const counts = rgb.map(() => 0);
      const inside: ({ x: number; y: number } | null)[] = rgb.map(() => null);
      const radius = Math.round(3 * scale);
      for (let y = radius; y < height - radius; y++) {
        for (let x = radius; x < width - radius; x++) {
          const o = (y * width + x) * 4;
          rgb.forEach((colour, i) => {
            if (!match(o, colour)) return;
            counts[i]!++;
            if (inside[i]) return;
            for (let dy = -radius; dy <= radius; dy++) {
              for (let dx = -radius; dx <= radius; dx++) {
                if (dx * dx + dy * dy <= radius * radius && !match(((y + dy) * width + x + dx) * 4, colour))
                  return;
              }
            }
            inside[i] = { x: x / scale, y: y / scale };
          });
        }
      }
      return { counts, inside };
    },
    { data: png.toString('base64'), colours },
  );
}

/** The colour the legend gives `label`. */
async function labelColour(label: string): Promise<string> {
  const chip = page.locator(`[data-testid=graph-legend] .legend-chip[data-label="${label}"]`);
  await chip.waitFor();
  return chip.evaluate((el) => (el as HTMLElement).style.getPropertyValue('--swatch').trim().toLowerCase());
}

/** Opens the console, runs `query` and waits until its graph is laid out; the Person pixels then. */
async function drawGraph(query: string) {
  await open();
  await setQuery(query);
  await runWithKeyboard();
  const person = await labelColour('Person');
  await layoutIdle();
  const box = (await page.locator('[data-testid=graph-view]').boundingBox())!;
  return { person, box, pixels: await pixelsOf(await graphShot(), [person]) };
}

async function nodeCount(): Promise<number> {
  const note = (await page.locator('[data-testid=graph-note]').textContent()) ?? '';
  return Number(/^([\d,]+) nodes/.exec(note)?.[1]?.replace(/,/g, '') ?? Number.NaN);
}

describe.skipIf(!chromiumPath)('web console in Chromium', () => {
  const problems: string[] = [];

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    mkdirSync(outDir, { recursive: true });
    userDataDir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-chromium-'));
    [baseUrl, browser] = await Promise.all([
      startServer(),
      chromium.launch({
        executablePath: chromiumPath!,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      }),
    ]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    problems.length = 0;
    // A fresh context per test: its own localStorage and sessionStorage.
    context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} ${e.sourceFile}:${e.lineNumber}`);
      });
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (
        message.type() === 'error' &&
        !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())
      ) {
        problems.push(`console error: ${message.text()}`);
      }
    });
  });

  afterEach(async (ctx) => {
    const name = ctx.task.name
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase();
    await page.screenshot({ path: path.join(outDir, `${name}.png`) });
    await context?.close();
    // No script error and no Content-Security-Policy violation in any test.
    expect(problems).toEqual([]);
  });

  it('paints within 1 s of loading and ships under 1 MB of gzipped JavaScript', async () => {
    await open();
    const timing = await page.evaluate(() => {
      const paint = performance.getEntriesByType('paint').map((e) => [e.name, e.startTime] as const);
      const scripts = performance
        .getEntriesByType('resource')
        .filter((e) => (e as PerformanceResourceTiming).initiatorType === 'script' || e.name.endsWith('.js'))
        .map((e) => (e as PerformanceResourceTiming).encodedBodySize);
      return { paint: Object.fromEntries(paint), scripts };
    });
    const firstPaint = timing.paint['first-contentful-paint'] ?? timing.paint['first-paint'];
    expect(firstPaint).toBeGreaterThan(0);
    expect(firstPaint).toBeLessThan(1000);
    expect(timing.scripts.length).toBeGreaterThan(0);
    const scriptBytes = timing.scripts.reduce((a, b) => a + b, 0);
    expect(scriptBytes).toBeGreaterThan(10_000);
    expect(scriptBytes).toBeLessThan(1024 * 1024);
    await expect
      .poll(() => page.locator('[data-testid=status-bar]').textContent())
      .toMatch(/running\s+·\s+QuiverDB \d/);
  });

  it('runs a typed query with Ctrl+Enter and shows its rows in the table', async () => {
    await open();
    const query =
      'MATCH (p:Person) WHERE p.age > 30 RETURN p.id AS id, p.name AS name ORDER BY p.id LIMIT 20';
    await typeQuery(query);
    expect(await editorText()).toBe(query);
    // The Table tab, whatever a previous result showed.
    await runWithKeyboard();
    await expect
      .poll(() => page.locator('[data-testid=result-summary]').textContent())
      .toMatch(/^20 rows · /);
    const table = page.locator('[data-testid=result-table]');
    await expect.poll(() => table.isVisible()).toBe(true);
    const expected = (await cypher(query)).rows;
    const rows = table.locator('.table-body [role=row]');
    expect(await rows.count()).toBe(20);
    for (const i of [0, 19]) {
      const cells = await rows.nth(i).locator('[role=cell]').allTextContents();
      expect(cells).toEqual([String(i + 1), String(expected[i]![0]), String(expected[i]![1])]);
    }
    expect(await table.locator('[role=columnheader]').allTextContents()).toEqual(['#', 'id', 'name']);
  });

  it('keeps a large result virtual, and says when the row limit cut it', async () => {
    await open();
    await setQuery('UNWIND range(1, 50000) AS i RETURN i, i * 2 AS twice');
    await runWithKeyboard();
    await expect
      .poll(() => page.locator('[data-testid=result-summary]').textContent())
      .toMatch(/^50,000 rows/);
    const table = page.locator('[data-testid=result-table]');
    expect(await table.getAttribute('aria-rowcount')).toBe('10001');
    await expect
      .poll(() => page.locator('[data-testid=table-note]').textContent())
      .toBe('Showing the first 10,000 of 50,000 rows (the row limit).');
    expect(await table.locator('.table-body [role=row]').count()).toBeLessThan(100);
    await table.locator('.table-scroll').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await expect
      .poll(() => table.locator('.table-body [role=row]').last().locator('[role=cell]').allTextContents())
      .toEqual(['10000', '10000', '20000']);
    await page.locator('[data-testid=row-limit]').fill('60000');
    await page.locator('[data-testid=row-limit]').dispatchEvent('change');
    await page.locator('[data-testid=run-query]').click();
    await expect.poll(() => table.getAttribute('aria-rowcount')).toBe('50001');
    expect(await page.locator('[data-testid=table-note]').isHidden()).toBe(true);
  });

  it('draws the nodes of a result in the graph view, and shows a clicked node', async () => {
    await open();
    const query =
      'MATCH (a:Person)-[k:Knows]->(b:Person)-[l:LivesIn]->(c:City) RETURN a, k, b, l, c LIMIT 100';
    await typeQuery(query);
    await runWithKeyboard();
    const view = page.locator('[data-testid=graph-view]');
    await expect.poll(() => view.isVisible()).toBe(true);
    expect(await page.locator('[data-testid=tab-graph]').getAttribute('aria-selected')).toBe('true');
    const person = await labelColour('Person');
    await layoutIdle();
    const expectedNodes = new Set(
      (await cypher(query)).rows.flatMap((r) => [0, 2, 4].map((i) => (r[i] as { _id: string })._id)),
    );
    expect(await nodeCount()).toBe(expectedNodes.size);
    // Drawn: the rendered page has many pixels of the Person colour, and discs of it.
    const drawn = await pixelsOf(await graphShot(), [person]);
    expect(drawn.counts[0]).toBeGreaterThan(expectedNodes.size * 20);
    const spot = drawn.inside[0];
    expect(spot).not.toBeNull();
    // Click: the inspector shows the node's properties.
    const box = (await view.boundingBox())!;
    await page.mouse.click(box.x + spot!.x, box.y + spot!.y);
    const inspector = page.locator('[data-testid=inspector]');
    await expect.poll(() => inspector.isVisible()).toBe(true);
    expect(await inspector.locator('.inspector-kind').textContent()).toBe(':Person');
    expect(await inspector.locator('th').allTextContents()).toEqual(['_id', 'id', 'name', 'age']);
    if (process.env.GRAPHDB_DOCS_SCREENSHOT === '1') {
      await page.screenshot({ path: path.join(root, 'docs', 'console-graph.png') });
    }
    // Zoom out: the same nodes cover fewer pixels; Fit brings them back.
    await page.locator('[data-testid=graph-zoom-out]').click();
    await page.waitForTimeout(400);
    const smaller = await pixelsOf(await graphShot(), [person]);
    expect(smaller.counts[0]).toBeLessThan(drawn.counts[0]! * 0.9);
    await page.locator('[data-testid=graph-fit]').click();
    await page.waitForTimeout(450);
    const fitted = await pixelsOf(await graphShot(), [person]);
    expect(fitted.counts[0]).toBeGreaterThan(smaller.counts[0]!);
  });

  it('drags a node to where the mouse lets it go', async () => {
    const { person, box, pixels } = await drawGraph('MATCH (p:Person) WHERE p.id <= 2 RETURN p');
    const from = pixels.inside[0]!;
    const to = { x: box.width * 0.2, y: box.height * 0.8 };
    await page.mouse.move(box.x + from.x, box.y + from.y);
    await page.mouse.down();
    await page.mouse.move(box.x + to.x, box.y + to.y, { steps: 8 });
    await page.mouse.up();
    await page.waitForTimeout(150);
    // Where the mouse let go, the node's disc is drawn, and no longer where it was.
    const at = (p: { x: number; y: number }) =>
      page.screenshot({ clip: { x: box.x + p.x - 5, y: box.y + p.y - 5, width: 10, height: 10 } });
    expect((await pixelsOf(await at(to), [person])).inside[0]).not.toBeNull();
    expect((await pixelsOf(await at(from), [person])).inside[0]).toBeNull();
  });

  it('expands a node by double-click with a query for its neighbours', async () => {
    const { person, box, pixels: one } = await drawGraph('MATCH (p:Person {id: 1}) RETURN p');
    expect(await nodeCount()).toBe(1);
    const spot = one.inside[0]!;
    await page.mouse.dblclick(box.x + spot.x, box.y + spot.y);
    await expect.poll(() => page.locator('[data-testid=graph-note]').textContent()).toMatch(/Expanded/);
    const [[neighbours, rels]] = (
      await cypher('MATCH (a:Person {id: 1})-[r]-(b) RETURN count(DISTINCT b), count(DISTINCT r)')
    ).rows as [[number, number]];
    expect(neighbours).toBeGreaterThan(1);
    expect(await nodeCount()).toBe(1 + neighbours);
    expect(await page.locator('[data-testid=graph-note]').textContent()).toContain(
      `+${neighbours} nodes, +${rels} relationships`,
    );
    await layoutIdle();
    const city = await labelColour('City');
    const expanded = await pixelsOf(await graphShot(), [person, city]);
    expect(expanded.counts[0]).toBeGreaterThan(one.counts[0]! * 2);
    // Person 1 lives in a city: its node is drawn too.
    expect(expanded.counts[1]).toBeGreaterThan(20);
  });

  it('reports a syntax error at its line and column and marks it in the editor', async () => {
    await open();
    for (const query of ['MATCH (a:Person)\nRETRN a', 'MATCH (a:Person) RETURN a LIMT 3']) {
      const { error } = await cypher(query);
      expect(error?.code).toBe('QUERY_SYNTAX');
      await setQuery(query);
      await runWithKeyboard();
      const message = page.locator('[data-testid=error-message]');
      await expect.poll(() => message.isVisible()).toBe(true);
      expect(await message.textContent()).toContain(
        `QUERY_SYNTAX (line ${error!.line}, column ${error!.column})`,
      );
      const mark = page.locator('[data-testid=query-editor] .cm-lintRange-error');
      await mark.waitFor();
      const lines = query.split('\n');
      const word = /^\w+/.exec(lines[error!.line! - 1]!.slice(error!.column! - 1))![0];
      expect(await mark.textContent()).toBe(word);
      // On the reported line of the editor.
      const line = page.locator('[data-testid=query-editor] .cm-line').nth(error!.line! - 1);
      const [markBox, lineBox] = [await mark.boundingBox(), await line.boundingBox()];
      expect(markBox!.y).toBeGreaterThanOrEqual(lineBox!.y - 1);
      expect(markBox!.y + markBox!.height).toBeLessThanOrEqual(lineBox!.y + lineBox!.height + 1);
    }
  });

  it('browses the schema: tables, properties, row counts; clicks insert and run patterns', async () => {
    await open();
    const panel = page.locator('[data-testid=schema-panel]');
    const counts = {
      Person: (await cypher('MATCH (n:Person) RETURN count(n)')).rows[0]![0],
      City: (await cypher('MATCH (n:City) RETURN count(n)')).rows[0]![0],
      Knows: (await cypher('MATCH ()-[r:Knows]->() RETURN count(r)')).rows[0]![0],
      LivesIn: (await cypher('MATCH ()-[r:LivesIn]->() RETURN count(r)')).rows[0]![0],
    };
    for (const [table, count] of Object.entries(counts)) {
      const entry = panel.locator(`[data-table="${table}"]`);
      await expect
        .poll(() => entry.locator('.count').textContent())
        .toBe(Number(count).toLocaleString('en-US'));
    }
    expect(await panel.locator('[data-table=Person] .prop-name').allTextContents()).toEqual([
      'id',
      'name',
      'age',
    ]);
    expect(await panel.locator('[data-table=Knows] .schema-detail').textContent()).toBe(
      'Person → Person · MANY_MANY',
    );
    await setQuery('MATCH ');
    await page.keyboard.press('End');
    await panel.locator('[data-table=Person] .table-name').click();
    expect(await editorText()).toBe('MATCH (n:Person)');
    await panel.locator('[data-table=LivesIn] .run-table').click();
    await expect.poll(() => page.locator('[data-testid=result-summary]').textContent()).toMatch(/^25 rows/);
    expect(await editorText()).toBe('MATCH (a:Person)-[r:LivesIn]->(b:City) RETURN a, r, b LIMIT 25');
    await labelColour('City');
    await labelColour('Person');
  });

  it('completes labels and properties from the schema', async () => {
    await open();
    await page.locator('[data-table=Person] .count').filter({ hasText: /\d/ }).waitFor();
    await typeQuery('');
    await page.keyboard.type('MATCH (p:Pe');
    const popup = page.locator('.cm-tooltip-autocomplete');
    const offered = async () => (await popup.locator('.cm-completionLabel').allTextContents()).sort();
    // CodeMirror takes Enter as a newline in the first 75 ms of a list (a fast typist's Enter).
    const accept = async () => {
      await page.waitForTimeout(150);
      await page.keyboard.press('Enter');
    };
    await expect.poll(offered).toEqual(['Person']);
    await accept();
    expect(await editorText()).toBe('MATCH (p:Person)');
    await page.keyboard.type(') RETURN p.');
    await expect.poll(offered).toEqual(['age', 'id', 'name']);
    await page.keyboard.type('na');
    await expect.poll(offered).toEqual(['name']);
    await accept();
    expect(await editorText()).toBe('MATCH (p:Person) RETURN p.name');
  });

  it('shows the EXPLAIN plan as a tree, and the result as JSON with big integers exact', async () => {
    await open();
    const query = 'EXPLAIN MATCH (a:Person)-[:Knows]->(b:Person) WHERE a.age > 30 RETURN b.name';
    await setQuery(query);
    await runWithKeyboard();
    expect(await page.locator('[data-testid=tab-plan]').getAttribute('aria-selected')).toBe('true');
    const plan = String((await cypher(query)).rows[0]![0]);
    const operators = plan
      .trim()
      .split('\n')
      .map((l) => l.trim().split(' ')[0]);
    const tree = page.locator('[data-testid=plan-view] .plan-tree');
    expect(await tree.locator('.plan-name').allTextContents()).toEqual(operators);
    // Each operator nested under the one before it (this plan is a chain).
    expect(
      await tree.locator(':scope > li > ul > li > ul > li > .plan-op .plan-name').first().textContent(),
    ).toBe(operators[2]);
    // Tables by name, not by internal id.
    const details = (await tree.locator('.plan-details').allTextContents()).join(' ');
    expect(details).toContain('tables=Person');
    expect(details).toContain('rels=Knows');
    // A failing query after it: no plan is left to read as the failed query's.
    await setQuery('MATCH (a:Person RETURN a');
    await runWithKeyboard();
    await expect.poll(() => page.locator('[data-testid=tab-plan]').isHidden()).toBe(true);
    expect(await page.locator('[data-testid=plan-view] .plan-tree').count()).toBe(0);
    expect(await page.locator('[data-testid=tab-table]').getAttribute('aria-selected')).toBe('true');

    await setQuery('RETURN 9007199254740993 AS big, "x" AS s');
    await runWithKeyboard();
    expect(
      await page.locator('[data-testid=result-table] .table-body [role=cell]').allTextContents(),
    ).toEqual(['1', '9007199254740993', 'x']);
    await page.locator('[data-testid=tab-json]').click();
    const json = await page.locator('[data-testid=json-view] .json-text').textContent();
    expect(json).toContain('"big": 9007199254740993');
  });

  it('sends parameters and the access mode, keeps history and saved queries across reloads', async () => {
    await open();
    await page.locator('[data-testid=params-toggle]').click();
    await page.locator('[data-testid=params-editor]').fill('{"id": 7}');
    await setQuery('MATCH (p:Person {id: $id}) RETURN p.name AS name');
    await page.locator('[data-testid=run-query]').click();
    await expect.poll(() => page.locator('[data-testid=result-summary]').textContent()).toMatch(/^1 row /);
    const name = (await cypher('MATCH (p:Person {id: 7}) RETURN p.name')).rows[0]![0];
    expect(
      await page.locator('[data-testid=result-table] .table-body [role=cell]').nth(1).textContent(),
    ).toBe(name);

    await page.locator('[data-testid=params-editor]').fill('[1]');
    await page.locator('[data-testid=run-query]').click();
    expect(await page.locator('[data-testid=error-message]').textContent()).toContain(
      'must be a JSON object',
    );
    await page.locator('[data-testid=params-editor]').fill('');

    await page.locator('[data-testid=access-mode]').selectOption('read');
    await setQuery("CREATE (:City {id: 9999, name: 'Nowhere', country: 'None'})");
    await runWithKeyboard();
    expect(await page.locator('[data-testid=error-message]').textContent()).toMatch(
      /^ACCESS_MODE_VIOLATION: /,
    );
    expect((await cypher('MATCH (c:City {id: 9999}) RETURN count(c)')).rows[0]![0]).toBe(0);

    await setQuery('MATCH (p:Person {id: $id}) RETURN p');
    await page.locator('[data-testid=side-saved]').click();
    await page.locator('[data-testid=save-name]').fill('person by id');
    await page.locator('[data-testid=params-editor]').fill('{"id": 3}');
    await page.locator('[data-testid=save-query]').click();

    await page.reload();
    await page.locator('[data-testid=query-editor] .cm-content').waitFor();
    expect(await page.locator('[data-testid=access-mode]').inputValue()).toBe('read');
    await page.locator('[data-testid=side-history]').click();
    const history = await page.locator('[data-testid=history-list] code').allTextContents();
    expect(history.slice(0, 2)).toEqual([
      "CREATE (:City {id: 9999, name: 'Nowhere', country: 'None'})",
      'MATCH (p:Person {id: $id}) RETURN p.name AS name',
    ]);
    await page.locator('[data-testid=history-list] .query-item').nth(1).click();
    expect(await editorText()).toBe('MATCH (p:Person {id: $id}) RETURN p.name AS name');
    expect(await page.locator('[data-testid=params-editor]').inputValue()).toBe('{"id": 7}');
    await page.locator('[data-testid=side-saved]').click();
    await page.locator('[data-testid=saved-list] .query-item', { hasText: 'person by id' }).click();
    expect(await editorText()).toBe('MATCH (p:Person {id: $id}) RETURN p');
    expect(await page.locator('[data-testid=params-editor]').inputValue()).toBe('{"id": 3}');
  });

  it('asks for a token on 401, keeps it for the tab only, and sends JSON with it', async () => {
    const seen: { auth: string | undefined; type: string | undefined }[] = [];
    await page.route(/\/(cypher|schema)$/, async (route) => {
      const headers = route.request().headers();
      if (route.request().method() === 'POST')
        seen.push({ auth: headers.authorization, type: headers['content-type'] });
      if (headers.authorization !== 'Bearer s3cret') {
        await route.fulfill({
          status: 401,
          contentType: 'application/json',
          body: JSON.stringify({
            error: { code: 'UNAUTHORIZED', message: 'a valid bearer token is required' },
          }),
        });
        return;
      }
      await route.continue();
    });
    await open();
    const dialog = page.locator('[data-testid=token-dialog]');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('a valid bearer token is required');
    await page.locator('[data-testid=token-input]').fill('wrong');
    await page.locator('[data-testid=token-submit]').click();
    // Refused again: asked again.
    await dialog.waitFor();
    await page.locator('[data-testid=token-input]').fill('s3cret');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('[data-table=Person] .count').textContent()).toBe('300');
    await setQuery('MATCH (c:City) RETURN c.name LIMIT 3');
    await runWithKeyboard();
    await expect.poll(() => page.locator('[data-testid=result-summary]').textContent()).toMatch(/^3 rows/);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.type === 'application/json')).toBe(true);
    expect(seen.at(-1)?.auth).toBe('Bearer s3cret');
    const storage = await page.evaluate(() => ({
      session: sessionStorage.getItem('graphdb.console.token'),
      local: JSON.stringify({ ...localStorage }),
    }));
    expect(storage.session).toBe('s3cret');
    expect(storage.local).not.toContain('s3cret');
    await page.locator('[data-testid=forget-token]').click();
    expect(await page.evaluate(() => sessionStorage.getItem('graphdb.console.token'))).toBeNull();
  });
});
