// A one-line progress bar on stderr for the CLI's long statements (COPY FROM, EXPORT and IMPORT
// DATABASE), fed by `conn.query`'s onProgress. Written by hand rather than with a package such
// as cli-progress: one bar, redrawn at most ten times a second, needs a dozen lines, and the
// package brings its own timers and terminal handling for what the engine's reports already do.

import type { QueryProgress } from '../core/progress.js';

const WIDTH = 30;

function megabytes(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

/** The bar's text for `p`: `[#########.....]  45%  12.3/27.0 MB  2/5`. */
export function progressLine(p: QueryProgress): string {
  const filled = Math.round(p.fraction * WIDTH);
  const parts = [
    `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]`,
    `${Math.floor(p.fraction * 100)}%`.padStart(4),
  ];
  if (p.bytesTotal > 0) parts.push(`${megabytes(p.bytesRead)}/${megabytes(p.bytesTotal)} MB`);
  if (p.stepsTotal > 0) parts.push(`${p.stepsDone}/${p.stepsTotal}`);
  return parts.join('  ');
}

/**
 * An onProgress that draws the bar on `stream` when it is a terminal (nothing otherwise, so
 * that redirected output stays clean), and `done()` to take the bar away once the statement
 * ended.
 */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): {
  onProgress: ((p: QueryProgress) => void) | undefined;
  done: () => void;
} {
  if (!stream.isTTY) return { onProgress: undefined, done: () => {} };
  let drawn = false;
  return {
    onProgress: (p) => {
      stream.write(`\r${progressLine(p)}\x1b[K`);
      drawn = true;
    },
    done: () => {
      if (drawn) stream.write('\r\x1b[K');
      drawn = false;
    },
  };
}
