// Streamed results over HTTP (docs/http-api.md, "Streamed results"): a request that accepts
// application/x-ndjson gets its rows as they are produced, one JSON text per line, read from
// the slot's native cursor a batch at a time and only as fast as the client takes them.

import type { ServerResponse } from 'node:http';
import { GraphDBError } from '../core/errors.js';
import type { AccessModeName } from '../native/addon.js';
import { MOST_ACCESS } from '../runtime/access.js';
import type { ExecutionSlotLease } from '../runtime/pool.js';
import type { HttpRuntime } from './context.js';
import { responseForError, SECURITY_HEADERS } from './errors.js';

export const NDJSON = 'application/x-ndjson';

/** Rows fetched from the engine at a time (some tens of KB of JSON for common rows). */
const BATCH_ROWS = 1000;

/**
 * Whether an Accept header asks for NDJSON: it names application/x-ndjson (or
 * application/ndjson) with a nonzero quality.
 */
export function wantsNdjson(accept: string | undefined): boolean {
  if (!accept) return false;
  for (const item of accept.split(',')) {
    const [type, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (type !== NDJSON && type !== 'application/ndjson') continue;
    const quality = params.find((param) => param.startsWith('q='));
    if (quality === undefined || Number(quality.slice(2)) > 0) return true;
  }
  return false;
}

/** The last line of a stream that failed midway: `{"error":{"code","message"}}`. */
function errorLine(error: unknown): string {
  const known = error instanceof GraphDBError;
  const code = known ? error.code : 'INTERNAL';
  const message = known
    ? error.message
    : `internal error: ${error instanceof Error ? error.message : String(error)}`;
  if (!known) {
    process.stderr.write(`graphdb: internal error while streaming a result: ${String(error)}\n`);
  }
  return `${JSON.stringify({ error: { code, message } })}\n`;
}

/** The parts of a request a stream needs. */
export interface StreamRequest {
  /** Node's response, when served by @hono/node-server: its 'close' means the client left. */
  outgoing: ServerResponse | undefined;
  /** The request's signal otherwise. */
  signal: AbortSignal | undefined;
  /** The highest access mode the client's role allows (default: all). */
  mostAccess?: AccessModeName;
}

/**
 * Runs the JSON query request `body` on the leased slot (in its session's transaction when
 * `inTransaction`) and answers as it goes: `{"columns","types"}`, one JSON array per row,
 * `{"summary"}` (or `{"error"}` when it fails midway), each on a line of its own. A failure
 * before the first row (syntax, binding, access mode ...) is an ordinary JSON error response.
 * Each batch is fetched only once the last one was handed to the socket (which waits for
 * 'drain'), so memory stays bounded however large the result and however slow the client;
 * a client that goes away stops the statement. `onEnd` runs once the stream is over (the slot
 * is then free for its lease's owner); the service's time limit covers the whole stream.
 */
export async function streamResult(
  runtime: HttpRuntime,
  lease: ExecutionSlotLease,
  body: string,
  inTransaction: boolean,
  request: StreamRequest,
  onEnd: () => void,
): Promise<Response> {
  const slot = lease.slot;
  let cancel: (() => void) | undefined;
  let clientGone = false;
  const onClientGone = () => {
    clientGone = true;
    cancel?.();
  };
  const { outgoing, signal } = request;
  if (outgoing) outgoing.once('close', onClientGone);
  else signal?.addEventListener('abort', onClientGone, { once: true });
  const stopWatching = () => {
    outgoing?.off('close', onClientGone);
    signal?.removeEventListener('abort', onClientGone);
  };
  let header: string;
  try {
    header = await slot.openStream(body, inTransaction, request.mostAccess ?? MOST_ACCESS, (stop) => {
      cancel = stop;
    });
  } catch (error) {
    stopWatching();
    onEnd();
    return responseForError(error);
  }
  runtime.requests.started(); // stop() waits for the stream as for a request
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    stopWatching();
    runtime.requests.finished();
    onEnd();
  };
  if (clientGone) {
    await slot.closeStream().catch(() => undefined);
    end();
    return new Response(null, { status: 499 });
  }
  let started = false;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        if (!started) {
          started = true;
          controller.enqueue(Buffer.from(header));
          return;
        }
        let text: string;
        let done: boolean;
        try {
          [text, done] = await slot.fetchStream(BATCH_ROWS);
        } catch (error) {
          if (!cancelled) {
            controller.enqueue(Buffer.from(errorLine(error)));
            controller.close();
          }
          end();
          return;
        }
        if (cancelled) return;
        if (text.length > 0) controller.enqueue(Buffer.from(text));
        if (done) {
          controller.close();
          end();
        }
      },
      cancel: async () => {
        // The client went away (or the server cut the connection): stop the statement.
        cancelled = true;
        await slot.closeStream().catch(() => undefined);
        end();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, {
    status: 200,
    headers: { 'content-type': NDJSON, ...SECURITY_HEADERS },
  });
}
