// The doc-test harness itself (test/docs/extract.ts, test/docs/runner.ts): a broken example
// fails, a block nothing can check fails, and the real README's quick start fails once broken.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, extractBlocks, parseAnnotation } from './extract.js';
import {
  DocEnv,
  matchesWithEllipsis,
  ROOT,
  runBlock,
  sameShape,
  splitStatements,
  typeCheck,
} from './runner.js';

let env: DocEnv;

beforeAll(() => {
  env = DocEnv.create();
});

afterAll(async () => {
  await env?.close();
});

function only(markdown: string): CodeBlock {
  const blocks = extractBlocks(markdown, 'example.md');
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

describe('extract', () => {
  it('reads the annotation just before a block, and indented fences', () => {
    const blocks = extractBlocks(
      [
        'Text',
        '<!-- doc-test: server=demo request POST /cypher -->',
        '',
        '```json',
        '{}',
        '```',
        '- item:',
        '',
        '  ```js',
        '  let x = 1;',
        '  ```',
      ].join('\n'),
      'a.md',
    );
    expect(blocks.map((b) => [b.line, b.lang, b.text])).toEqual([
      [4, 'json', '{}\n'],
      [9, 'js', 'let x = 1;\n'],
    ]);
    expect(blocks[0]!.annotation).toEqual({
      words: ['request', 'POST', '/cypher'],
      options: { server: 'demo' },
    });
    expect(blocks[1]!.annotation).toEqual({ words: [], options: {} });
  });

  it('takes skip and check reasons, and refuses them empty', () => {
    expect(parseAnnotation(' skip: needs nginx (a proxy) ').skip).toBe('needs nginx (a proxy)');
    expect(parseAnnotation('check: needs Electron').check).toBe('needs Electron');
    expect(() => parseAnnotation('skip:')).toThrow(/needs a reason/);
    expect(() => extractBlocks('```js\nlet x;\n', 'a.md')).toThrow(/never closed/);
  });

  it('splits Cypher at semicolons outside strings and comments', () => {
    expect(splitStatements("RETURN ';' AS a; // x;\nRETURN 2;")).toEqual(["RETURN ';' AS a", 'RETURN 2']);
  });

  it('compares answers member by member, loosely where told', () => {
    expect(sameShape({ a: 1, b: [2] }, { a: 1, b: [2] }, new Set())).toBeNull();
    expect(sameShape({ a: 1 }, { a: 2 }, new Set())).toMatch(/\$\.a: expected 1, got 2/);
    expect(sameShape({ a: 1 }, { a: 2 }, new Set(['a']))).toBeNull();
    expect(sameShape({ a: 1 }, { a: 'x' }, new Set(['a']))).toMatch(/expected number/);
    expect(sameShape({ a: 1 }, { a: 1, b: 2 }, new Set())).toMatch(/unexpected member "b"/);
    expect(matchesWithEllipsis('{"id":"...","n":1}', '{"id":"abc","n":1}')).toBe(true);
    expect(matchesWithEllipsis('{"id":"...","n":1}', '{"id":"abc","n":2}')).toBe(false);
  });
});

describe('run', () => {
  it('fails a JavaScript block that throws, and passes it fixed', async () => {
    await expect(runBlock(only('```js\nthrow new Error("broken example");\n```\n'), env)).rejects.toThrow(
      /broken example/,
    );
    await expect(runBlock(only('```js\nconsole.log(1 + 1);\n```\n'), env)).resolves.toBe('ran');
  });

  it('fails a block that nothing can check unless it says why it is skipped', async () => {
    await expect(runBlock(only('```\nsome listing\n```\n'), env)).rejects.toThrow(/annotate it/);
    await expect(runBlock(only('```nginx\nserver {}\n```\n'), env)).rejects.toThrow(/annotate it/);
    const skipped = only('<!-- doc-test: skip: a listing -->\n```\nsome listing\n```\n');
    await expect(runBlock(skipped, env)).resolves.toBe('skipped');
  });

  it('fails a shell block whose curl gets an HTTP error, or whose console output differs', async () => {
    const serve = 'quiverdb serve :memory:\n';
    await expect(
      runBlock(only(`\`\`\`sh\n${serve}curl -s localhost:10000/no-such-route\n\`\`\`\n`), env),
    ).rejects.toThrow(/exited with 22/);
    await expect(
      runBlock(only(`\`\`\`sh\n${serve}curl -s localhost:10000/status\n\`\`\`\n`), env),
    ).resolves.toBe('ran');
    const console = (output: string) =>
      only(
        `<!-- doc-test: server=plain -->\n\`\`\`console\n$ curl -s localhost:10000/cypher -H 'content-type: application/json' -d '{"query": "RETURN 6 * 7 AS x"}'\n${output}\n\`\`\`\n`,
      );
    await expect(
      runBlock(console('{"columns":["x"],"types":["INT64"],"rows":[[41]],...}'), env),
    ).rejects.toThrow(/printed/);
    await expect(
      runBlock(console('{"columns":["x"],"types":["INT64"],"rows":[[42]],...}'), env),
    ).resolves.toBe('ran');
    await env.stopServers();
  });

  it('fails a plan that is not the EXPLAIN of the cypher block before it', async () => {
    const blocks = extractBlocks(
      [
        '<!-- doc-test: params={"x":1} -->',
        '```cypher',
        'CREATE NODE TABLE T(id INT64, PRIMARY KEY(id));',
        'EXPLAIN MATCH (t:T {id: $x}) RETURN t.id;',
        '```',
        '<!-- doc-test: plan -->',
        '```text',
        'PROJECTION',
        '  SCAN_NODE slot=0 tables=T',
        '```',
        '<!-- doc-test: plan -->',
        '```text',
        'PROJECTION',
        '  INDEX_SEEK slot=0 tables=T id=$x',
        '...',
        '```',
      ].join('\n'),
      'plans.md',
    );
    await expect(runBlock(blocks[0]!, env)).resolves.toBe('ran');
    await expect(runBlock(blocks[1]!, env)).rejects.toThrow(/the plan is/);
    await expect(runBlock(blocks[2]!, env)).resolves.toBe('ran');
  });

  it('fails a block that npm would run', async () => {
    await expect(runBlock(only('```sh\nnpm install quiverdb\n```\n'), env)).rejects.toThrow(/do not run npm/);
  });

  it("fails the README's quick start once its query names a table it did not create", async () => {
    const readme = extractBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'README.md');
    const quickStart = readme.find((b) => b.lang === 'js' && b.text.includes('CREATE NODE TABLE Person'))!;
    await expect(runBlock(quickStart, env)).resolves.toBe('ran');
    const broken = { ...quickStart, text: quickStart.text.replace('MATCH (a:Person)-', 'MATCH (a:People)-') };
    await expect(runBlock(broken, env)).rejects.toThrow(/People/);
  });

  it('fails a TypeScript block that does not type-check', () => {
    const blocks = [
      only(
        "```ts\nimport { Database } from 'quiverdb';\nconst n: number = new Database().maxThreadNum;\n```\n",
      ),
      only(
        "```ts\nimport { Database } from 'quiverdb';\nconst s: string = new Database().maxThreadNum;\n```\n",
      ),
    ];
    const messages = typeCheck(blocks, env);
    expect(messages.has(0)).toBe(false);
    expect(messages.get(1)).toMatch(/example\.md:3: .*not assignable to type 'string'/);
  }, 60_000);
});
