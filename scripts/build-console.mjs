#!/usr/bin/env node
// Builds the web console (src/console) into dist/console: one minified ES module bundle, one
// style sheet and the icon, with content hashes in their names, and index.html pointing at
// them. Runs at `npm install` (the prepare script) and with `npm run build:console`; the
// files are shipped in the package, so nothing is fetched at run time. `--check` only prints
// the sizes of an existing build.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'src', 'console');
const out = path.join(root, 'dist', 'console');

async function build() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    if (readdirSafe(out).includes('index.html')) {
      console.error('build-console: esbuild is not installed; keeping the console already in dist/console');
      return;
    }
    throw new Error('build-console: esbuild is not installed (npm install --include=dev)');
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { app: path.join(source, 'main.ts') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome109', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'eof',
    outdir: out,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.svg': 'file' },
    metafile: true,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((f) => f.startsWith('app-') && f.endsWith('.js'));
  const style = outputs.find((f) => f.startsWith('app-') && f.endsWith('.css'));
  // The icon comes out of the style sheet's url('favicon.svg').
  const favicon = outputs.find((f) => f.startsWith('favicon-') && f.endsWith('.svg'));
  if (!script || !style || !favicon)
    throw new Error(`build-console: unexpected outputs ${outputs.join(', ')}`);
  const template = readFileSync(path.join(source, 'index.html'), 'utf8');
  const html = template
    .replaceAll('{{script}}', script)
    .replaceAll('{{style}}', style)
    .replaceAll('{{favicon}}', favicon);
  if (html.includes('{{')) throw new Error('build-console: index.html has a placeholder left');
  writeFileSync(path.join(out, 'index.html'), html);
}

function readdirSafe(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function report() {
  let jsGzip = 0;
  for (const name of readdirSafe(out).sort()) {
    const body = readFileSync(path.join(out, name));
    const gz = gzipSync(body, { level: 9 }).length;
    if (name.endsWith('.js')) jsGzip += gz;
    console.error(
      `  dist/console/${name}  ${(body.length / 1024).toFixed(1)} KiB  (${(gz / 1024).toFixed(1)} KiB gzip)`,
    );
  }
  console.error(`  JavaScript: ${(jsGzip / 1024).toFixed(1)} KiB gzip`);
}

if (!process.argv.includes('--check')) await build();
if (!process.argv.includes('--quiet')) report();
