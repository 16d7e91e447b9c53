// Progress reports of long statements (COPY FROM, EXPORT DATABASE, IMPORT DATABASE) for
// `conn.query(text, params, { onProgress })`. The statement's native thread counts what it has
// done into its session (native/common/progress.h); a timer on the event loop reads the
// counters every PROGRESS_INTERVAL_MS while the statement is in flight and calls onProgress
// when they changed: at most ten calls a second, each a few microseconds, so the loop never
// waits on it. A last report comes once the statement succeeded, before its promise settles;
// none comes after.

import type { NativeConnection } from '../native/addon.js';

/** What a long statement has done so far. */
export interface QueryProgress {
  /** Bytes of the input files read (COPY FROM, the COPY statements of an IMPORT DATABASE). */
  bytesRead: number;
  /** The input files' size in bytes (0 when the statement reads none). */
  bytesTotal: number;
  /** Steps done: the files an EXPORT DATABASE wrote, the statements an IMPORT DATABASE ran. */
  stepsDone: number;
  /** The number of steps (0 for a COPY FROM). */
  stepsTotal: number;
  /** The part done, from 0 to 1 (the steps, with the bytes of the current one, when there are steps). */
  fraction: number;
}

/** How often a statement's progress is read while it runs (ms). */
export const PROGRESS_INTERVAL_MS = 100;

/** @internal Checks the onProgress option (undefined or a function). */
export function checkProgressCallback(value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError('query option onProgress must be a function');
  }
}

function progressOf(native: NativeConnection): QueryProgress | undefined {
  const [bytesRead, bytesTotal, stepsDone, stepsTotal] = native.progress();
  if (bytesTotal === 0 && stepsTotal === 0) return undefined;
  // Reads other than the input files' could count too: never past the total.
  const read = bytesTotal > 0 ? Math.min(bytesRead, bytesTotal) : 0;
  const part = bytesTotal > 0 ? read / bytesTotal : 0;
  const fraction =
    stepsTotal > 0 ? Math.min(1, (stepsDone + (stepsDone < stepsTotal ? part : 0)) / stepsTotal) : part;
  return { bytesRead: read, bytesTotal, stepsDone, stepsTotal, fraction };
}

/**
 * @internal Reports the progress of the statement `submitted` is the outcome of, to
 * `onProgress`, until it settles (a value: it already ran, and has nothing to report).
 */
export function watchProgress<T>(
  native: NativeConnection,
  submitted: Promise<T> | T,
  onProgress: (progress: QueryProgress) => void,
): Promise<T> | T {
  if (!(submitted instanceof Promise)) return submitted;
  let last = '';
  let done = false;
  const report = () => {
    if (done) return;
    const progress = progressOf(native);
    if (progress === undefined) return;
    const key = `${progress.bytesRead}/${progress.bytesTotal}/${progress.stepsDone}/${progress.stepsTotal}`;
    if (key === last) return;
    last = key;
    onProgress(progress);
  };
  const timer = setInterval(report, PROGRESS_INTERVAL_MS);
  timer.unref();
  return submitted.then(
    (value) => {
      clearInterval(timer);
      report(); // the totals reached, before the caller hears of the result
      done = true;
      return value;
    },
    (error: unknown) => {
      clearInterval(timer);
      done = true;
      throw error;
    },
  );
}
