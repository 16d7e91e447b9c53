// A raw HTTP/1.1 client over node:net for the fuzz suites: sends any bytes (malformed request
// lines, bad headers, lying Content-Length, broken chunking) and parses what comes back.

import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawExchange {
  /** The final (non-1xx) responses, complete ones only. */
  responses: RawResponse[];
  /** The server closed (or reset) the connection. */
  closed: boolean;
  /** Neither an answer nor a close within the time limit. */
  timedOut: boolean;
  /** Bytes after the last complete response (an answer cut short). */
  leftover: number;
}

interface Parsed {
  response: RawResponse | null;
  /** 1xx: an interim answer, skip it. */
  interim: boolean;
  consumed: number;
}

function findCrlf(buffer: Buffer, from: number): number {
  return buffer.indexOf('\r\n', from, 'latin1');
}

/**
 * One response from the start of `buffer`, or null when it is not complete yet (`closed`: the
 * server closed, so a body without length ends here). `noBody`: the answer to a HEAD.
 */
function parseOne(buffer: Buffer, noBody: boolean, closed: boolean): Parsed | null {
  const headEnd = buffer.indexOf('\r\n\r\n', 0, 'latin1');
  if (headEnd < 0) return null;
  const lines = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!match) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const status = Number(match[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`malformed response header line ${JSON.stringify(line)}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let at = headEnd + 4;
  if (status >= 100 && status < 200) return { response: null, interim: true, consumed: at };
  if (noBody || status === 204 || status === 304) {
    return { response: { status, headers, body: Buffer.alloc(0) }, interim: false, consumed: at };
  }
  if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = findCrlf(buffer, at);
      if (lineEnd < 0) return null;
      const size = Number.parseInt(buffer.subarray(at, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size)) throw new Error('bad chunk size in a response');
      at = lineEnd + 2;
      if (size === 0) {
        // Trailers (none expected) end with an empty line.
        const end = buffer.indexOf('\r\n', at, 'latin1');
        if (end < 0) return null;
        return {
          response: { status, headers, body: Buffer.concat(chunks) },
          interim: false,
          consumed: end + 2,
        };
      }
      if (buffer.length < at + size + 2) return null;
      chunks.push(buffer.subarray(at, at + size));
      at += size + 2;
    }
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    const n = Number(length);
    if (!Number.isInteger(n) || n < 0) throw new Error(`bad Content-Length ${length} in a response`);
    if (buffer.length < at + n) return null;
    return {
      response: { status, headers, body: buffer.subarray(at, at + n) },
      interim: false,
      consumed: at + n,
    };
  }
  if (!closed) return null;
  return {
    response: { status, headers, body: buffer.subarray(at) },
    interim: false,
    consumed: buffer.length,
  };
}

export interface RawOptions {
  /** Shut down the sending side after the request (the server then sees the end of input). */
  halfClose: boolean;
  /** Stop at the first complete final response instead of waiting for the server to close. */
  stopAfterFirst: boolean;
  timeoutMs: number;
  /** The request is a HEAD: its answers have no body. */
  head?: boolean;
  /** Destroy the connection after this many ms (a client that goes away); no answer is due. */
  abortAfterMs?: number;
}

/** Sends `request` on a fresh connection to 127.0.0.1:`port` and collects the answers. */
export function rawExchange(port: number, request: Buffer, options: RawOptions): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let buffer = Buffer.alloc(0);
    const responses: RawResponse[] = [];
    let settled = false;
    let closed = false;
    const finish = (timedOut: boolean, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (abortTimer) clearTimeout(abortTimer);
      socket.destroy();
      if (error) reject(error);
      else resolve({ responses, closed, timedOut, leftover: buffer.length });
    };
    const drain = () => {
      for (;;) {
        let parsed: Parsed | null;
        try {
          parsed = parseOne(buffer, options.head === true, closed);
        } catch (error) {
          finish(false, error as Error);
          return;
        }
        if (!parsed) return;
        buffer = buffer.subarray(parsed.consumed);
        if (parsed.response) {
          responses.push(parsed.response);
          if (options.stopAfterFirst) {
            finish(false);
            return;
          }
        }
        if (buffer.length === 0) return;
      }
    };
    const timer = setTimeout(() => finish(true), options.timeoutMs);
    const abortTimer =
      options.abortAfterMs === undefined ? undefined : setTimeout(() => finish(false), options.abortAfterMs);
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      drain();
    });
    const onClosed = () => {
      closed = true;
      drain();
      finish(false);
    };
    socket.on('end', onClosed);
    socket.on('close', onClosed);
    // A reset (the server destroyed the connection with our bytes unread) is a close too.
    socket.on('error', onClosed);
    socket.write(request, (error) => {
      if (error) return; // the 'error' handler sees it
      if (options.halfClose && !settled) socket.end();
    });
  });
}
