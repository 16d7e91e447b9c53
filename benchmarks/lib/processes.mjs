// Child processes and build snapshots shared by the benchmark runners (run.mjs, ab.mjs).

import fs from 'node:fs';
import path from 'node:path';

/**
 * Resolves, once `child` has exited, to { code, signal, stdout, stderr }; a child that cannot
 * start resolves with code null and the reason in stderr. It is killed after `timeoutMs`.
 */
export function collect(child, { timeoutMs }) {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The last line of `stdout` parsed as JSON, or null. */
export function lastJsonLine(stdout) {
  try {
    return JSON.parse(stdout.trim().split('\n').pop() ?? '');
  } catch {
    return null;
  }
}

/**
 * Resolves, once `child` has exited, to its last stdout line parsed as JSON (when it exited
 * with 0 or that line is an { error }), else to { error } with the tail of its stderr.
 */
export async function outcome(child, { timeoutMs }) {
  const { code, signal, stdout, stderr } = await collect(child, { timeoutMs });
  const parsed = lastJsonLine(stdout);
  if (parsed && (code === 0 || parsed.error)) return parsed;
  const tail = stderr.trim().split('\n').slice(-5).join(' | ');
  const why = signal ? `killed by ${signal}` : `exit code ${code}`;
  return { error: { code: 'WORKER_FAILED', message: `${why}${tail ? `: ${tail}` : ''}` } };
}

/** The built addon of the package at `root` (Release before Debug), or null. */
export function builtAddon(root) {
  return (
    ['Release', 'Debug']
      .map((kind) => path.join(root, 'build', kind, 'graphdb.node'))
      .find((file) => fs.existsSync(file)) ?? null
  );
}

/**
 * Copies the package at `root` (dist/, its addon `addon`, package.json) to `into`, so every
 * trial measures the same build even while the working tree is rebuilt; node_modules is
 * linked for dist's own imports.
 */
export function snapshotPackage(root, addon, into) {
  fs.cpSync(path.join(root, 'dist'), path.join(into, 'dist'), { recursive: true });
  const kind = path.basename(path.dirname(addon));
  fs.mkdirSync(path.join(into, 'build', kind), { recursive: true });
  fs.copyFileSync(addon, path.join(into, 'build', kind, 'graphdb.node'));
  fs.copyFileSync(path.join(root, 'package.json'), path.join(into, 'package.json'));
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(into, 'node_modules'));
  return { dir: into, build: kind };
}

/**
 * fsyncs every file and folder under `dir`. A trial starts on a copy of its template (100 MB
 * and more at scale 1); left in the page cache, that copy would be written back while the
 * trial runs and slow every fdatasync it makes (by 3x on the development VM), which measures
 * the harness, not the system.
 */
export function syncTree(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      syncTree(entryPath);
    } else if (entry.isFile()) {
      const fd = fs.openSync(entryPath, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
  }
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The command-line arguments of one benchmarks/worker.mjs run (see its header). */
export function workerArgv({ system, workload, db, cache, scale, parallelism, quick, graphdb, extra = [] }) {
  return [
    '--system',
    system,
    '--workload',
    workload,
    '--db',
    db,
    '--cache',
    cache,
    '--scale',
    String(scale),
    '--parallelism',
    String(parallelism),
    ...(quick ? ['--quick'] : []),
    ...(graphdb ? ['--graphdb', graphdb] : []),
    ...extra,
  ];
}
