// The floors of src/ point one way (README, Development, Layout): the
// embedded API (core/) knows no service, protocol or command line; the runtime (runtime/) knows
// no protocol; HTTP (http/) and Bolt (bolt/) stand on the runtime beside each other; the service
// (service/) composes them and is imported by nothing below it; the command (cli/) is on top.
// Kùzu's API (kuzu/, the package's `quiverdb/kuzu` entry) stands on the embedded API and the
// addon, and nothing imports it; so do the LangChain integrations (langchain/, the
// `quiverdb/langchain` entry).
// The browser console is built on its own and imports nothing from the Node side. No file of
// src/ takes part in an import cycle.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../src');

/** The floor each top-level folder of src/ is on, and the floors it may import from. */
const ALLOWED: Record<string, readonly string[]> = {
  native: ['native'],
  core: ['native', 'core', 'root'],
  runtime: ['native', 'core', 'runtime', 'root'],
  http: ['native', 'core', 'runtime', 'http', 'root'],
  bolt: ['native', 'core', 'runtime', 'bolt', 'root'],
  service: ['native', 'core', 'runtime', 'http', 'bolt', 'service', 'root'],
  cli: ['native', 'core', 'runtime', 'service', 'cli', 'root'],
  kuzu: ['native', 'core', 'kuzu', 'root'],
  langchain: ['core', 'langchain', 'root'],
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

/** The relative imports of a file, static, dynamic and type-only alike. */
function relativeImports(text: string): string[] {
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith('.'));
}

/** The source file an import names (`./x.js` is `./x.ts`). */
function targetOf(file: string, specifier: string): string {
  return resolve(dirname(file), specifier).replace(/\.(m?)js$/, '.$1ts');
}

/** The import cycles among `files`, each as the files around it (Tarjan's components). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(relative(SRC, member));
      } while (member !== file);
      const selfImport = (graph.get(file) ?? []).includes(file);
      if (component.length > 1 || selfImport) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('source layering', () => {
  const files = sourceFiles(SRC);
  const graph = new Map(
    files.map((file) => [file, relativeImports(readFileSync(file, 'utf8')).map((s) => targetOf(file, s))]),
  );

  it('finds the floors it checks', () => {
    const floors = new Set(files.map(floorOf));
    for (const floor of ['core', 'runtime', 'http', 'bolt', 'service', 'cli', 'console', 'kuzu'])
      expect(floors).toContain(floor);
    for (const floor of floors) expect(Object.keys(ALLOWED)).toContain(floor);
  });

  it('imports point down only', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      const from = floorOf(file);
      for (const target of targets) {
        if (!ALLOWED[from].includes(floorOf(target))) wrong.push(`${relative(SRC, file)} imports ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('sees a cycle when there is one', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
  });
});
