// A small seeded PRNG (mulberry32) so generated data and parameters are identical on every run.

export function createRng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in [0, n). */
    int: (n) => Math.floor(next() * n),
    /** An element of a non-empty array. */
    pick: (items) => items[Math.floor(next() * items.length)],
  };
}
