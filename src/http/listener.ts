// The service's own HTTP(S) server: binds the address, serves the Hono app (app.ts) through
// @hono/node-server with the `POST /cypher` fast path in front (fast-cypher.ts), bounds how
// long clients may take and how many connections they hold, and on stop lets the requests in
// flight finish within a grace before it cuts them. The service loads this module when it first
// listens, so that embedding the database loads no HTTP layer (Hono, the adapter, undici).

import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { GraphDBError } from '../core/errors.js';
import type { TlsConfig } from '../runtime/config.js';
import { listenOn } from '../runtime/listen.js';
import { createApp } from './app.js';
import type { HttpRuntime } from './context.js';
import { adapterErrorResponse } from './errors.js';
import { withCypherFastPath } from './fast-cypher.js';

/** Where to listen and how long clients may take (ServiceConfig). */
export interface ListenerOptions {
  host: string;
  port: number;
  tls: TlsConfig | null;
  headersTimeoutMs: number;
  receiveTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/** `<scheme>://<host>:<port>`, with an IPv6 host in brackets. */
export function formatUrl(host: string, port: number, scheme = 'http'): string {
  return host.includes(':') ? `${scheme}://[${host}]:${port}` : `${scheme}://${host}:${port}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Makes `server` close connections that hold it up: Node's own checks bound the time to send
 * headers and a whole request; a connection that sends nothing at all gets the headers' time
 * from its start (socket timeout, cleared when its first request arrives; Node then runs the
 * keep-alive timeout between requests). At most `maxConnections` are open: at the limit a new
 * connection takes the place of the oldest idle one, first of those that have sent nothing yet,
 * then of those waiting between keep-alive requests, so that idle sockets cannot starve clients
 * with something to ask; only when every connection has a request in flight is the new one
 * closed.
 */
function limitConnections(server: Server, options: ListenerOptions): void {
  server.keepAliveTimeout = options.keepAliveTimeoutMs;
  // Counted here rather than by server.maxConnections, which closes the newcomer.
  const open = new Set<Socket>();
  let evicting = 0;
  /** Connections that have sent no request yet (over TLS, also those shaking hands), oldest first. */
  const silent = new Set<Socket>();
  /** Keep-alive connections waiting for their next request, longest waiting first. */
  const waiting = new Set<Socket>();
  const inFlight = new Map<Socket, number>();
  const evictIdle = (): boolean => {
    const victim = first(silent) ?? first(waiting);
    if (!victim) return false;
    silent.delete(victim);
    waiting.delete(victim);
    evicting++;
    victim.once('close', () => evicting--);
    victim.destroy();
    return true;
  };
  /** Over TLS: the sockets still shaking hands, by peer address (the TLS socket has the same). */
  const handshaking = new Map<string, Socket>();
  const peer = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;
  server.on('connection', (socket: Socket) => {
    if (open.size - evicting >= options.maxConnections && !evictIdle()) {
      socket.destroy();
      return;
    }
    open.add(socket);
    silent.add(socket);
    const key = options.tls ? peer(socket) : null;
    if (key) handshaking.set(key, socket);
    socket.once('close', () => {
      open.delete(socket);
      silent.delete(socket);
      waiting.delete(socket);
      inFlight.delete(socket);
      if (key && handshaking.get(key) === socket) handshaking.delete(key);
    });
  });
  // Over TLS the HTTP layer sees the TLS socket once the handshake is done (bounded by
  // handshakeTimeout); the timeout goes on that socket, whose 'timeout' the server handles.
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    if (socket.destroyed) return;
    socket.setTimeout(options.headersTimeoutMs);
    if (!options.tls) return;
    // The TLS socket stands for its TCP one from now on, still silent.
    const key = peer(socket);
    const raw = handshaking.get(key);
    handshaking.delete(key);
    if (raw) silent.delete(raw);
    silent.add(socket);
    socket.once('close', () => {
      silent.delete(socket);
      waiting.delete(socket);
      inFlight.delete(socket);
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    // Once per connection: a keep-alive connection's later requests find it cleared already.
    if (socket.timeout) socket.setTimeout(0);
    silent.delete(socket);
    waiting.delete(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      if (left > 0) {
        inFlight.set(socket, left);
      } else {
        inFlight.delete(socket);
        if (!socket.destroyed) waiting.add(socket);
      }
    });
  });
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}

export class HttpListener {
  readonly #server: Server;
  readonly #runtime: HttpRuntime;
  /** `http(s)://<host>:<port>` with the bound port. */
  readonly url: string;

  private constructor(server: Server, runtime: HttpRuntime, url: string) {
    this.#server = server;
    this.#runtime = runtime;
    this.url = url;
  }

  /** Serves `service` (whose HTTP runtime is `runtime`); rejects when the address cannot be bound. */
  static async open(service: object, runtime: HttpRuntime, options: ListenerOptions): Promise<HttpListener> {
    const { host, port, tls } = options;
    const app = createApp(service);
    const serverOptions = {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.receiveTimeoutMs,
      // How often Node looks for connections past the headers or receive timeout.
      connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(options.headersTimeoutMs / 4))),
    };
    // The adapter's listener with an error handler (createAdaptorServer passes none on): a
    // request it cannot build (a Host that names no host, a backslash in the path) gets the
    // contract's JSON error, not an empty 400. `POST /cypher` takes the fast path in front.
    const listener = withCypherFastPath(
      runtime,
      getRequestListener(app.fetch, { hostname: host, errorHandler: adapterErrorResponse }),
    );
    const server: Server = tls
      ? createHttpsServer(
          {
            ...serverOptions,
            ...tls,
            // The handshake counts against the time to send the headers.
            handshakeTimeout: options.headersTimeoutMs,
          },
          listener,
        )
      : createHttpServer(serverOptions, listener);
    limitConnections(server, options);
    try {
      await listenOn(server, port, host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(
        `cannot bind ${formatUrl(host, port)}: ${code ? `${code} ` : ''}(${errorMessage(error)})`,
        { cause: error },
      );
    }
    server.on('error', (error) => {
      process.stderr.write(`graphdb: HTTP server error: ${errorMessage(error)}\n`);
    });
    const address = server.address() as AddressInfo;
    return new HttpListener(server, runtime, formatUrl(host, address.port, tls ? 'https' : 'http'));
  }

  /** Closes a listener that never served (the service failed to start). */
  abandon(): Promise<void> {
    return new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /**
   * Stops serving: no new connections, idle keep-alive connections close, requests in flight
   * get `graceMs` to finish. Past it the requests still waiting for a slot give up, `interrupt`
   * stops the statements still running, and the connections still open are cut.
   */
  async close(graceMs: number, interrupt: () => void): Promise<void> {
    const server = this.#server;
    const requests = this.#runtime.requests;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const graceOver = await requests.drain(graceMs);
    if (graceOver) {
      requests.cancelWaiters(new GraphDBError('the GraphDB service is stopping', 'SERVICE_UNAVAILABLE'));
      // Statements still running stop (their requests get QUERY_CANCELLED), so the slots come
      // free and the process can exit instead of waiting for them.
      interrupt();
      server.closeAllConnections();
    } else {
      server.closeIdleConnections();
    }
    // Connections whose last response is being written close on their own (the responses sent
    // while stopping carry `Connection: close`); cut any that linger.
    const lingering = setTimeout(() => server.closeAllConnections(), 1000);
    await closed;
    clearTimeout(lingering);
  }
}
