// Every fenced code block of README.md and docs/*.md is run, checked or skipped with a reason
// given in the docs (test/docs/runner.ts says how each kind runs, test/docs/extract.ts how a
// block is annotated). A block no rule covers fails: none goes unchecked silently.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, extractBlocks } from './extract.js';
import { DocEnv, type Outcome, ROOT, runBlock, typeCheck } from './runner.js';

const FILES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

const blocksByFile = new Map<string, CodeBlock[]>(
  FILES.map((file) => [file, extractBlocks(fs.readFileSync(path.join(ROOT, file), 'utf8'), file)]),
);
const tsBlocks = [...blocksByFile.values()].flat().filter((b) => b.lang === 'ts' && !b.annotation.skip);

const outcomes = new Map<CodeBlock, Outcome>();
let env: DocEnv;
let tscMessages: Map<number, string>;

beforeAll(() => {
  env = DocEnv.create();
  tscMessages = typeCheck(tsBlocks, env);
}, 120_000);

afterAll(async () => {
  await env?.close();
});

for (const [file, blocks] of blocksByFile) {
  if (blocks.length === 0) continue;
  describe(file, () => {
    afterAll(async () => {
      await env.stopServers();
    });
    for (const block of blocks) {
      const label = `line ${block.line}: ${block.lang || 'plain'}${block.annotation.skip ? ` (skipped: ${block.annotation.skip})` : ''}`;
      it(label, async () => {
        const index = tsBlocks.indexOf(block);
        outcomes.set(block, await runBlock(block, env, index >= 0 ? tscMessages.get(index) : undefined));
      }, 90_000);
    }
  });
}

describe('coverage', () => {
  it('has every block run, checked or skipped with its reason', () => {
    const all = [...blocksByFile.values()].flat();
    const count = (outcome: Outcome) => all.filter((b) => outcomes.get(b) === outcome).length;
    const missing = all.filter((b) => !outcomes.has(b)).map((b) => `${b.file}:${b.line}`);
    console.log(
      `doc blocks: ${all.length} in ${FILES.length} files; ran ${count('ran')}, checked only ${count('checked')}, skipped ${count('skipped')}`,
    );
    expect(missing).toEqual([]);
  });
});
