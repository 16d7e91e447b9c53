// The steps of `POST /cypher` that the Hono route (app.ts) and the fast path of the service's own
// server (fast-cypher.ts) share: leasing a slot, reading the body, running the request. Each
// answers with a Reply (errors.ts), which the Hono route wraps in a Response and the fast path
// writes to Node's response as it is, so both send the same bytes.

import type { ServerResponse } from 'node:http';
import { GraphDBError } from '../core/errors.js';
import type { AccessModeName } from '../native/addon.js';
import type { ExecutionSlot, ExecutionSlotLease, TpExecutionSlotPool } from '../runtime/pool.js';
import { STATUS_NOT_INITED } from '../runtime/runtime.js';
import { BodyNotUtf8Error, ClientGoneError } from './body.js';
import type { HttpRuntime } from './context.js';
import { errorReply, jsonHeaders, type Reply, replyForError } from './errors.js';

/** 503 for a service that is stopping or closed. */
export function unavailableReply(runtime: HttpRuntime): Reply {
  const message = runtime.pool
    ? 'the GraphDB service is stopping'
    : `the GraphDB service is closed: ${STATUS_NOT_INITED}`;
  return errorReply('SERVICE_UNAVAILABLE', message, { headers: { connection: 'close' } });
}

/** The answer to a body that could not be read (body.ts: readBody's or collectIncoming's error). */
export function bodyErrorReply(error: unknown): Reply {
  if (error instanceof ClientGoneError || error instanceof BodyNotUtf8Error) {
    return errorReply('INVALID_REQUEST', error.message);
  }
  return errorReply('INVALID_REQUEST', `could not read the request body: ${String(error)}`);
}

/**
 * Leases a slot for an HTTP request: at once when one is free, else after waiting in the
 * bounded FIFO queue. Gives up (503) when the queue is full, the wait exceeds
 * requestTimeoutMs, or the service stops; and when the client goes away (Node's response
 * closes, or `signal` aborts when there is no Node response).
 */
export async function leaseSlot(
  runtime: HttpRuntime,
  outgoing: ServerResponse | undefined,
  signal: (() => AbortSignal | undefined) | undefined,
): Promise<ExecutionSlotLease | Reply> {
  const pool: TpExecutionSlotPool | null = runtime.pool;
  if (!pool || !runtime.accepting) return unavailableReply(runtime);
  const lease = pool.tryAcquireExecutionSlot();
  if (lease) return lease;
  const { maxWaiting, requestTimeoutMs } = runtime.limits;
  if (pool.waiting >= maxWaiting) {
    return errorReply(
      'SERVICE_UNAVAILABLE',
      `the service is overloaded: all ${pool.size} execution slots are busy and ${pool.waiting} requests are waiting`,
    );
  }
  const ticket = pool.queue();
  const untrack = runtime.requests.trackWaiter((reason) => ticket.cancel(reason));
  const onClientGone = () => ticket.cancel(new ClientGoneError());
  let clientSignal: AbortSignal | undefined;
  if (outgoing) outgoing.once('close', onClientGone);
  else {
    clientSignal = signal?.();
    clientSignal?.addEventListener('abort', onClientGone, { once: true });
  }
  const timer =
    requestTimeoutMs === undefined
      ? undefined
      : setTimeout(
          () =>
            ticket.cancel(
              new GraphDBError(
                `no execution slot became free within ${requestTimeoutMs} ms`,
                'SERVICE_UNAVAILABLE',
              ),
            ),
          requestTimeoutMs,
        );
  try {
    return await ticket.promise;
  } catch (error) {
    if (error instanceof GraphDBError) return replyForError(error);
    if (error instanceof ClientGoneError) {
      return errorReply('SERVICE_UNAVAILABLE', 'the client closed the connection');
    }
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    untrack();
    outgoing?.off('close', onClientGone);
    clientSignal?.removeEventListener('abort', onClientGone);
  }
}

/**
 * The request run at once on a free slot when its statement is a short read (tryRequestInline
 * in pool.ts): its reply, or undefined when it did not run (lease a slot and runOnLease then).
 */
export function runInline(runtime: HttpRuntime, body: string, mostAccess: AccessModeName): Reply | undefined {
  const pool = runtime.pool;
  if (!pool || !runtime.accepting) return undefined;
  const out = pool.tryRequestInline(body, mostAccess);
  if (out === undefined) return undefined;
  return typeof out === 'string' ? jsonReply(out) : replyForError(out);
}

/** A 200 JSON answer. */
export function jsonReply(body: string): Reply {
  return { status: 200, headers: jsonHeaders(), body };
}

/**
 * Runs the JSON query request `json` on the slot's native thread (in its session's transaction
 * when `inTransaction`): the engine validates the request and writes the response JSON itself.
 * A client that goes away while its statement runs (Node's response closes, or `signal` aborts
 * when there is none) cancels it: nobody would read the answer, and the slot comes free at once.
 */
export async function executeCancellable(
  slot: ExecutionSlot,
  json: string,
  inTransaction: boolean,
  mostAccess: AccessModeName,
  outgoing: ServerResponse | undefined,
  signal: AbortSignal | undefined,
): Promise<string> {
  let cancel: (() => void) | undefined;
  const onClientGone = () => cancel?.();
  if (outgoing) outgoing.once('close', onClientGone);
  else signal?.addEventListener('abort', onClientGone, { once: true });
  try {
    return await slot.requestAsJson(
      json,
      (stop) => {
        cancel = stop;
      },
      inTransaction,
      mostAccess,
    );
  } finally {
    outgoing?.off('close', onClientGone);
    signal?.removeEventListener('abort', onClientGone);
  }
}

/** executeCancellable on the leased slot, then the lease goes back. */
export async function runOnLease(
  lease: ExecutionSlotLease,
  body: string,
  mostAccess: AccessModeName,
  outgoing: ServerResponse | undefined,
  signal: AbortSignal | undefined,
): Promise<Reply> {
  try {
    return jsonReply(await executeCancellable(lease.slot, body, false, mostAccess, outgoing, signal));
  } finally {
    lease.release();
  }
}
