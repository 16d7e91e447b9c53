/**
 * Event-loop polling while native statements are in flight.
 *
 * A statement's result comes back to the JS thread through a thread-safe function, which
 * wakes the event loop from its poll. When the loop sleeps in the kernel, that wake-up costs
 * tens of microseconds on a loaded or virtualised machine: more than a point read takes in the
 * engine. So for a short window after a statement is submitted (`GRAPHDB_LOOP_SPIN_US`,
 * default 200 µs, at most 100000; 0 turns it off) the loop is kept polling without sleeping,
 * by a chain of `setImmediate` callbacks, and a result that arrives in that window is picked
 * up at once. Past the window, when nothing or more than one statement is in flight, when
 * recent statements took longer than the window, or once statements' pool threads hold the
 * machine's cores (`addon.poolBusy()`: a statement running on every core would otherwise lose
 * one to the polling), the loop sleeps as usual. Other I/O and timers run normally in between:
 * every turn of the loop still polls for them.
 */

import { addon } from '../native/addon.js';

export const DEFAULT_LOOP_SPIN_US = 200;
const MAX_LOOP_SPIN_US = 100_000;

type Warn = (message: string) => void;
const emitWarning: Warn = (message) => process.emitWarning(message);

/**
 * The value of the environment variable `name` in µs: unset or empty gives `fallback`; a value
 * that is not a whole number from 0 to 100000 gives `fallback` and a warning naming it.
 */
function parseMicros(name: string, text: string | undefined, fallback: number, warn: Warn): number {
  if (text === undefined || text === '') return fallback;
  if (/^[0-9]+$/.test(text) && Number(text) <= MAX_LOOP_SPIN_US) return Number(text);
  warn(
    `${name}='${text}' is not a whole number of microseconds from 0 to ` +
      `${MAX_LOOP_SPIN_US}; using ${fallback}`,
  );
  return fallback;
}

/** @internal The window of GRAPHDB_LOOP_SPIN_US in µs (see parseMicros). */
export function parseLoopSpinMicros(text: string | undefined, warn: Warn = emitWarning): number {
  return parseMicros('GRAPHDB_LOOP_SPIN_US', text, DEFAULT_LOOP_SPIN_US, warn);
}

const windowMs = parseLoopSpinMicros(process.env.GRAPHDB_LOOP_SPIN_US) / 1000;
/**
 * Round trips (ms) of lone statements that were polled for: a moving average. Only polled
 * statements count, since a statement the loop slept through also pays the wake-up, and
 * counting it would keep polling off once it is off.
 */
let polledAverageMs = 0;
/** Lone statements since the last polled one: every PROBE_EVERY-th is polled regardless. */
let sincePolled = 0;
const PROBE_EVERY = 16;
let inFlight = 0;
let windowStart = 0;
let polling = false;

function poll(): void {
  // Only while a single statement is in flight: with several, results arrive often enough to
  // keep the loop busy, and the CPU polling would take belongs to the threads running them;
  // for the same reason, not while pool threads hold the cores.
  if (inFlight === 1 && performance.now() - windowStart < windowMs && !addon.poolBusy()) {
    setImmediate(poll);
  } else {
    polling = false;
  }
}

function settledPolled(submitted: number): void {
  // Each round trip counts at most ten windows, so one slow statement (a large scan, a slow
  // disk sync) turns polling off for a few statements only.
  const took = Math.min(performance.now() - submitted, 10 * windowMs);
  polledAverageMs += (took - polledAverageMs) / 8;
}

/**
 * Tracks a native statement's promise (or takes its value, when it already ran on this
 * thread), keeping the loop polling for a short while, and maps its value with `map` (one
 * promise reaction for both). Polling happens only while the
 * statement is the only one in flight and recent polled statements came back within the
 * window on average (every 16th lone statement is polled anyway, to notice when they do
 * again): statements that take longer (a large scan, a slow disk's sync) are not polled for.
 */
export function whileInFlight<T, R>(promise: Promise<T> | T, map: (value: T) => R): Promise<R> {
  // A value, not a promise: the statement already ran on this thread (a short read).
  if (!(promise instanceof Promise)) return settleInline(map(promise));
  if (windowMs === 0) return promise.then(map);
  inFlight++;
  const submitted = performance.now();
  let polled = false;
  if (inFlight === 1) {
    if (polledAverageMs < windowMs || ++sincePolled >= PROBE_EVERY) {
      polled = true;
      sincePolled = 0;
      windowStart = submitted;
      if (!polling) {
        polling = true;
        setImmediate(poll);
      }
    }
  }
  return promise.then(
    (value) => {
      inFlight--;
      if (polled) settledPolled(submitted);
      return map(value);
    },
    (error: unknown) => {
      inFlight--;
      if (polled) settledPolled(submitted);
      throw error;
    },
  );
}

/** The identity, for whileInFlight callers that keep the value as it is. */
export function same<T>(value: T): T {
  return value;
}

/*
 * Fairness of inline results.
 *
 * A short read runs on the calling thread and its promise could settle at once; but a caller
 * that awaits one read after another (`for (const id of ids) await conn.query(...)`) would then
 * never give the event loop a turn: its continuations run as microtasks, ahead of every timer,
 * I/O callback and other connection's result. So inline work is measured in slices: from the
 * first inline settlement after the loop last turned, results settle at once for
 * GRAPHDB_INLINE_SLICE_US (default 1000 µs, at most 100000; 0 sends every inline result through
 * the loop); past that, the next ones settle from a setImmediate callback, after the loop has
 * run its timers and polled for I/O. A turn of the loop starts a new slice.
 */

export const DEFAULT_INLINE_SLICE_US = 1000;

/** @internal The slice of GRAPHDB_INLINE_SLICE_US in µs (see parseMicros). */
export function parseInlineSliceMicros(text: string | undefined, warn: Warn = emitWarning): number {
  return parseMicros('GRAPHDB_INLINE_SLICE_US', text, DEFAULT_INLINE_SLICE_US, warn);
}

const sliceMs = parseInlineSliceMicros(process.env.GRAPHDB_INLINE_SLICE_US) / 1000;
/** When the current slice began (performance.now()); -1 while none is open. */
let sliceStart = -1;
/** Whether the current slice has run its time: every inline result waits for the next turn. */
let sliceOver = false;
/**
 * The clock is read at every CLOCK_EVERY-th inline result only: a read costs some 100 ns, a good
 * part of a point read's 1-3 µs. A slice may then run over by the time of CLOCK_EVERY - 1 inline
 * reads (each within its small work budget), and start up to that many results late.
 * `countdown`: inline results until the next look at the clock (0: look at the next).
 */
/** @internal */
export const CLOCK_EVERY = 8;
let countdown = 1;

function loopTurned(): void {
  sliceStart = -1;
  sliceOver = false;
  countdown = 1;
}

function deferred<R>(value: R): Promise<R> {
  return new Promise((resolve) => setImmediate(resolve, value));
}

/** @internal The promise of a result computed inline: settled now, or after a turn of the loop. */
export function settleInline<R>(value: R): Promise<R> {
  if (--countdown > 0) return Promise.resolve(value);
  return settleAfterClock(value);
}

/** settleInline at a look at the clock: opens a slice, or finds it over. */
function settleAfterClock<R>(value: R): Promise<R> {
  if (sliceOver || sliceMs === 0) {
    countdown = 0;
    return deferred(value);
  }
  const now = performance.now();
  if (sliceStart < 0) {
    // The first look since the loop turned: a slice begins, and ends when the loop turns.
    sliceStart = now;
    setImmediate(loopTurned);
  } else if (now - sliceStart >= sliceMs) {
    // Over: this and every later inline result settle after the loop's next turn.
    sliceOver = true;
    countdown = 0;
    return deferred(value);
  }
  countdown = CLOCK_EVERY;
  return Promise.resolve(value);
}
