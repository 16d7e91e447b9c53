// Reads a request body as text, refusing it once it grows past a byte limit.

import { isUtf8 } from 'node:buffer';
import { IncomingMessage } from 'node:http';

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

/**
 * The one body reader: gathers chunks up to `limit` bytes and decodes them as UTF-8 at the end.
 * Node's IncomingMessage (collectIncoming) and a web Request (readBody under another runtime)
 * feed it the same way.
 */
class BodyCollector {
  readonly #chunks: Buffer[] = [];
  #size = 0;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Adds a chunk; false once the body is past the limit (the chunk is then dropped). */
  push(chunk: Buffer): boolean {
    this.#size += chunk.length;
    if (this.#size > this.#limit) return false;
    this.#chunks.push(chunk);
    return true;
  }

  /** The body as text; throws BodyNotUtf8Error rather than replacing bad bytes with U+FFFD. */
  text(): string {
    const chunks = this.#chunks;
    if (chunks.length === 0) return '';
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size);
    if (!isUtf8(bytes)) throw new BodyNotUtf8Error();
    return bytes.toString('utf8');
  }
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
  const body = new BodyCollector(limit);
  const cleanup = () => {
    incoming.off('data', onData);
    incoming.off('end', onEnd);
    incoming.off('error', onError);
    incoming.off('close', onClose);
  };
  const onData = (chunk: Buffer) => {
    if (!body.push(chunk)) {
      cleanup();
      done(null, TOO_LARGE);
    }
  };
  const onEnd = () => {
    cleanup();
    let text: string;
    try {
      text = body.text();
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, text);
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

/** A web Request's body (when the app is mounted under another runtime or adapter). */
async function collectRequest(request: Request, limit: number): Promise<string | typeof TOO_LARGE> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const body = new BodyCollector(limit);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!body.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) {
      await reader.cancel().catch(() => undefined);
      return TOO_LARGE;
    }
  }
  return body.text();
}

/** The body of Node's request or of a web Request, as text (TOO_LARGE past `limit` bytes). */
export function readBody(from: IncomingMessage | Request, limit: number): Promise<string | typeof TOO_LARGE> {
  if (!(from instanceof IncomingMessage)) return collectRequest(from, limit);
  return new Promise((resolve, reject) => {
    collectIncoming(from, limit, (error, body) => (error ? reject(error) : resolve(body!)));
  });
}
