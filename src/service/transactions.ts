// Explicit transactions held across requests (the HTTP API's /tx endpoints, docs/http-api.md).
//
// Each open transaction holds one execution-slot lease: its statements run in that slot's
// session, where BEGIN TRANSACTION opened it. Its requests run one at a time, in order. An idle
// transaction (no request running) expires after the idle timeout and is rolled back; the
// number open at once is bounded, so transactions cannot hold every slot. Ids are 128 random
// bits.

import { randomBytes } from 'node:crypto';
import { ANONYMOUS_ADMIN, type Client } from './auth.js';
import { type ExecutionSlotLease, resetSession, runInSession, sessionInTransaction } from './pool.js';

/** The access modes a transaction (and a request) may name; see docs/http-api.md. */
const ACCESS_MODES: Readonly<Record<string, number>> = {
  read: 0,
  r: 0,
  insert: 1,
  i: 1,
  update: 2,
  u: 2,
  schema: 3,
  s: 3,
};

/** @internal Whether `mode` names an access mode. */
export function isAccessMode(mode: unknown): mode is string {
  return typeof mode === 'string' && Object.hasOwn(ACCESS_MODES, mode);
}

/** @internal Whether access mode `mode` allows what `limit` allows at most. */
export function accessModeWithin(mode: string, limit: string): boolean {
  return (ACCESS_MODES[mode] ?? 4) <= (ACCESS_MODES[limit] ?? -1);
}

/** Whether the session of `lease`'s slot still has its transaction (false once unusable). */
function stillInTransaction(lease: ExecutionSlotLease): boolean {
  try {
    return sessionInTransaction(lease.slot);
  } catch {
    return false;
  }
}

/** One open explicit transaction. */
export class OpenTransaction {
  readonly id: string;
  /** The access mode it was opened with (undefined: any). */
  readonly accessMode: string | undefined;
  readonly lease: ExecutionSlotLease;
  /** Who opened it: only requests with the same token may use it, under its role. */
  readonly client: Client;
  /** Date.now() at which it expires if no request comes. */
  expiresAt = 0;
  /** The tail of its request chain: each request runs after the previous one settled. */
  #tail: Promise<void> = Promise.resolve();
  #busy = 0;
  #timer: NodeJS.Timeout | null = null;
  #ended = false;
  readonly #registry: TransactionRegistry;

  /** @internal */
  constructor(
    registry: TransactionRegistry,
    id: string,
    lease: ExecutionSlotLease,
    accessMode: string | undefined,
    client: Client,
  ) {
    this.#registry = registry;
    this.id = id;
    this.lease = lease;
    this.accessMode = accessMode;
    this.client = client;
  }

  /** False once committed, rolled back or expired. */
  get open(): boolean {
    return !this.#ended;
  }

  /**
   * Runs `work` once the transaction's earlier requests are done, holding off expiry while it
   * runs. `work` resolves to its answer and to the promise of its end (a streamed answer ends
   * after it is returned). Rejects with TxGoneError when the transaction ended meanwhile.
   */
  run<T>(work: () => Promise<{ answer: T; finished: Promise<void> }>): Promise<T> {
    this.#busy++;
    this.#stopTimer();
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = (failure?: unknown) => {
      this.#busy--;
      if (!this.#ended) {
        // A failed statement can end the transaction in the engine (as a failed execution does
        // in Kùzu): then it is over here too, and later requests on it are told why.
        if (!stillInTransaction(this.lease)) {
          const cause = failure instanceof Error ? `: ${failure.message}` : '';
          const code = (failure as { code?: unknown } | undefined)?.code;
          void this.#registry.end(
            this,
            false,
            `rolled back because a statement in it failed${typeof code === 'string' ? ` with ${code}` : ''}${cause}`,
          );
        } else if (this.#busy === 0) this.#startTimer();
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

  /** @internal Marks it ended (no request runs on it from now on). */
  markEnded(): void {
    this.#ended = true;
    this.#stopTimer();
  }

  /** @internal (Re)starts the idle timer. */
  startTimer(): void {
    this.#startTimer();
  }

  get busy(): boolean {
    return this.#busy > 0;
  }

  #startTimer(): void {
    this.#stopTimer();
    const timeout = this.#registry.idleTimeoutMs;
    this.expiresAt = Date.now() + timeout;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#ended && this.#busy === 0) {
        void this.#registry.end(this, false, `rolled back after ${timeout} ms idle (txIdleTimeoutMs)`);
      }
    }, timeout);
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
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

/** The open explicit transactions of a service. */
export class TransactionRegistry {
  readonly idleTimeoutMs: number;
  readonly maxOpen: number;
  readonly #open = new Map<string, OpenTransaction>();
  /** How the most recently ended transactions ended, by id (at most ENDED_KEPT, oldest out first). */
  readonly #ended = new Map<string, { token: number; how: string }>();
  /** Slots being leased for transactions still beginning (counted against maxOpen). */
  #reserved = 0;
  #closed = false;

  constructor(idleTimeoutMs: number, maxOpen: number) {
    this.idleTimeoutMs = idleTimeoutMs;
    this.maxOpen = maxOpen;
  }

  /** Transactions open now. */
  get size(): number {
    return this.#open.size;
  }

  /** Takes a place for a transaction about to begin; false when maxOpen are open or beginning. */
  reserve(): boolean {
    if (this.#closed || this.#open.size + this.#reserved >= this.maxOpen) return false;
    this.#reserved++;
    return true;
  }

  /** Gives back a place taken by reserve() whose transaction did not begin. */
  unreserve(): void {
    this.#reserved--;
  }

  /**
   * Begins a transaction on `lease` (taking the place reserve() took): READ ONLY for access
   * mode read, read-write otherwise. On failure the lease is reset and released, and the place
   * given back.
   */
  async begin(
    lease: ExecutionSlotLease,
    accessMode: string | undefined,
    client: Client = ANONYMOUS_ADMIN,
  ): Promise<OpenTransaction> {
    try {
      const readOnly = accessMode !== undefined && ACCESS_MODES[accessMode] === 0;
      await runInSession(lease.slot, readOnly ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN TRANSACTION');
    } catch (error) {
      this.#reserved--;
      await resetSession(lease.slot).catch(() => undefined);
      lease.release();
      throw error;
    }
    this.#reserved--;
    const tx = new OpenTransaction(this, randomBytes(16).toString('base64url'), lease, accessMode, client);
    if (this.#closed) {
      await this.end(tx, false);
      throw new TxGoneError(tx.id);
    }
    this.#open.set(tx.id, tx);
    tx.startTimer();
    return tx;
  }

  /**
   * How transaction `id` ended ('committed', 'rolled back because a statement in it
   * failed...'), if it ended recently and `client` opened it; undefined otherwise.
   */
  endedHow(id: string, client: Client): string | undefined {
    const ended = this.#ended.get(id);
    return ended && ended.token === client.token ? ended.how : undefined;
  }

  #recordEnd(tx: OpenTransaction, how: string): void {
    this.#ended.set(tx.id, { token: tx.client.token, how });
    if (this.#ended.size > ENDED_KEPT) this.#ended.delete(this.#ended.keys().next().value!);
  }

  /** The open transaction `id`, if any. */
  get(id: string): OpenTransaction | undefined {
    const tx = this.#open.get(id);
    return tx?.open ? tx : undefined;
  }

  /**
   * Ends `tx`: commits it (`commit`; rejects with the commit's error, the transaction then
   * being rolled back) or rolls it back, then resets its slot's session and releases the lease.
   * Idempotent for rollbacks. `how` says why it ended, for later requests on it (endedHow).
   */
  async end(tx: OpenTransaction, commit: boolean, how = commit ? 'committed' : 'rolled back'): Promise<void> {
    if (!tx.open) return;
    tx.markEnded();
    this.#open.delete(tx.id);
    this.#recordEnd(tx, how);
    let failure: unknown;
    if (commit) {
      try {
        await runInSession(tx.lease.slot, 'COMMIT');
      } catch (error) {
        failure = error;
        this.#recordEnd(tx, 'rolled back because its commit failed');
      }
    }
    await resetSession(tx.lease.slot).catch(() => undefined);
    tx.lease.release();
    if (failure !== undefined) throw failure;
  }

  /** Rolls back every open transaction (the service stops); later ones cannot begin. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await this.rollbackAll();
  }

  /** Rolls back every open transaction, after the request each is running. */
  async rollbackAll(): Promise<void> {
    const open = [...this.#open.values()];
    for (const tx of open) {
      tx.markEnded();
      this.#recordEnd(tx, 'rolled back because the service stopped');
    }
    await Promise.all(
      open.map(async (tx) => {
        await tx.settled();
        this.#open.delete(tx.id);
        await resetSession(tx.lease.slot).catch(() => undefined);
        tx.lease.release();
      }),
    );
  }

  /** Lets transactions begin again (a stopped service that starts again). */
  reopen(): void {
    this.#closed = false;
  }
}
