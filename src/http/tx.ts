// Explicit transactions over HTTP (docs/http-api.md, "Explicit transactions"), in the style of
// Neo4j's Query API: POST /tx opens one, POST /tx/{id} runs a statement in it, POST
// /tx/{id}/commit commits it, DELETE /tx/{id} rolls it back.

import type { Hono, MiddlewareHandler } from 'hono';
import { GraphDBError } from '../core/errors.js';
import { accessModeWithin, isAccessMode, isReadOnly, ROLE_MOST_ACCESS } from '../runtime/access.js';
import type { Client } from '../runtime/auth.js';
import type { ExecutionSlotLease } from '../runtime/pool.js';
import { type TransactionRegistry, type TransactionSession, TxGoneError } from '../runtime/session.js';
import type { HttpRuntime } from './context.js';
import { executeCancellable } from './cypher.js';
import { type Ctx, type Env, header } from './env.js';
import { errorResponse, jsonHeaders, replyForError, responseForError } from './errors.js';
import { streamResult, wantsNdjson } from './ndjson.js';

/** What the app (app.ts) lends the transaction routes. */
export interface RouteKit {
  runtime: HttpRuntime;
  /** The token check (401 without a valid one when the service has tokens); sets `client`. */
  authenticated: MiddlewareHandler<Env>;
  /** Counts the request as in flight while `handle` runs. */
  tracked(handle: () => Promise<Response>): Promise<Response>;
  /** A slot lease for the request (waiting in the pool's queue), or the error response. */
  lease(c: Ctx): Promise<ExecutionSlotLease | Response>;
  /** The request body (within maxBodyBytes), or the error response. */
  readBody(c: Ctx): Promise<string | Response>;
  /** The 503 of a service that is stopping or closed. */
  unavailable(): Response;
  /** The UNSUPPORTED_MEDIA_TYPE response for a body not sent as JSON, or null. */
  requireJson(c: Ctx, what: string): Response | null;
  /** The answer to OPTIONS on a path allowing `allow`. */
  options(c: Ctx, allow: string): Response;
}

const TX_ROUTES: ReadonlyArray<[path: string, allow: string]> = [
  ['/tx', 'POST, OPTIONS'],
  ['/tx/:id', 'POST, DELETE, OPTIONS'],
  ['/tx/:id/commit', 'POST, OPTIONS'],
];

function notFound(id: string, transactions: TransactionRegistry, client: Client): Response {
  const how = transactions.endedHow(id, client);
  return errorResponse(
    'TX_NOT_FOUND',
    how
      ? `transaction ${JSON.stringify(id)} is no longer open: it was ${how}`
      : `no open transaction ${JSON.stringify(id)}: it was committed, rolled back or expired (idle transactions roll back), or never existed`,
  );
}

/**
 * The answer to a statement that failed in transaction `tx`; when the failure ended the
 * transaction (a failure while executing rolls it back), the message says so.
 */
function failedInTransaction(error: unknown, tx: TransactionSession): Response {
  if (tx.open || !(error instanceof GraphDBError)) return responseForError(error);
  const reply = replyForError(error);
  const body = JSON.parse(reply.body) as { error: { message: string } };
  body.error.message += ' (the transaction was rolled back)';
  return new Response(JSON.stringify(body), { status: reply.status, headers: reply.headers });
}

function describe(tx: TransactionSession): string {
  return JSON.stringify({ id: tx.id, expiresAt: new Date(tx.expiresAt).toISOString() });
}

/** POST /tx: opens a transaction, 201 {"id","expiresAt"}. */
async function begin(
  c: Ctx,
  kit: RouteKit,
  transactions: TransactionRegistry,
  client: Client,
): Promise<Response> {
  const { runtime } = kit;
  if (!runtime.accepting) return kit.unavailable();
  const body = await kit.readBody(c);
  if (typeof body !== 'string') return body;
  let accessMode: string | undefined;
  if (body.trim() !== '') {
    const notJson = kit.requireJson(c, 'POST /tx');
    if (notJson) return notJson;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      return errorResponse('INVALID_REQUEST', `the request body is not JSON: ${(error as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return errorResponse('INVALID_REQUEST', 'the request body must be a JSON object: {"access_mode"?}');
    }
    const mode = (parsed as Record<string, unknown>).access_mode;
    // null names no mode, as in a statement's body: all the role allows.
    if (mode !== undefined && mode !== null) {
      if (!isAccessMode(mode)) {
        return errorResponse(
          'INVALID_REQUEST',
          `access_mode must be one of "read", "insert", "update", "schema" (or r, i, u, s), got ${JSON.stringify(mode)}`,
        );
      }
      accessMode = mode;
    }
  }
  // A transaction runs under its client's role: a reader's is READ ONLY.
  const most = ROLE_MOST_ACCESS[client.role];
  if (accessMode !== undefined && !accessModeWithin(accessMode, most)) {
    return errorResponse(
      'FORBIDDEN',
      `the transaction asks for access_mode '${accessMode}' but its client's role allows at most '${most}'`,
    );
  }
  if (accessMode === undefined && isReadOnly(most)) accessMode = most;
  if (!(await transactions.reserveWhenFree())) {
    return errorResponse(
      'SERVICE_UNAVAILABLE',
      `too many open transactions: at most ${transactions.maxOpen} may be open at once (maxOpenTransactions); commit or roll back one first`,
    );
  }
  let lease: ExecutionSlotLease | Response;
  try {
    lease = await kit.lease(c);
  } catch (error) {
    transactions.unreserve();
    throw error;
  }
  if (lease instanceof Response) {
    transactions.unreserve();
    return lease;
  }
  try {
    const tx = await transactions.begin(lease, { accessMode, client });
    return new Response(describe(tx), { status: 201, headers: jsonHeaders({ location: `/tx/${tx.id}` }) });
  } catch (error) {
    if (error instanceof TxGoneError) return kit.unavailable();
    return responseForError(error);
  }
}

/**
 * The request body with the transaction's access mode applied: a request naming none (or
 * null, which names none) runs under the transaction's; one naming more than it allows is
 * refused. Bodies that are not a JSON object go through as they are (the engine names what is
 * wrong).
 */
function withAccessMode(body: string, tx: TransactionSession): string | Response {
  const limit = tx.accessMode;
  if (limit === undefined) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return body;
  const request = parsed as Record<string, unknown>;
  const mode = request.access_mode;
  if (mode === undefined || mode === null) {
    // The field goes in as text: serializing the parsed body again would recurse once per
    // level of its nesting, and a body nested some thousands deep overflowed the stack (500).
    // It goes in last, after any access_mode the body holds (null, or repeated keys): the
    // engine, as JSON.parse, takes a field's last value, so null cannot widen the transaction.
    const end = body.lastIndexOf('}');
    const separator = Object.keys(request).length === 0 ? '' : ',';
    return `${body.slice(0, end)}${separator}"access_mode":${JSON.stringify(limit)}}`;
  }
  if (isAccessMode(mode) && !accessModeWithin(mode, limit)) {
    return errorResponse(
      'ACCESS_MODE_VIOLATION',
      `the request asks for access_mode '${mode}' but its transaction was opened with '${limit}'`,
    );
  }
  return body;
}

/** POST /tx/{id}: runs one statement in the transaction (as /cypher answers, NDJSON too). */
/** The open transaction `id` if `client` opened it (another client's is not found either). */
function transactionOf(
  transactions: TransactionRegistry,
  id: string,
  client: Client,
): TransactionSession | undefined {
  const tx = transactions.get(id);
  return tx && tx.client.token === client.token ? tx : undefined;
}

async function run(
  c: Ctx,
  kit: RouteKit,
  transactions: TransactionRegistry,
  client: Client,
): Promise<Response> {
  const { runtime } = kit;
  if (!runtime.accepting) return kit.unavailable();
  const id = c.req.param('id') ?? '';
  if (!transactionOf(transactions, id, client)) return notFound(id, transactions, client);
  const notJson = kit.requireJson(c, 'POST /tx/{id}');
  if (notJson) return notJson;
  const body = await kit.readBody(c);
  if (typeof body !== 'string') return body;
  const tx = transactionOf(transactions, id, client);
  if (!tx) return notFound(id, transactions, client);
  const request = withAccessMode(body, tx);
  const mostAccess = ROLE_MOST_ACCESS[tx.client.role];
  if (request instanceof Response) return request;
  const streamed = wantsNdjson(header(c, 'accept'));
  const outgoing = c.env?.outgoing;
  const signal = outgoing ? undefined : c.req.raw.signal;
  try {
    return await tx.run(async () => {
      let finished!: () => void;
      const ended = new Promise<void>((resolve) => {
        finished = resolve;
      });
      if (streamed) {
        const answer = await streamResult(
          runtime,
          tx.lease,
          request,
          true,
          { outgoing, signal, mostAccess },
          finished,
        );
        return { answer, finished: ended };
      }
      try {
        const json = await executeInTransaction(tx, request, outgoing, signal);
        return {
          answer: new Response(json, { status: 200, headers: jsonHeaders() }),
          finished: Promise.resolve(),
        };
      } finally {
        finished();
      }
    });
  } catch (error) {
    if (error instanceof TxGoneError) return notFound(id, transactions, client);
    return failedInTransaction(error, tx);
  }
}

/** Runs `request` on the transaction's slot; a client that goes away cancels it. */
function executeInTransaction(
  tx: TransactionSession,
  request: string,
  outgoing: NonNullable<Ctx['env']>['outgoing'],
  signal: AbortSignal | undefined,
): Promise<string> {
  return executeCancellable(tx.lease.slot, request, true, ROLE_MOST_ACCESS[tx.client.role], outgoing, signal);
}

/** POST /tx/{id}/commit and DELETE /tx/{id}. */
async function finish(
  c: Ctx,
  transactions: TransactionRegistry,
  client: Client,
  commit: boolean,
): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const tx = transactionOf(transactions, id, client);
  if (!tx) return notFound(id, transactions, client);
  try {
    // After the requests already queued on it.
    await tx.run(async () => ({ answer: undefined, finished: Promise.resolve() }));
    await transactions.end(tx, commit);
  } catch (error) {
    if (error instanceof TxGoneError) return notFound(id, transactions, client);
    return responseForError(error);
  }
  return new Response(JSON.stringify({ id, status: commit ? 'committed' : 'rolled_back' }), {
    status: 200,
    headers: jsonHeaders(),
  });
}

/** Mounts the /tx routes on `app`. */
export function mountTransactions(app: Hono<Env>, kit: RouteKit): void {
  const transactions = kit.runtime.transactions;
  const { authenticated } = kit;
  app.post('/tx', authenticated, (c) => kit.tracked(() => begin(c, kit, transactions, c.get('client'))));
  app.post('/tx/:id/commit', authenticated, (c) =>
    kit.tracked(() => finish(c, transactions, c.get('client'), true)),
  );
  app.post('/tx/:id', authenticated, (c) => kit.tracked(() => run(c, kit, transactions, c.get('client'))));
  app.delete('/tx/:id', authenticated, (c) =>
    kit.tracked(() => finish(c, transactions, c.get('client'), false)),
  );
  for (const [path, allow] of TX_ROUTES) {
    app.all(path, (c) =>
      c.req.method === 'OPTIONS'
        ? kit.options(c, allow)
        : errorResponse(
            'METHOD_NOT_ALLOWED',
            `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allow})`,
            {
              headers: { allow },
            },
          ),
    );
  }
}
