// What the fuzz suites share: how many runs to make (env), where to write their counts for
// scripts/fuzz.mjs, and the contract's error shape every error answer must have.

import fs from 'node:fs';
import fc from 'fast-check';
import { HTTP_STATUS } from '../../src/http/errors.js';

/**
 * Runs of a suite: GRAPHDB_FUZZ_<KIND> (REQUESTS or QUERIES), else GRAPHDB_FUZZ_RUNS, else
 * `fallback` (small enough for `npm test`).
 */
export function fuzzRuns(kind: 'requests' | 'queries', fallback: number): number {
  const raw = process.env[`GRAPHDB_FUZZ_${kind.toUpperCase()}`] ?? process.env.GRAPHDB_FUZZ_RUNS;
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`GRAPHDB_FUZZ_${kind.toUpperCase()} / GRAPHDB_FUZZ_RUNS must be a positive integer`);
  }
  return value;
}

/** fast-check's seed from GRAPHDB_FUZZ_SEED (to replay a failure), else a fresh one. */
export function fuzzSeed(): number | undefined {
  const raw = process.env.GRAPHDB_FUZZ_SEED;
  return raw === undefined || raw === '' ? undefined : Number(raw);
}

/**
 * The bearer token (GRAPHDB_FUZZ_TOKEN, at least 16 characters): the suites' services then
 * require it (as an admin's) and their requests send it.
 */
export function fuzzToken(): string | undefined {
  return process.env.GRAPHDB_FUZZ_TOKEN || undefined;
}

/** The ServiceConfig fields that make a service require `token` (as an admin's), if any. */
export function serviceAuth(token: string | undefined): {
  auth?: { tokens: { token: string; role: 'admin' }[] };
} {
  return token === undefined ? {} : { auth: { tokens: [{ token, role: 'admin' }] } };
}

export function authHeaders(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/**
 * Adds a suite's counts to the JSON-lines file GRAPHDB_FUZZ_REPORT names (scripts/fuzz.mjs
 * reads it); does nothing without it.
 */
export function reportCounts(suite: string, counts: Record<string, unknown>): void {
  const file = process.env.GRAPHDB_FUZZ_REPORT;
  if (!file) return;
  fs.appendFileSync(file, `${JSON.stringify({ suite, ...counts })}\n`);
}

/** Every code of the contract's error table (src/http/errors.ts). */
export const KNOWN_CODES: ReadonlySet<string> = new Set(Object.keys(HTTP_STATUS));

/**
 * The 5xx answers the contract allows a client to cause: overload or stopping (503) and valid
 * Cypher the engine does not run yet (501).
 */
const ALLOWED_5XX: Readonly<Record<string, number>> = {
  SERVICE_UNAVAILABLE: 503,
  QUERY_CANCELLED: 503,
  NOT_SUPPORTED: 501,
};

/**
 * What is wrong with an answer of the GraphDB app (null when nothing): a 5xx other than those
 * above, an error body that is not `{"error": {"code", "message", "line"?, "column"?}}` with a
 * known code whose status is the answer's, or a 2xx that is not JSON where JSON is due.
 */
export function contractViolation(
  status: number,
  contentType: string | undefined,
  body: string,
): string | null {
  if (status >= 200 && status < 300) return null;
  if (status === 304 || status === 308) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `status ${status} with a body that is not JSON: ${JSON.stringify(body.slice(0, 200))}`;
  }
  if (!contentType?.startsWith('application/json')) {
    return `status ${status} with Content-Type ${JSON.stringify(contentType)}`;
  }
  const error = (parsed as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  if (parsed === null || typeof parsed !== 'object' || Object.keys(parsed).length !== 1 || !error) {
    return `status ${status} with a body that is not {"error": ...}: ${body.slice(0, 200)}`;
  }
  const { code, message, line, column, ...rest } = error;
  if (typeof code !== 'string' || !KNOWN_CODES.has(code)) return `unknown error code ${JSON.stringify(code)}`;
  if (typeof message !== 'string' || message.length === 0) return `error ${code} without a message`;
  if (Object.keys(rest).length > 0) return `error ${code} with extra fields ${Object.keys(rest).join(', ')}`;
  for (const [name, value] of [
    ['line', line],
    ['column', column],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 1)) {
      return `error ${code} with ${name} ${JSON.stringify(value)}`;
    }
  }
  const expected = HTTP_STATUS[code as keyof typeof HTTP_STATUS];
  if (status !== expected)
    return `error ${code} answered with status ${status}, the contract says ${expected}`;
  if (status >= 500 && ALLOWED_5XX[code] !== status) {
    return `server error ${status} ${code}: ${String(message).slice(0, 300)}`;
  }
  return null;
}

/** The codes a statement may fail with (everything but the bugs: INTERNAL, IO_ERROR, CORRUPTION). */
export const STATEMENT_CODES: ReadonlySet<string> = new Set([
  'INVALID_REQUEST',
  'QUERY_SYNTAX',
  'QUERY_BINDING',
  'ACCESS_MODE_VIOLATION',
  // Over the service: a statement that names a server file without an import folder.
  'FORBIDDEN',
  'QUERY_RUNTIME',
  'CONSTRAINT_VIOLATION',
  'TX_CONFLICT',
  'QUERY_TIMEOUT',
  'QUERY_CANCELLED',
  'RESOURCE_LIMIT',
  'NOT_SUPPORTED',
]);

/** Tallies of answers by a key (status or code), printed by the suites and the fuzz script. */
export class Tally {
  readonly counts = new Map<string, number>();
  total = 0;

  add(key: string | number): void {
    const k = String(key);
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    this.total++;
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** Rejects with a clear message when `promise` takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`hang: ${what} took longer than ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * fast-check's options for `runs` runs (the seed from GRAPHDB_FUZZ_SEED), with a reporter that
 * cuts the failure report's long lines (a counterexample may hold a 40 kB header).
 */
export function fuzzSettings<Ts>(runs: number): fc.Parameters<Ts> {
  return {
    numRuns: Math.max(1, Math.round(runs)),
    seed: fuzzSeed(),
    reporter(details) {
      if (!details.failed) return;
      const message = fc.defaultReportMessage(details) ?? 'property failed';
      const cut = message
        .split('\n')
        .map((line) => (line.length > 3000 ? `${line.slice(0, 3000)}... (${line.length} chars)` : line))
        .join('\n');
      const error = new Error(cut);
      if (details.errorInstance instanceof Error) error.cause = details.errorInstance;
      throw error;
    },
  };
}

/**
 * With GRAPHDB_FUZZ_CONTINUE=1 (what `npm run fuzz` sets) a failing run is recorded and the
 * suite goes on, so that one long run reports every distinct failure (by its message, digits
 * and quoted text aside) with a few of its inputs; without it the first failure stops the
 * property and fast-check shrinks it.
 */
export const CONTINUE_ON_FAILURE = process.env.GRAPHDB_FUZZ_CONTINUE === '1';

interface Finding {
  signature: string;
  count: number;
  examples: string[];
}

export class Findings {
  readonly #bySignature = new Map<string, Finding>();

  get size(): number {
    return this.#bySignature.size;
  }

  add(error: unknown, input: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    // The kind of failure, not its input: the first line, without the request it names.
    const signature = (message.split('\n')[0] ?? '')
      .replace(/ for \{.*$/, '')
      .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '…')
      .replace(/\d+/g, 'N')
      .slice(0, 240);
    const finding = this.#bySignature.get(signature) ?? { signature, count: 0, examples: [] };
    finding.count++;
    if (finding.examples.length < 3) {
      const text = JSON.stringify(input, (_, v) => (Buffer.isBuffer(v) ? v.toString('latin1') : v)) ?? '';
      finding.examples.push(`${message.slice(0, 600)}\n    input: ${text.slice(0, 1500)}`);
    }
    this.#bySignature.set(signature, finding);
  }

  toJSON(): Finding[] {
    return [...this.#bySignature.values()];
  }

  /** Fails the test with every finding (when continuing past failures). */
  throwIfAny(what: string): void {
    if (this.#bySignature.size === 0) return;
    const lines = [...this.#bySignature.values()].map(
      (f) => `- ${f.count}x ${f.signature}\n  ${f.examples.join('\n  ')}`,
    );
    throw new Error(`${what}: ${this.#bySignature.size} distinct failures\n${lines.join('\n')}`);
  }
}

/** The predicate as is, or (continuing past failures) one that records its failures in `findings`. */
export function collecting<Args extends unknown[]>(
  findings: Findings,
  predicate: (...args: Args) => Promise<void>,
): (...args: Args) => Promise<void> {
  if (!CONTINUE_ON_FAILURE) return predicate;
  return async (...args: Args) => {
    try {
      await predicate(...args);
    } catch (error) {
      findings.add(error, args);
    }
  };
}

/**
 * Open engine defects the fuzz suites found (test/fuzz/found-defects.test.ts holds their repros
 * as it.fails), by the statements that trigger them. Such statements are counted and not run,
 * so that the suites look past them (and one of these takes all the memory of the process);
 * GRAPHDB_FUZZ_SKIP_KNOWN=0 (`npm run fuzz -- --include-known`) runs them too. When a fix
 * lands, its entry goes, and so does the `.fails` of its repro.
 */
export const KNOWN_DEFECTS: readonly { name: string; pattern: RegExp }[] = [
  // None open. (Found and fixed: the top-k SKIP/LIMIT wrap-around near 2^63 and unbounded
  // repeat/lpad/rpad; test/fuzz/found-defects.test.ts keeps their repros.)
];

export const SKIP_KNOWN_DEFECTS = process.env.GRAPHDB_FUZZ_SKIP_KNOWN !== '0';

/** The known defect `query` would trigger, when known defects are skipped; else null. */
export function knownDefect(query: string): string | null {
  if (!SKIP_KNOWN_DEFECTS) return null;
  return KNOWN_DEFECTS.find((d) => d.pattern.test(query))?.name ?? null;
}
