// Background auto-compaction (docs/http-api.md, "Auto-compaction"): while the service runs, a timer looks
// at the database every interval and compacts it on a free slot once enough writes piled up and
// nothing else is going on. A failure backs off, doubling up to a minute.

import type { TpExecutionSlotPool } from './pool.js';

/** The service counts as idle once no slot was leased or released for this long. */
const IDLE_MS = 250;
const MAX_BACKOFF_MS = 60_000;

export interface CompactionOptions {
  intervalMs: number;
  /** Writes since the last compaction that make one worthwhile. */
  minWrites: number;
  /** The pool to compact on; null once the service is closed. */
  pool: () => TpExecutionSlotPool | null;
  /** Writes to the database since it was last compacted (may throw once it is closed). */
  writes: () => number;
  /** Whether the service runs and nothing else (such as a request in flight) is under way. */
  quiet: () => boolean;
}

export class AutoCompaction {
  readonly #options: CompactionOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #failures = 0;
  #retryAt = 0;

  constructor(options: CompactionOptions) {
    this.#options = options;
  }

  start(): void {
    this.stop();
    const timer = setInterval(() => this.#tick(), this.#options.intervalMs);
    timer.unref();
    this.#timer = timer;
  }

  /** Stops looking; a compaction under way goes on (see `settled`). */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** The compaction under way, if any. */
  settled(): Promise<void> | null {
    return this.#running;
  }

  #tick(): void {
    const pool = this.#options.pool();
    if (!pool || this.#running || !this.#options.quiet()) return;
    if (pool.inUse > 0 || pool.waiting > 0) return;
    const now = Date.now();
    if (now - pool.lastActivity < IDLE_MS || now < this.#retryAt) return;
    let writes: number;
    try {
      writes = this.#options.writes();
    } catch {
      return;
    }
    if (writes < this.#options.minWrites) return;
    const lease = pool.tryAcquireExecutionSlot();
    if (!lease) return;
    this.#running = lease.slot
      .compact()
      .then(
        () => {
          this.#failures = 0;
        },
        (error: unknown) => {
          // Back off so that a persistent failure does not flood the log.
          this.#failures++;
          const delay = Math.min(MAX_BACKOFF_MS, this.#options.intervalMs * 2 ** this.#failures);
          this.#retryAt = Date.now() + delay;
          const message = error instanceof Error ? error.message : String(error);
          process.stderr.write(`graphdb: auto-compaction failed: ${message}\n`);
        },
      )
      .finally(() => {
        lease.release();
        this.#running = null;
      });
  }
}
