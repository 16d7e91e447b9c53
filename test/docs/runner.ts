// Runs the code blocks of README.md and docs/*.md (test/docs/code-blocks.test.ts), each the way
// a reader would, against the state its doc-test annotation names (test/docs/extract.ts):
//
// - js/mjs (ES module) and cjs (CommonJS; also a js block that only `require`s) run with this
//   Node.js in a folder whose node_modules/quiverdb links to the repository (package.json's
//   exports, so the built dist/ and build/Release), as after `npm install quiverdb`.
// - ts blocks are type-checked together by tsc against that package's declarations, then
//   compiled by esbuild (which lowers `using`) and run like js blocks.
// - sh/bash/console blocks run in bash with quiverdb, npx (for `npx quiverdb` only) and curl on
//   the PATH (npm refuses: installing is no example to run). `quiverdb serve ...` starts in the
//   background and is stopped at the next serve line or the block's end; in sh blocks a curl
//   that gets an HTTP error fails the block (--fail-with-body), in console blocks (`$ command`
//   lines, each followed by its output) every command's output is compared, `...` matching any
//   text.
// - `output` blocks are what the js/ts block before printed.
// - json blocks are parsed; `request METHOD PATH` sends one to a server, `answer [METHOD PATH]`
//   compares one with the previous request's answer (or that route's), `fragment` parses the
//   members of an object.
// - cypher blocks run statement by statement (on a server with server=NAME, else in memory),
//   with the parameters of params={...}; a `plan` block is the EXPLAIN its last one returned.
// - `usage` blocks (command synopses): every --option named is one the command's --help knows.
//
// server=NAME runs the block beside a `quiverdb serve :memory:` of that name, started on first
// use and shared by the later blocks of the same file that name it (NAME `demo` loads the demo
// graph with --demo). Servers take free ports: the harness writes their ports for 10000 (HTTP)
// and 7687 (Bolt) in the blocks it runs, and `queryPort: 10000` / `boltPort: 7687` of a service
// a block starts itself become 0. Everything listens on 127.0.0.1; each run is bounded in time.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import type { CodeBlock } from './extract.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'quiverdb.js');
/** Longest run of one block. */
const RUN_TIMEOUT_MS = 60_000;
/** Packages a reader would have installed beside quiverdb for the examples that use them. */
const PEER_PACKAGES = ['neo4j-driver', 'hono', '@types'];

export type Outcome = 'ran' | 'checked' | 'skipped';

export interface Server {
  port: number;
  boltPort: number;
  url: string;
  child: ChildProcess;
}

/** Replaces the documented ports with the ones of `server` (and lets services pick free ones). */
export function withPorts(text: string, server: Server | undefined): string {
  let out = text
    .replace(/\bqueryPort: 10000\b/g, 'queryPort: 0')
    .replace(/\bboltPort: 7687\b/g, 'boltPort: 0');
  if (server) out = out.replace(/:10000\b/g, `:${server.port}`).replace(/:7687\b/g, `:${server.boltPort}`);
  return out;
}

/** Starts `quiverdb serve` with `args` and waits for its URLs. */
export function startServer(args: string[], cwd: string): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args, '--port', '0', '--bolt-port', '0'], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`quiverdb serve printed no URL within 30 s; stderr: ${err}`));
    }, 30_000);
    const look = () => {
      const http = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
      const bolt = /bolt:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (http && bolt) {
        clearTimeout(timer);
        resolve({ url: http[1]!, port: Number(http[2]), boltPort: Number(bolt[1]), child });
      }
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      look();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`quiverdb serve exited with ${code} before listening; stderr: ${err}`));
    });
  });
}

/** Stops a server with SIGTERM (SIGKILL after 10 s). */
export async function stopServer(server: Server): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in its own process group, killed whole after RUN_TIMEOUT_MS. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string },
): Promise<RunResult> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  // A command that exits before reading its input closes the pipe: the write then fails with
  // EPIPE, which is no error of the block (its status and output say what happened).
  child.stdin.on('error', () => {});
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }, RUN_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      // Whatever the block left running in its group goes too.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
      if (timedOut) stderr += `\n(killed after ${RUN_TIMEOUT_MS} ms)`;
      resolve({ code: timedOut ? null : code, stdout, stderr });
    });
  });
}

function failure(block: CodeBlock, what: string, result: RunResult): Error {
  return new Error(
    `${block.file}:${block.line}: ${what} exited with ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
  );
}

/** The shell helpers of sh blocks: quiverdb/npx/curl on the PATH, and backgrounded serve lines. */
const SH_PRELUDE = String.raw`set -eo pipefail
__serve_pid=
__stop() {
  if [ -n "$__serve_pid" ]; then
    kill -TERM "$__serve_pid" 2>/dev/null || true
    wait "$__serve_pid" 2>/dev/null || true
    __serve_pid=
  fi
}
trap __stop EXIT
__serve() {
  __stop
  local args=() next=
  for a in "$@"; do
    if [ -n "$next" ]; then args+=(0); next=; continue; fi
    case "$a" in --port|--bolt-port) next=1 ;; esac
    args+=("$a")
  done
  case " $* " in *" --port "*) ;; *) args+=(--port 0) ;; esac
  local out="$DOCTEST_TMP/serve.$RANDOM.out"
  "${'$'}{args[@]}" >"$out" 2>&1 &
  __serve_pid=$!
  local i
  for i in $(seq 1 300); do
    if grep -q 'listening on' "$out"; then break; fi
    if ! kill -0 "$__serve_pid" 2>/dev/null; then cat "$out" >&2; echo "quiverdb serve exited" >&2; return 1; fi
    sleep 0.1
  done
  sleep 0.1
  export DOCTEST_PORT="$(sed -n 's|.*listening on https\{0,1\}://[^ ]*:\([0-9]*\).*|\1|p' "$out")"
  export DOCTEST_BOLT_PORT="$(sed -n 's|.*bolt://[^ ]*:\([0-9]*\).*|\1|p' "$out")"
  if [ -z "$DOCTEST_PORT" ]; then cat "$out" >&2; echo "quiverdb serve did not listen" >&2; return 1; fi
}
`;

/** The environment of one file's blocks: a package folder, the shims, its servers. */
export class DocEnv {
  readonly dir: string;
  readonly #servers = new Map<string, Promise<Server>>();
  #blocks = 0;
  /** The previous `request` block's answer, for an `answer` block. */
  lastAnswer: { status: number; body: unknown } | undefined;
  /** What the previous js/ts block printed, for an `output` block. */
  lastStdout: string | undefined;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** A folder where `import 'quiverdb'` finds this repository, with the shims for sh blocks. */
  static create(): DocEnv {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quiverdb-doctest-'));
    const modules = path.join(dir, 'node_modules');
    fs.mkdirSync(modules);
    fs.symlinkSync(ROOT, path.join(modules, 'quiverdb'));
    for (const name of PEER_PACKAGES)
      fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name));
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    const curl = execFileSync('bash', ['-c', 'command -v curl || echo missing'], { encoding: 'utf8' }).trim();
    if (curl === 'missing') throw new Error('the doc tests need curl on the PATH (the docs use it)');
    const shims: Record<string, string> = {
      quiverdb: `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`,
      graphdb: `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`,
      node: `#!/bin/sh\nexec "${process.execPath}" "$@"\n`,
      // Installing and the project's own scripts are not examples to run here: such blocks
      // carry a skip annotation, and one without it fails instead of touching the registry.
      npm: '#!/bin/sh\necho "doc tests do not run npm $*: annotate the block with a skip reason" >&2\nexit 2\n',
      npx: '#!/bin/sh\nif [ "$1" = quiverdb ]; then shift; exec quiverdb "$@"; fi\necho "doc tests run npx quiverdb only, not npx $*" >&2\nexit 2\n',
      // Documented port 10000/7687 to the server's; HTTP errors fail the command.
      curl: `#!/usr/bin/env bash\nargs=()\nfor a in "$@"; do a="\${a//:10000/:$DOCTEST_PORT}"; args+=("\${a//:7687/:$DOCTEST_BOLT_PORT}"); done\nfail=(--fail-with-body); [ "$DOCTEST_CURL_FAIL" = 0 ] && fail=()\nexec "${curl}" "\${fail[@]}" --max-time 30 "\${args[@]}"\n`,
    };
    for (const [name, text] of Object.entries(shims)) {
      fs.writeFileSync(path.join(bin, name), text, { mode: 0o755 });
    }
    return new DocEnv(dir);
  }

  /** A fresh working folder for one block. */
  workdir(): string {
    const dir = path.join(this.dir, `block-${++this.#blocks}`);
    fs.mkdirSync(dir);
    return dir;
  }

  /** The server NAME (`demo`: with the demo graph), started on first use. */
  server(name: string): Promise<Server> {
    let server = this.#servers.get(name);
    if (!server) {
      const args = [':memory:', '--max-threads', '4'];
      if (name === 'demo') args.push('--demo');
      server = startServer(args, this.dir);
      this.#servers.set(name, server);
    }
    return server;
  }

  /** Stops the servers and forgets the last answer and output (at the end of a file). */
  async stopServers(): Promise<void> {
    const servers = [...this.#servers.values()];
    this.#servers.clear();
    this.lastAnswer = undefined;
    this.lastStdout = undefined;
    for (const server of servers) await server.then(stopServer).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.stopServers();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** The environment of a block's process. */
  processEnv(server: Server | undefined, cwd: string): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${path.join(this.dir, 'bin')}:${process.env.PATH ?? ''}`,
      DOCTEST_TMP: cwd,
      DOCTEST_PORT: String(server?.port ?? 10000),
      DOCTEST_BOLT_PORT: String(server?.boltPort ?? 7687),
    };
    // The block runs as a user's program would, not under vitest.
    for (const key of Object.keys(env))
      if (key.startsWith('VITEST') || key === 'NODE_OPTIONS') delete env[key];
    return env;
  }
}

/** Whether a js block is CommonJS: it requires and never imports. */
export function isCommonJs(block: CodeBlock): boolean {
  return (
    block.lang === 'cjs' ||
    (/\brequire\(/.test(block.text) && !/^\s*import\s/m.test(block.text) && block.lang !== 'mjs')
  );
}

/** Runs a JavaScript block (ES module unless CommonJS), or only parses it with `check`. */
export async function runJavaScript(
  block: CodeBlock,
  env: DocEnv,
  server: Server | undefined,
): Promise<Outcome> {
  const cwd = env.workdir();
  const file = path.join(cwd, isCommonJs(block) ? 'example.cjs' : 'example.mjs');
  fs.writeFileSync(file, withPorts(block.text, server));
  const checkOnly = block.annotation.check !== undefined;
  const result = await run(process.execPath, checkOnly ? ['--check', file] : [file], {
    cwd,
    env: env.processEnv(server, cwd),
  });
  if (result.code !== 0) throw failure(block, checkOnly ? 'node --check' : 'node', result);
  env.lastStdout = result.stdout;
  return checkOnly ? 'checked' : 'ran';
}

/** Whether `actual` is `expected`, where `...` in `expected` stands for any text. */
export function matchesWithEllipsis(expected: string, actual: string): boolean {
  const pattern = expected
    .trim()
    .split('...')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${pattern}$`).test(actual.trim());
}

/** An `output` block: what the previous js/ts block printed. */
export function checkOutput(block: CodeBlock, env: DocEnv): Outcome {
  if (env.lastStdout === undefined)
    throw new Error(`${block.file}:${block.line}: output of no block run before it`);
  if (!matchesWithEllipsis(block.text, env.lastStdout)) {
    throw new Error(
      `${block.file}:${block.line}: the block before it printed\n${env.lastStdout}\nnot\n${block.text}`,
    );
  }
  return 'ran';
}

/** Type-checks every ts block at once; returns tsc's messages per block (by index). */
export function typeCheck(blocks: CodeBlock[], env: DocEnv): Map<number, string> {
  const dir = path.join(env.dir, 'ts');
  fs.mkdirSync(dir, { recursive: true });
  const files = blocks.map((block, i) => {
    const file = path.join(dir, `block${i}.mts`);
    // `export {}` makes each block a module of its own (top-level await, no shared names).
    fs.writeFileSync(file, `${block.text}export {};\n`);
    return file;
  });
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'ESNext.Disposable'],
        types: ['node'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      files: files.map((f) => path.basename(f)),
    }),
  );
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error);
  }
  const messages = new Map<number, string>();
  for (const line of output.split('\n')) {
    const match = /block(\d+)\.mts\((\d+),\d+\): (.*)/.exec(line);
    if (!match) continue;
    const index = Number(match[1]);
    const block = blocks[index]!;
    const text = `${block.file}:${block.line + Number(match[2])}: ${match[3]}`;
    messages.set(index, messages.has(index) ? `${messages.get(index)}\n${text}` : text);
  }
  if (output.trim() !== '' && messages.size === 0) throw new Error(`tsc failed:\n${output}`);
  return messages;
}

/** Runs a type-checked TypeScript block (esbuild strips the types and lowers `using`). */
export async function runTypeScript(
  block: CodeBlock,
  env: DocEnv,
  server: Server | undefined,
): Promise<Outcome> {
  if (block.annotation.check !== undefined) return 'checked';
  const code = transformSync(withPorts(block.text, server), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
  }).code;
  return runJavaScript({ ...block, lang: 'mjs', text: code }, env, server);
}

/** Runs a shell block in bash (or only parses it with `check`). */
export async function runShell(block: CodeBlock, env: DocEnv, server: Server | undefined): Promise<Outcome> {
  const cwd = env.workdir();
  let text = block.text;
  // A console block: `$ command` lines, each followed by its output (`...` stands for any text).
  const expected: string[] = [];
  if (block.lang === 'console') {
    const commands: string[] = [];
    for (const line of block.text.trimEnd().split('\n')) {
      const last = commands.length - 1;
      if (last >= 0 && expected[last] === '' && commands[last]!.endsWith('\\')) {
        commands[last] += `\n${line}`; // a command continued on the next line
      } else if (line.startsWith('$ ')) {
        commands.push(line.slice(2));
        expected.push('');
      } else if (expected.length === 0) {
        throw new Error(`${block.file}:${block.line}: a console block starts with a $ command`);
      } else expected[expected.length - 1] += `${line}\n`;
    }
    text = commands.map((command, i) => `printf '\\n@@doctest-${i}@@\\n'\n${command}`).join('\n');
  }
  const script = text
    .split('\n')
    .map((line) =>
      line.replace(
        /^(\s*(?:\w+=(?:"[^"]*"|'[^']*'|\S+)\s+)*)((?:npx\s+)?quiverdb\s+serve\b)/,
        '$1__serve $2',
      ),
    )
    .join('\n');
  const file = path.join(cwd, 'example.sh');
  fs.writeFileSync(file, `${SH_PRELUDE}\n${script}\n`);
  const checkOnly = block.annotation.check !== undefined;
  const processEnv = env.processEnv(server, cwd);
  // Console blocks show what an HTTP error answers: their output is checked instead.
  if (block.lang === 'console') processEnv.DOCTEST_CURL_FAIL = '0';
  const result = await run('bash', checkOnly ? ['-n', file] : [file], { cwd, env: processEnv });
  if (result.code !== 0) throw failure(block, checkOnly ? 'bash -n' : 'bash', result);
  if (!checkOnly && block.lang === 'console') {
    const outputs = result.stdout.split(/\n?@@doctest-\d+@@\n/).slice(1);
    expected.forEach((want, i) => {
      const got = (outputs[i] ?? '').replace(/\r\n/g, '\n');
      if (want.trim() === '' ? got.trim() !== '' : !matchesWithEllipsis(want, got)) {
        throw new Error(`${block.file}:${block.line}: command ${i + 1} printed\n${got}\nnot\n${want}`);
      }
    });
  }
  return checkOnly ? 'checked' : 'ran';
}

/**
 * Whether `actual` matches `expected`: the same JSON structure and values, except that the
 * members named in `loose` (at any depth) only need a value of the same JSON type.
 */
export function sameShape(
  expected: unknown,
  actual: unknown,
  loose: ReadonlySet<string>,
  where = '$',
): string | null {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(expected) !== kind(actual))
    return `${where}: expected ${kind(expected)}, got ${JSON.stringify(actual)}`;
  if (Array.isArray(expected)) {
    const got = actual as unknown[];
    if (got.length !== expected.length)
      return `${where}: expected ${expected.length} items, got ${got.length}`;
    for (let i = 0; i < expected.length; i++) {
      const diff = sameShape(expected[i], got[i], loose, `${where}[${i}]`);
      if (diff) return diff;
    }
    return null;
  }
  if (kind(expected) === 'object') {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])];
    for (const key of keys) {
      if (!(key in e)) return `${where}: unexpected member "${key}"`;
      if (!(key in a)) return `${where}: missing member "${key}"`;
      if (loose.has(key)) {
        if (kind(e[key]) !== kind(a[key]))
          return `${where}.${key}: expected ${kind(e[key])}, got ${kind(a[key])}`;
        continue;
      }
      const diff = sameShape(e[key], a[key], loose, `${where}.${key}`);
      if (diff) return diff;
    }
    return null;
  }
  return Object.is(expected, actual)
    ? null
    : `${where}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

async function call(
  server: Server,
  method: string,
  route: string,
  body?: string,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) };
}

/** Parses a json block; sends it (request) or compares it with an answer (answer). */
export async function runJson(block: CodeBlock, env: DocEnv, server: Server | undefined): Promise<Outcome> {
  const [mode, method, route] = block.annotation.words;
  const text = mode === 'fragment' ? `{${block.text}}` : block.text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${block.file}:${block.line}: not JSON: ${(error as Error).message}`);
  }
  if (mode === 'request' || (mode === 'answer' && method)) {
    if (!server) throw new Error(`${block.file}:${block.line}: ${mode} ${method ?? ''} needs server=NAME`);
  }
  if (mode === 'request') {
    if (!method || !route) throw new Error(`${block.file}:${block.line}: request METHOD PATH`);
    env.lastAnswer = await call(server!, method, route, block.text);
    if (env.lastAnswer.status >= 400) {
      throw new Error(
        `${block.file}:${block.line}: ${method} ${route} answered ${env.lastAnswer.status} ${JSON.stringify(env.lastAnswer.body)}`,
      );
    }
    return 'ran';
  }
  if (mode === 'answer') {
    const answer = method && route ? await call(server!, method, route) : env.lastAnswer;
    if (!answer) throw new Error(`${block.file}:${block.line}: an answer with no request before it`);
    const loose = new Set((block.annotation.options.loose ?? '').split(',').filter(Boolean));
    const diff = sameShape(value, answer.body, loose);
    if (diff)
      throw new Error(
        `${block.file}:${block.line}: the answer differs: ${diff}\n${JSON.stringify(answer.body)}`,
      );
    return 'ran';
  }
  if (mode !== undefined && mode !== 'fragment')
    throw new Error(`${block.file}:${block.line}: unknown json mode ${mode}`);
  return 'checked';
}

/** Splits Cypher text into statements at `;` outside strings and comments. */
export function splitStatements(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      current += ch;
      if (ch === '\\') current += text[++i] ?? '';
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
      current += ch;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      current += '\n';
    } else if (ch === ';') {
      if (current.trim()) out.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/**
 * Runs a Cypher block statement by statement on its server (or an in-memory one of its own),
 * with the parameters of params={...}; the last statement's answer is kept for a `plan` block.
 */
export async function runCypher(block: CodeBlock, env: DocEnv, server: Server | undefined): Promise<Outcome> {
  const statements = splitStatements(block.text);
  const parameters = JSON.parse(block.annotation.options.params ?? '{}') as unknown;
  if (!server) {
    const own = await startServer([':memory:'], env.workdir());
    try {
      await runStatements(block, env, own, statements, parameters);
    } finally {
      await stopServer(own);
    }
  } else await runStatements(block, env, server, statements, parameters);
  return 'ran';
}

async function runStatements(
  block: CodeBlock,
  env: DocEnv,
  server: Server,
  statements: string[],
  parameters: unknown,
): Promise<void> {
  for (const query of statements) {
    const answer = await call(server, 'POST', '/cypher', JSON.stringify({ query, parameters }));
    if (answer.status !== 200) {
      throw new Error(
        `${block.file}:${block.line}: ${query}\n=> ${answer.status} ${JSON.stringify(answer.body)}`,
      );
    }
    env.lastAnswer = answer;
  }
}

/** A `plan` block: the text of the previous cypher block's EXPLAIN (`...` stands for any text). */
export function checkPlan(block: CodeBlock, env: DocEnv): Outcome {
  const rows = (env.lastAnswer?.body as { rows?: unknown[][] } | undefined)?.rows;
  const plan = rows?.[0]?.[0];
  if (typeof plan !== 'string')
    throw new Error(`${block.file}:${block.line}: no EXPLAIN answer before this plan`);
  if (!matchesWithEllipsis(block.text, plan)) {
    throw new Error(`${block.file}:${block.line}: the plan is\n${plan}\nnot\n${block.text}`);
  }
  return 'ran';
}

/** The help texts of the command and its subcommands. */
let helpText: string | undefined;
function allHelp(): string {
  helpText ??= ['', 'serve', 'query', 'shell', 'import']
    .map((command) =>
      execFileSync(process.execPath, [BIN, ...(command ? [command] : []), '--help'], { encoding: 'utf8' }),
    )
    .join('\n');
  return helpText;
}

/** A usage synopsis: every `--option` it names is one the command's --help describes. */
export function checkUsage(block: CodeBlock): Outcome {
  const help = allHelp();
  const unknown = [...new Set(block.text.match(/--[a-z][a-z-]*/g) ?? [])].filter(
    (option) => !new RegExp(`${option}(?![a-z-])`).test(help),
  );
  if (unknown.length > 0) {
    throw new Error(`${block.file}:${block.line}: options no --help knows: ${unknown.join(', ')}`);
  }
  return 'ran';
}

/**
 * Runs one block as its language and annotation say (`tscMessage`: what tsc said of a ts block);
 * rejects when it fails, or when nothing can check it.
 */
export async function runBlock(block: CodeBlock, env: DocEnv, tscMessage?: string): Promise<Outcome> {
  const { annotation } = block;
  if (annotation.skip !== undefined) return 'skipped';
  const name = annotation.options.server;
  const server: Server | undefined = name ? await env.server(name) : undefined;
  switch (block.lang) {
    case 'js':
    case 'mjs':
    case 'cjs':
      return runJavaScript(block, env, server);
    case 'ts': {
      if (tscMessage) throw new Error(`tsc:\n${tscMessage}`);
      return runTypeScript(block, env, server);
    }
    case 'sh':
    case 'bash':
    case 'console':
      return runShell(block, env, server);
    case 'json':
      return runJson(block, env, server);
    case 'cypher':
      return runCypher(block, env, server);
    default:
      if (annotation.words[0] === 'usage') return checkUsage(block);
      if (annotation.words[0] === 'output') return checkOutput(block, env);
      if (annotation.words[0] === 'plan') return checkPlan(block, env);
      throw new Error(
        `${block.file}:${block.line}: no way to check a \`${block.lang || 'plain'}\` block: annotate it (<!-- doc-test: usage --> or <!-- doc-test: skip: reason -->)`,
      );
  }
}
