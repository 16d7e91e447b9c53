#!/usr/bin/env node
// Checks (or with --write, applies) the C++ style of native/ (.clang-format at the root) with
// the clang-format binary that the clang-format-node devDependency ships for this platform, so
// that every machine and CI format alike. `npm run lint` runs the check; `npm run format` writes.
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const write = process.argv.includes('--write');

function clangFormatBinary() {
  const require = createRequire(import.meta.url);
  let binary;
  try {
    binary = require('clang-format-node').clangFormatPath;
  } catch (error) {
    console.error(
      `check-format: the clang-format-node devDependency is missing (run npm install): ${error.message}`,
    );
    process.exit(2);
  }
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    // npm may not have run the package's postinstall (it sets the execute bit).
    chmodSync(binary, 0o755);
  }
  return binary;
}

function sources(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sources(full));
    else if (/\.(cc|h)$/.test(entry.name)) found.push(full);
  }
  return found;
}

const binary = clangFormatBinary();
const files = sources(path.join(root, 'native')).sort();
const args = write ? ['-i', ...files] : ['--dry-run', '--Werror', ...files];
const result = spawnSync(binary, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (result.status !== 0) {
  const lines = `${result.stderr ?? ''}`.split('\n').filter((line) => /error:/.test(line));
  const named = [...new Set(lines.map((line) => line.split(':')[0]))];
  console.error(result.error?.message ?? '');
  console.error(
    `check-format: ${named.length} file(s) differ from .clang-format, e.g.\n  ${named
      .slice(0, 10)
      .map((f) => path.relative(root, f))
      .join('\n  ')}\nrun \`npm run format\` to apply the style.`,
  );
  process.exit(1);
}
console.log(`check-format: ${files.length} C++ files ${write ? 'formatted' : 'match .clang-format'}`);
