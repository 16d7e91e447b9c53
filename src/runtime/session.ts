// Explicit transactions held across requests, for every protocol: HTTP's /tx endpoints
// (docs/http-api.md, "Explicit transactions") and Bolt's BEGIN .. COMMIT (docs/bolt.md). One
// type, TransactionSession, holds what they share (docs/concurrency.md, "Explicit transactions over HTTP"; docs/bolt.md): the execution-slot
// lease whose session keeps the transaction open, the access mode it runs under, its deadline,
// the idle timer that rolls it back when no request comes, and its end, once, which resets the
// slot's session, releases the lease and gives its place back. TransactionRegistry bounds how
// many are open at once (so that transactions cannot hold every slot) and lists the HTTP ones
// by id (128 random bits).

import { randomBytes } from 'node:crypto';
import { isReadOnly } from './access.js';
import { ANONYMOUS_ADMIN, type Client } from './auth.js';
import type { ExecutionSlotLease } from './pool.js';

/** Whether the session of `lease`'s slot still has its transaction (false once unusable). */
function stillInTransaction(lease: ExecutionSlotLease): boolean {
  try {
    return lease.slot.inTransaction;
  } catch {
    return false;
  }
}

/** How a transaction session is opened. */
export interface SessionOptions {
  /** The access mode it runs under (undefined: any). */
  accessMode?: string;
  /** Opened READ ONLY; it always is when `accessMode` is the read-only rung (a reader's). */
  readOnly?: boolean;
  /** Who opened it: only requests with the same token may use it, under its role. */
  client?: Client;
  /** Date.now() past which it is rolled back (default: never, but for idling). */
  deadline?: number;
  /** Runs before the session's end resets the slot (Bolt closes its open results there). */
  beforeEnd?: () => Promise<void>;
}

/** One open explicit transaction on a leased slot. */
export class TransactionSession {
  readonly id: string;
  readonly lease: ExecutionSlotLease;
  /** The access mode it was opened with (undefined: any). */
  readonly accessMode: string | undefined;
  /** Opened READ ONLY. */
  readonly readOnly: boolean;
  readonly client: Client;
  /** Date.now() past which it is rolled back (Infinity: never, but for idling). */
  readonly deadline: number;
  /** Date.now() at which it expires if no request comes. */
  expiresAt = 0;
  /** Why the server rolled it back (idle, past its deadline), or null. */
  expired: string | null = null;
  readonly #registry: TransactionRegistry;
  readonly #beforeEnd: (() => Promise<void>) | undefined;
  /** The tail of its request chain: each request runs after the previous one settled. */
  #tail: Promise<void> = Promise.resolve();
  #busy = 0;
  #timer: NodeJS.Timeout | null = null;
  #ended = false;
  #released: Promise<void> | null = null;

  /** @internal Opened by TransactionRegistry.open. */
  constructor(registry: TransactionRegistry, lease: ExecutionSlotLease, options: SessionOptions) {
    this.#registry = registry;
    this.id = randomBytes(16).toString('base64url');
    this.lease = lease;
    this.accessMode = options.accessMode;
    // A transaction that may only read is READ ONLY on every path, whatever the caller asked:
    // a read-write one would hold the write gate and make every writer wait for it.
    this.readOnly = (options.readOnly ?? false) || isReadOnly(options.accessMode);
    this.client = options.client ?? ANONYMOUS_ADMIN;
    this.deadline = options.deadline ?? Number.POSITIVE_INFINITY;
    this.#beforeEnd = options.beforeEnd;
  }

  /** False once committed, rolled back or expired. */
  get open(): boolean {
    return !this.#ended;
  }

  get busy(): boolean {
    return this.#busy > 0;
  }

  /** The ms left before its deadline (at least 1), or undefined when it has none. */
  remainingMs(): number | undefined {
    return this.deadline === Number.POSITIVE_INFINITY ? undefined : Math.max(1, this.deadline - Date.now());
  }

  /**
   * Runs `work` once the transaction's earlier requests are done, holding off expiry while it
   * runs. `work` resolves to its answer and to the promise of its end (a streamed answer ends
   * after it is returned). Rejects with TxGoneError when the transaction ended meanwhile.
   */
  run<T>(work: () => Promise<{ answer: T; finished: Promise<void> }>): Promise<T> {
    this.#busy++;
    this.pauseExpiry();
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = (failure?: unknown): void => {
      this.#busy--;
      if (!this.#ended) {
        // A failed statement can end the transaction in the engine (as a failed execution does
        // in Kùzu): then it is over here too, and later requests on it are told why.
        if (!stillInTransaction(this.lease)) {
          const cause = failure instanceof Error ? `: ${failure.message}` : '';
          const code = (failure as { code?: unknown } | undefined)?.code;
          // Its place is given back behind the answer: a client that begins another at once
          // waits for it (TransactionRegistry.reserveWhenFree).
          void this.#registry.end(
            this,
            false,
            `rolled back because a statement in it failed${typeof code === 'string' ? ` with ${code}` : ''}${cause}`,
          );
        } else if (this.#busy === 0) this.resumeExpiry();
      }
      release();
    };
    return previous.then(async () => {
      if (this.#ended) {
        done();
        throw new TxGoneError(this.id);
      }
      let result: { answer: T; finished: Promise<void> };
      try {
        result = await work();
      } catch (error) {
        done(error);
        throw error;
      }
      result.finished.then(() => done(), done);
      return result.answer;
    });
  }

  /** Waits for the requests in flight. */
  settled(): Promise<void> {
    return this.#tail;
  }

  /** A request is being served: the idle timer stops until resumeExpiry(). */
  pauseExpiry(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * (Re)starts the idle timer: unless a request comes first, the transaction is rolled back
   * after the registry's idle timeout, or at its deadline if that is sooner.
   */
  resumeExpiry(): void {
    this.pauseExpiry();
    if (this.#ended || this.#busy > 0) return;
    const idle = this.#registry.idleTimeoutMs;
    const delay = Math.max(0, Math.min(idle, this.deadline - Date.now()));
    this.expiresAt = Date.now() + delay;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#ended || this.#busy > 0) return;
      if (this.deadline <= Date.now()) this.expire('it ran past its tx_timeout');
      else this.expire(`it was idle for ${idle} ms`, `rolled back after ${idle} ms idle (txIdleTimeoutMs)`);
    }, delay);
    this.#timer.unref();
  }

  /** Rolls it back now if it is past its deadline; true when it has expired (now or before). */
  checkDeadline(): boolean {
    if (this.expired === null && this.deadline <= Date.now()) this.expire('it ran past its tx_timeout');
    return this.expired !== null;
  }

  /**
   * The server rolls it back: `why` is what its next request is told (Bolt), `how` what a
   * request naming its id is told once it is gone (HTTP, TransactionRegistry.endedHow).
   */
  expire(why: string, how = `rolled back because ${why}`): void {
    if (this.expired !== null) return;
    this.expired = why;
    void this.#registry.end(this, false, how);
  }

  /** @internal Marks it ended (no request runs on it from now on). */
  markEnded(): void {
    this.#ended = true;
    this.pauseExpiry();
  }

  /**
   * @internal Rolls back what is left, resets the slot's session, releases the lease and gives
   * the place back, once, whoever asks again.
   */
  release(): Promise<void> {
    this.markEnded();
    if (this.#released === null) {
      this.#released = this.#releaseOnce();
      this.#registry.giving(this.#released);
    }
    return this.#released;
  }

  async #releaseOnce(): Promise<void> {
    await this.#beforeEnd?.();
    if (this.lease.released) return;
    try {
      await this.lease.slot.resetSession();
    } catch {
      // The service is closing: the slot goes with it.
    }
    this.lease.release();
    this.#registry.unreserve();
  }
}

/** The transaction ended (committed, rolled back or expired) before the request could run. */
export class TxGoneError extends Error {
  constructor(id: string) {
    super(`transaction ${id} is no longer open`);
    this.name = 'TxGoneError';
  }
}

/** How many ended transactions the registry remembers the end of (for TX_NOT_FOUND's message). */
const ENDED_KEPT = 1024;

/**
 * How long a transaction about to begin waits, at most, for the places of ended transactions
 * that are still being given back (reserveWhenFree).
 */
export const PLACE_WAIT_MS = 250;

/** The open explicit transactions of a service, over every protocol. */
export class TransactionRegistry {
  readonly idleTimeoutMs: number;
  readonly maxOpen: number;
  /** The sessions listed by id (HTTP's, which clients name by it). */
  readonly #listed = new Map<string, TransactionSession>();
  /** How the most recently ended listed transactions ended, by id (at most ENDED_KEPT, oldest out first). */
  readonly #ended = new Map<string, { token: number; how: string }>();
  /** Places taken: transactions open or beginning (at most maxOpen). */
  #places = 0;
  /** The ends of transactions still giving their places back (TransactionSession.release). */
  readonly #giving = new Set<Promise<void>>();
  #closed = false;

  constructor(idleTimeoutMs: number, maxOpen: number) {
    this.idleTimeoutMs = idleTimeoutMs;
    this.maxOpen = maxOpen;
  }

  /** Transactions listed by id now. */
  get size(): number {
    return this.#listed.size;
  }

  /** Takes a place for a transaction about to begin; false when maxOpen are open or beginning. */
  reserve(): boolean {
    if (this.#closed || this.#places >= this.maxOpen) return false;
    this.#places++;
    return true;
  }

  /**
   * reserve(), but when every place is taken and some are being given back (a transaction
   * that expired, failed or was rolled back, whose session is still being reset), waits for
   * those, up to `waitMs`, and tries again. Without it a client told its transaction expired
   * or failed, which begins another at once, could be refused "too many open transactions"
   * by the place its own ended transaction still held.
   */
  async reserveWhenFree(waitMs = PLACE_WAIT_MS): Promise<boolean> {
    if (this.reserve()) return true;
    if (this.#giving.size === 0 || this.#closed) return false;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    try {
      await Promise.race([Promise.allSettled([...this.#giving]), waited]);
    } finally {
      clearTimeout(timer);
    }
    return this.reserve();
  }

  /** Gives back a place taken by reserve() (the session's end does it for an opened one). */
  unreserve(): void {
    this.#places--;
  }

  /** @internal `released`: a session's end, giving its place back (reserveWhenFree waits for it). */
  giving(released: Promise<void>): void {
    this.#giving.add(released);
    const gone = () => {
      this.#giving.delete(released);
    };
    released.then(gone, gone);
  }

  /**
   * A session on `lease`, in the place reserve() took, whose statement BEGIN the caller runs
   * (Bolt runs it as its other statements). Its end gives the place back.
   */
  open(lease: ExecutionSlotLease, options: SessionOptions = {}): TransactionSession {
    return new TransactionSession(this, lease, options);
  }

  /**
   * Begins a transaction on `lease` (in the place reserve() took) and lists it by id: READ ONLY
   * for the read-only access mode, read-write otherwise. On failure the lease is reset and
   * released, and the place given back.
   */
  async begin(lease: ExecutionSlotLease, options: SessionOptions = {}): Promise<TransactionSession> {
    const tx = this.open(lease, options);
    try {
      await lease.slot.runInSession(tx.readOnly ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN TRANSACTION');
    } catch (error) {
      await tx.release();
      throw error;
    }
    if (this.#closed) {
      await tx.release();
      throw new TxGoneError(tx.id);
    }
    this.#listed.set(tx.id, tx);
    tx.resumeExpiry();
    return tx;
  }

  /**
   * How listed transaction `id` ended ('committed', 'rolled back because a statement in it
   * failed...'), if it ended recently and `client` opened it; undefined otherwise.
   */
  endedHow(id: string, client: Client): string | undefined {
    const ended = this.#ended.get(id);
    return ended && ended.token === client.token ? ended.how : undefined;
  }

  #recordEnd(tx: TransactionSession, how: string): void {
    this.#ended.set(tx.id, { token: tx.client.token, how });
    if (this.#ended.size > ENDED_KEPT) this.#ended.delete(this.#ended.keys().next().value!);
  }

  /** The listed open transaction `id`, if any. */
  get(id: string): TransactionSession | undefined {
    const tx = this.#listed.get(id);
    return tx?.open ? tx : undefined;
  }

  /**
   * Ends `tx`: commits it (`commit`; rejects with the commit's error, the transaction then
   * being rolled back) or rolls it back, then releases it. Idempotent for rollbacks. `how`
   * says why it ended, for later requests naming a listed one (endedHow).
   */
  async end(
    tx: TransactionSession,
    commit: boolean,
    how = commit ? 'committed' : 'rolled back',
  ): Promise<void> {
    if (!tx.open) return;
    tx.markEnded();
    const listed = this.#listed.delete(tx.id);
    if (listed) this.#recordEnd(tx, how);
    let failure: unknown;
    if (commit) {
      try {
        await tx.lease.slot.runInSession('COMMIT');
      } catch (error) {
        failure = error;
        if (listed) this.#recordEnd(tx, 'rolled back because its commit failed');
      }
    }
    await tx.release();
    if (failure !== undefined) throw failure;
  }

  /** Rolls back every listed transaction (the service stops); later ones cannot begin. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await this.rollbackAll();
  }

  /** Rolls back every listed transaction, after the request each is running. */
  async rollbackAll(): Promise<void> {
    const open = [...this.#listed.values()];
    for (const tx of open) {
      tx.markEnded();
      this.#recordEnd(tx, 'rolled back because the service stopped');
    }
    await Promise.all(
      open.map(async (tx) => {
        await tx.settled();
        this.#listed.delete(tx.id);
        await tx.release();
      }),
    );
  }

  /** Lets transactions begin again (a stopped service that starts again). */
  reopen(): void {
    this.#closed = false;
  }
}
