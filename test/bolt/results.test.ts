// heldBytes (src/bolt/results.ts): the estimate that bounds a Bolt result read into memory.
import { describe, expect, it } from 'vitest';
import { heldBytes } from '../../src/bolt/results.js';

describe('heldBytes', () => {
  it('counts scalars, strings, bytes, lists and maps', () => {
    expect(heldBytes([])).toBe(0);
    expect(heldBytes([1, null, true, 5n])).toBe(32);
    expect(heldBytes(['abcd'])).toBe(8 + 8);
    expect(heldBytes([new Uint8Array(100)])).toBe(108);
    expect(heldBytes([[1, 2]])).toBe(8 + 16);
    expect(heldBytes([{ ab: 'x' }])).toBe(8 + 4 + 8 + 2);
    expect(heldBytes([new Date(0)])).toBe(8);
  });

  it('grows with the rows and walks deep nesting without recursion', () => {
    const row = ['a name of some length', 42, { city: 'Oslo' }];
    expect(heldBytes(Array(1000).fill(row).flat())).toBe(1000 * heldBytes(row));
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(heldBytes([deep])).toBe(200_001 * 8 + 8);
  });
});
