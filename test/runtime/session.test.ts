// TransactionRegistry's places: a transaction about to begin when every place is taken waits
// for the places ended transactions are still giving back (reserveWhenFree), up to a bound.
import { describe, expect, it } from 'vitest';
import type { ExecutionSlotLease } from '../../src/runtime/pool.js';
import { TransactionRegistry } from '../../src/runtime/session.js';

/** A lease whose slot's session reset (an end's last step) waits until `finishReset()`. */
function slowResetLease(): { lease: ExecutionSlotLease; finishReset: () => void } {
  let finishReset!: () => void;
  const reset = new Promise<void>((resolve) => {
    finishReset = resolve;
  });
  const lease = {
    released: false,
    slot: {
      inTransaction: true,
      runInSession: async () => {},
      resetSession: () => reset,
    },
    release() {
      lease.released = true;
    },
  };
  return { lease: lease as unknown as ExecutionSlotLease, finishReset };
}

/** A registry of one place, held by a transaction that expired and is still being reset. */
async function expiringTransaction() {
  const registry = new TransactionRegistry(60_000, 1);
  const { lease, finishReset } = slowResetLease();
  expect(registry.reserve()).toBe(true);
  const tx = await registry.begin(lease);
  tx.expire('a test expired it');
  expect(tx.open).toBe(false);
  return { registry, lease, finishReset, tx };
}

describe('TransactionRegistry places', () => {
  it('a begin waits for the place an expiring transaction is giving back', async () => {
    const { registry, lease, finishReset } = await expiringTransaction();
    // The rollback is still resetting the slot: the place is taken.
    expect(registry.reserve()).toBe(false);
    let reserved: boolean | undefined;
    const waiting = registry.reserveWhenFree(5_000).then((ok) => {
      reserved = ok;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reserved).toBeUndefined();
    finishReset();
    await waiting;
    expect(reserved).toBe(true);
    expect(lease.released).toBe(true);
  });

  it('gives up after its bound while the place is still being given back', async () => {
    const { registry, finishReset, tx } = await expiringTransaction();
    const started = performance.now();
    expect(await registry.reserveWhenFree(50)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    finishReset();
    await tx.release();
    expect(registry.reserve()).toBe(true);
  });

  it('refuses at once when every place is held by an open transaction', async () => {
    const registry = new TransactionRegistry(60_000, 1);
    const { lease } = slowResetLease();
    expect(registry.reserve()).toBe(true);
    const tx = await registry.begin(lease);
    const started = performance.now();
    expect(await registry.reserveWhenFree(5_000)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(tx.open).toBe(true);
  });
});
