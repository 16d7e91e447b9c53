// Property-based fuzzing of query text (issue 18, "Fuzzing and soak"): statements generated from
// a grammar over a small schema (test/fuzz/cypher-gen.ts) and byte-level mutations of them, run
// through the embedded API and over HTTP under a time limit, beside transfers between Vault
// accounts. Properties: every statement ends in a result or a GraphDBError with a known code
// that is not a bug (never INTERNAL, IO_ERROR or CORRUPTION, never a 500, never a crash), within
// its time limit plus slack; the Vault's total is conserved; primary keys stay unique and each
// relationship is seen from both ends; a rolled-back statement leaves the data as it was; the
// service still answers a known query and holds no slot afterwards.
//
// Runs: GRAPHDB_FUZZ_QUERIES (or GRAPHDB_FUZZ_RUNS), default 800 statements; `npm run fuzz`
// runs 100,000. GRAPHDB_FUZZ_SEED replays a run; GRAPHDB_FUZZ_TOKEN sends a bearer token.

import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database, GraphDBError, GraphDBService } from '../../src/index.js';
import { waitFor } from '../runtime/helpers.js';
import {
  CONSISTENCY_CHECKS,
  generatedQuery,
  mutatedQuery,
  queryParams,
  SCHEMA,
  SNAPSHOT,
  TRIM,
  transferArb,
  VAULT_CHECK,
  VAULT_EXPECTED,
} from './cypher-gen.js';
import {
  authHeaders,
  collecting,
  contractViolation,
  Findings,
  fuzzRuns,
  fuzzSettings,
  fuzzToken,
  knownDefect,
  reportCounts,
  STATEMENT_CODES,
  serviceAuth,
  Tally,
  within,
} from './support.js';

const QUERIES = fuzzRuns('queries', 800);
const TOKEN = fuzzToken();
/** Each statement's time limit, and the slack a loaded machine gets on top before it is a hang. */
const LIMIT_MS = 1000;
const SLACK_MS = 4000;
/** Checks and trimming every this many runs of a property. */
const CHECK_EVERY = 100;
const LIMITS = { maxStatementMemoryBytes: 64 * 1024 * 1024, maxResultBytes: 16 * 1024 * 1024 };

const outcomes = new Tally();
const allFindings: Findings[] = [];
const counts = { embedded: 0, embeddedMutated: 0, http: 0, httpMutated: 0, transfers: 0, checks: 0 };
const started = Date.now();
/** GRAPHDB_FUZZ_TRACE names a file that gets each statement before it runs. */
const TRACE = process.env.GRAPHDB_FUZZ_TRACE;
function trace(kind: string, query: string, params?: unknown): void {
  if (TRACE)
    fs.appendFileSync(
      TRACE,
      `${Date.now()} ${kind} ${JSON.stringify(query)} ${JSON.stringify(params) ?? ''}\n`,
    );
}

afterAll(() => {
  reportCounts('queries', {
    queries: counts.embedded + counts.embeddedMutated + counts.http + counts.httpMutated,
    ...counts,
    outcomes: outcomes.toJSON(),
    findings: allFindings.flatMap((f) => f.toJSON()),
    ms: Date.now() - started,
  });
});

const timeFor = (runs: number) => 60_000 + Math.round(runs) * 300;

/**
 * What a statement ended with: its error code, or TypeError for parameters the embedded API
 * refuses before the engine sees them (a list mixing types); anything else fails the run.
 */
function outcomeOf(error: unknown, what: string): string {
  if (error instanceof GraphDBError && STATEMENT_CODES.has(error.code)) return error.code;
  if (error instanceof TypeError && /parameter/.test(error.message)) return 'TypeError';
  if (error instanceof GraphDBError) {
    throw new Error(`${what} failed with ${error.code}: ${error.message}`, { cause: error });
  }
  throw error;
}

describe('query fuzzing through the embedded API', () => {
  let db: Database;
  let conn: Connection;

  beforeAll(async () => {
    db = new Database(':memory:', { maxThreadNum: 2, ...LIMITS });
    conn = db.connect();
    for (const query of SCHEMA) await conn.query(query);
  });

  afterAll(() => {
    db?.close();
  });

  /** Runs a statement under the time limit; its outcome, or a thrown failure. */
  async function run(
    query: string,
    params: Record<string, unknown> = {},
    timeoutMs = LIMIT_MS,
  ): Promise<string> {
    trace('embedded', query, params);
    const known = knownDefect(query);
    if (known) return `skipped (${known})`;
    try {
      await within(conn.query(query, params, { timeoutMs }), timeoutMs + SLACK_MS, `the statement ${query}`);
      return 'ok';
    } catch (error) {
      return outcomeOf(error, `the statement ${JSON.stringify(query)}`);
    }
  }

  async function rows(query: string): Promise<unknown[][]> {
    return (await conn.query(query)).rows as unknown[][];
  }

  async function checkInvariants(): Promise<void> {
    counts.checks++;
    const [vault] = await rows(VAULT_CHECK);
    expect({ n: vault![0], total: vault![1] }, 'the Vault total').toEqual(VAULT_EXPECTED);
    for (const [left, right] of CONSISTENCY_CHECKS) {
      expect(await rows(left), `${left} against ${right}`).toEqual(await rows(right));
    }
    for (const trim of TRIM) await conn.query(trim);
  }

  it(
    'answers generated statements with a result or a known error, keeping the invariants',
    async () => {
      let n = 0;
      const findings = new Findings();
      allFindings.push(findings);
      await fc.assert(
        fc.asyncProperty(
          generatedQuery,
          queryParams,
          fc.option(transferArb, { nil: undefined }),
          collecting(findings, async (query, params, transfer) => {
            counts.embedded++;
            outcomes.add(await run(query, params));
            if (transfer) {
              counts.transfers++;
              outcomes.add(
                `transfer ${await run(transfer.query, transfer.params, transfer.timeoutMs ?? LIMIT_MS)}`,
              );
            }
            if (++n % CHECK_EVERY === 0) await checkInvariants();
          }),
        ),
        fuzzSettings(QUERIES * 0.35),
      );
      findings.throwIfAny('the property');
      await checkInvariants();
    },
    timeFor(QUERIES * 0.35),
  );

  it(
    'answers mutated statements, and rolling them back restores the data',
    async () => {
      let n = 0;
      const findings = new Findings();
      allFindings.push(findings);
      await fc.assert(
        fc.asyncProperty(
          mutatedQuery,
          queryParams,
          collecting(findings, async (query, params) => {
            counts.embeddedMutated++;
            const snapshot = async () => Promise.all(SNAPSHOT.map((q) => rows(q)));
            const before = await snapshot();
            await conn.query('BEGIN TRANSACTION');
            try {
              outcomes.add(`mutated ${await run(query, params)}`);
            } finally {
              // A failed statement may have ended the transaction already.
              outcomes.add(`rollback ${await run('ROLLBACK')}`);
            }
            expect(await snapshot(), `after rolling back ${JSON.stringify(query)}`).toEqual(before);
            if (++n % CHECK_EVERY === 0) await checkInvariants();
          }),
        ),
        fuzzSettings(QUERIES * 0.15),
      );
      findings.throwIfAny('the property');
      await checkInvariants();
      expect((await rows('RETURN 40 + 2'))[0]).toEqual([42]);
    },
    timeFor(QUERIES * 0.15),
  );
});

describe('query fuzzing over HTTP', () => {
  let db: Database;
  let service: GraphDBService;
  let url: string;

  beforeAll(async () => {
    db = new Database(':memory:', { maxThreadNum: 2 });
    service = new GraphDBService(db, {
      queryPort: 0,
      autoCompaction: false,
      queryTimeoutMs: LIMIT_MS * 2,
      ...serviceAuth(TOKEN),
      ...LIMITS,
    });
    url = await service.start();
    for (const query of SCHEMA) expect((await post({ query })).status).toBe(200);
  });

  afterAll(async () => {
    await service?.close();
    db?.close();
  });

  async function post(
    body: Record<string, unknown>,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await within(
      fetch(`${url}/cypher`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(TOKEN) },
        body: JSON.stringify(body),
      }),
      LIMIT_MS + SLACK_MS,
      `POST /cypher ${JSON.stringify(body).slice(0, 300)}`,
    );
    const text = await response.text();
    const violation = contractViolation(
      response.status,
      response.headers.get('content-type') ?? undefined,
      text,
    );
    expect(violation, `${violation} for ${JSON.stringify(body).slice(0, 500)}`).toBeNull();
    return { status: response.status, json: JSON.parse(text) as Record<string, unknown> };
  }

  /** 'ok' or the error's code, which must be a statement's (no 5xx but NOT_SUPPORTED). */
  async function run(body: Record<string, unknown>): Promise<string> {
    trace('http', String(body.query), body);
    const known = knownDefect(String(body.query));
    if (known) return `skipped (${known})`;
    const { status, json } = await post(body);
    if (status === 200) return 'ok';
    const code = (json.error as { code: string }).code;
    expect(
      STATEMENT_CODES.has(code) && code !== 'QUERY_CANCELLED',
      `${code} for ${JSON.stringify(body)}`,
    ).toBe(true);
    return code;
  }

  async function rows(query: string): Promise<unknown[][]> {
    const { status, json } = await post({ query });
    expect(status, JSON.stringify(json)).toBe(200);
    return json.rows as unknown[][];
  }

  async function checkInvariants(): Promise<void> {
    counts.checks++;
    const [vault] = await rows(VAULT_CHECK);
    expect({ n: vault![0], total: vault![1] }, 'the Vault total').toEqual(VAULT_EXPECTED);
    for (const [left, right] of CONSISTENCY_CHECKS) {
      expect(await rows(left), `${left} against ${right}`).toEqual(await rows(right));
    }
    for (const trim of TRIM) await rows(trim);
  }

  it(
    'answers generated statements beside concurrent transfers, keeping the invariants',
    async () => {
      let n = 0;
      const findings = new Findings();
      allFindings.push(findings);
      await fc.assert(
        fc.asyncProperty(
          generatedQuery,
          queryParams,
          fc.option(transferArb, { nil: undefined }),
          collecting(findings, async (query, params, transfer) => {
            counts.http++;
            const statement = run({ query, parameters: params, timeout_ms: LIMIT_MS });
            const transferred = transfer
              ? run({
                  query: transfer.query,
                  parameters: transfer.params,
                  timeout_ms: transfer.timeoutMs ?? LIMIT_MS,
                })
              : undefined;
            outcomes.add(`http ${await statement}`);
            if (transferred) {
              counts.transfers++;
              outcomes.add(`http transfer ${await transferred}`);
            }
            if (++n % CHECK_EVERY === 0) await checkInvariants();
          }),
        ),
        fuzzSettings(QUERIES * 0.35),
      );
      findings.throwIfAny('the property');
      await checkInvariants();
    },
    timeFor(QUERIES * 0.35),
  );

  it(
    'answers mutated statements in read mode',
    async () => {
      const findings = new Findings();
      allFindings.push(findings);
      await fc.assert(
        fc.asyncProperty(
          mutatedQuery,
          queryParams,
          collecting(findings, async (query, params) => {
            counts.httpMutated++;
            outcomes.add(
              `http mutated ${await run({ query, parameters: params, access_mode: 'read', timeout_ms: LIMIT_MS })}`,
            );
          }),
        ),
        fuzzSettings(QUERIES * 0.15),
      );
      findings.throwIfAny('the property');
      await checkInvariants();
      expect(await rows('RETURN 40 + 2 AS answer')).toEqual([[42]]);
      const pool = service.pool!;
      await waitFor(() => pool.inUse === 0 && pool.waiting === 0, SLACK_MS, 'the slots to come free');
      const status = (await (await fetch(`${url}/status`, { headers: authHeaders(TOKEN) })).json()) as {
        slots: { inUse: number; waiting: number };
      };
      expect(status.slots).toMatchObject({ inUse: 0, waiting: 0 });
    },
    timeFor(QUERIES * 0.15),
  );
});
