// Reads a request body as text, refusing it once it grows past a byte limit.

import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';

/** The body was larger than the limit. */
export const TOO_LARGE: unique symbol = Symbol('TOO_LARGE');

/** The client went away before the body was complete. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'ClientGoneError';
  }
}

/** The body is not UTF-8 text, the only encoding of JSON (RFC 8259). */
export class BodyNotUtf8Error extends Error {
  constructor() {
    super('the request body is not valid UTF-8 text');
    this.name = 'BodyNotUtf8Error';
  }
}

/** The body as text; throws BodyNotUtf8Error rather than replacing bad bytes with U+FFFD. */
function decode(chunks: Buffer[], size: number): string {
  if (chunks.length === 0) return '';
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  if (!isUtf8(bytes)) throw new BodyNotUtf8Error();
  return bytes.toString('utf8');
}

/**
 * Straight from Node's IncomingMessage, by callback: `done(null, body)` once the body is
 * complete (TOO_LARGE as soon as it grows past `limit`, and the rest is left unread),
 * `done(error)` when it cannot be read (ClientGoneError when the request was aborted,
 * BodyNotUtf8Error). `done` runs once, never before this returns.
 */
export function collectIncoming(
  incoming: IncomingMessage,
  limit: number,
  done: (error: Error | null, body?: string | typeof TOO_LARGE) => void,
): void {
  if (incoming.readableEnded) {
    process.nextTick(done, null, '');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const cleanup = () => {
    incoming.off('data', onData);
    incoming.off('end', onEnd);
    incoming.off('error', onError);
    incoming.off('close', onClose);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      cleanup();
      done(null, TOO_LARGE);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    cleanup();
    let body: string;
    try {
      body = decode(chunks, size);
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, body);
  };
  const onError = (error: Error) => {
    cleanup();
    done(error);
  };
  const onClose = () => {
    // 'close' before 'end': the request was aborted.
    cleanup();
    done(new ClientGoneError());
  };
  incoming.on('data', onData);
  incoming.on('end', onEnd);
  incoming.on('error', onError);
  incoming.on('close', onClose);
}

/** collectIncoming as a promise (the fast path under @hono/node-server). */
export function readIncoming(incoming: IncomingMessage, limit: number): Promise<string | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    collectIncoming(incoming, limit, (error, body) => (error ? reject(error) : resolve(body!)));
  });
}

/** From a web Request (when the app is mounted under another runtime or adapter). */
export async function readRequest(request: Request, limit: number): Promise<string | typeof TOO_LARGE> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return TOO_LARGE;
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return decode(chunks, size);
}
