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

/** Straight from Node's IncomingMessage (the fast path under @hono/node-server). */
export function readIncoming(incoming: IncomingMessage, limit: number): Promise<string | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
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
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      try {
        resolve(decode(chunks, size));
      } catch (error) {
        reject(error);
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      // 'close' before 'end': the request was aborted.
      cleanup();
      reject(new ClientGoneError());
    };
    if (incoming.readableEnded) {
      resolve('');
      return;
    }
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
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
