// The floors of src/ point one way (README, Development, Layout): the embedded API (core/) knows no
// service, protocol or command line; the service and its protocols know no command line; the
// browser console is built on its own and imports nothing from the Node side.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../src');

/** The floor each top-level folder of src/ is on, and the floors it may import from. */
const ALLOWED: Record<string, readonly string[]> = {
  native: ['native'],
  core: ['native', 'core', 'root'],
  runtime: ['native', 'core', 'runtime', 'root'],
  service: ['native', 'core', 'runtime', 'service', 'http', 'bolt', 'root'],
  http: ['native', 'core', 'runtime', 'service', 'http', 'root'],
  bolt: ['native', 'core', 'runtime', 'bolt', 'root'],
  cli: ['native', 'core', 'runtime', 'service', 'http', 'bolt', 'cli', 'root'],
  console: ['console'],
  root: ['native', 'core', 'runtime', 'service', 'http', 'bolt', 'cli', 'root'],
};

function floorOf(file: string): string {
  const rel = relative(SRC, file);
  return rel.includes('/') ? rel.split('/')[0] : 'root';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function relativeImports(text: string): string[] {
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith('.'));
}

describe('source layering', () => {
  const files = sourceFiles(SRC);

  it('finds the floors it checks', () => {
    const floors = new Set(files.map(floorOf));
    for (const floor of ['core', 'runtime', 'service', 'http', 'bolt', 'cli', 'console'])
      expect(floors).toContain(floor);
    for (const floor of floors) expect(Object.keys(ALLOWED)).toContain(floor);
  });

  it('imports point down only', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const from = floorOf(file);
      for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
        const target = floorOf(resolve(dirname(file), specifier));
        if (!ALLOWED[from].includes(target)) wrong.push(`${relative(SRC, file)} imports ${specifier}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
