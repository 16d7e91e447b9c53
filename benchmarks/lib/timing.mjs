// Timed loops: each connection runs one operation at a time (each awaited) until the deadline;
// the warm-up runs the same loop untimed first. `op(conn, index)` resolves to the number of
// rows it returned, summed over the timed window.
//
// The clock is read once per operation: the time an operation ends is the next one's start
// (and is checked against the deadline). A clock read costs ~0.1 µs here, a noticeable share
// of the shortest operations, and is the same for every system.

export async function timedLoop(connections, op, { warmupMs, durationMs }) {
  const run = async (deadline, latencies) => {
    const totals = await Promise.all(
      connections.map(async (conn, index) => {
        let count = 0;
        let rows = 0;
        let started = performance.now();
        while (started < deadline) {
          rows += await op(conn, index);
          const ended = performance.now();
          latencies?.push(ended - started);
          started = ended;
          count++;
        }
        return { count, rows };
      }),
    );
    return {
      ops: totals.reduce((n, t) => n + t.count, 0),
      rows: totals.reduce((n, t) => n + t.rows, 0),
    };
  };
  await run(performance.now() + warmupMs, null);
  const latencies = [];
  const started = performance.now();
  const { ops, rows } = await run(started + durationMs, latencies);
  const seconds = (performance.now() - started) / 1000;
  return { ops, rows, seconds, opsPerSec: ops / seconds, ...latencySummary(latencies) };
}

export function latencySummary(latencies) {
  if (latencies.length === 0) return {};
  const sorted = Float64Array.from(latencies).sort();
  const at = (q) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))], 3);
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}

export function round(value, digits = 2) {
  if (value === null || value === undefined || !Number.isFinite(value)) return value ?? null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
