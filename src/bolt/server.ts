// The Bolt server: a TCP listener that shakes hands (version negotiation) and hands each
// connection to a BoltConnection (src/bolt/connection.ts). GraphDBService starts it when
// ServiceConfig.boltPort is set (docs/bolt.md).

import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { listenOn } from '../runtime/listen.js';
import type { ExecutionSlotLease } from '../runtime/pool.js';
import type { TransactionRegistry } from '../runtime/session.js';
import {
  type BoltAuthenticate,
  BoltConnection,
  type BoltVersion,
  type ConnectionContext,
} from './connection.js';

/** The preamble every Bolt client sends first. */
const MAGIC = 0x6060b017;
const HANDSHAKE_BYTES = 20;

/** The versions served, most preferred first: 5.0 to 5.4, and 4.4 for older drivers. */
export const SUPPORTED_VERSIONS: readonly BoltVersion[] = [
  [5, 4],
  [5, 3],
  [5, 2],
  [5, 1],
  [5, 0],
  [4, 4],
];

/**
 * The version to speak given the client's four proposals (each `00 range minor major`: that
 * minor version down to `minor - range`), in the client's order of preference; null when none
 * is served. A proposal of major 255 (a handshake manifest) is skipped: the client then falls
 * back to its other proposals.
 */
export function chooseVersion(handshake: Buffer): BoltVersion | null {
  for (let i = 0; i < 4; i++) {
    const at = 4 + 4 * i;
    const range = handshake[at + 1] as number;
    const minor = handshake[at + 2] as number;
    const major = handshake[at + 3] as number;
    if (major === 0 || major === 0xff) continue;
    for (const version of SUPPORTED_VERSIONS) {
      if (version[0] === major && version[1] <= minor && version[1] >= minor - range) return version;
    }
  }
  return null;
}

export interface BoltServerOptions {
  host: string;
  port: number;
  /** Connections open at once; more are closed as they arrive. */
  maxConnections: number;
  /** Time a client has to complete the handshake and log in. */
  handshakeTimeoutMs: number;
  /** Largest message accepted (bytes, after dechunking). */
  maxMessageBytes: number;
  idleTransactionTimeoutMs: number;
  /** The service's explicit transactions (each holds an execution slot; their count is bounded). */
  transactions: TransactionRegistry;
  /** Serve over TLS (bolt+s://) with this certificate and key. */
  tls?: { cert: string | Buffer; key: string | Buffer; passphrase?: string } | null;
  slotWaitMs: number | undefined;
  queryTimeoutMs: number;
  /** The service's maxResultBytes (0: none): bounds a transaction's result read into memory. */
  maxResultBytes: number;
  authenticate: BoltAuthenticate | null;
  serverAgent: string;
  acquire(signal: AbortSignal): Promise<ExecutionSlotLease>;
}

export class BoltServer {
  readonly #options: BoltServerOptions;
  #server: Server | null = null;
  readonly #connections = new Set<BoltConnection>();
  /** Sockets still shaking hands. */
  readonly #handshaking = new Set<Socket>();
  #stopping = false;
  #closedAll: (() => void) | null = null;

  constructor(options: BoltServerOptions) {
    this.#options = options;
  }

  /** The bound port while listening, else null. */
  get port(): number | null {
    const address = this.#server?.address();
    return address && typeof address === 'object' ? address.port : null;
  }

  get connectionCount(): number {
    return this.#connections.size + this.#handshaking.size;
  }

  /** Binds host:port; resolves to the bound port. */
  async listen(): Promise<number> {
    const tlsOptions = this.#options.tls;
    const server: Server = tlsOptions
      ? createTlsServer({ ...tlsOptions, noDelay: true }, (socket) => this.#accept(socket))
      : createServer({ noDelay: true }, (socket) => this.#accept(socket));
    server.maxConnections = this.#options.maxConnections;
    await listenOn(server, this.#options.port, this.#options.host);
    server.on('error', (error) => process.stderr.write(`graphdb: Bolt server error: ${error.message}\n`));
    this.#server = server;
    return (server.address() as AddressInfo).port;
  }

  /**
   * Stops accepting connections; open ones close once idle (no request running, no
   * transaction open). After `graceMs` the rest are cut: what runs is cancelled and open
   * transactions are rolled back.
   */
  async stop(graceMs: number): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = null;
    this.#stopping = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.#handshaking) socket.destroy();
    for (const connection of this.#connections) connection.closeWhenIdle();
    if (this.#connections.size > 0) {
      const allClosed = new Promise<void>((resolve) => {
        this.#closedAll = resolve;
      });
      const timer = setTimeout(() => {
        for (const connection of this.#connections) connection.destroy();
      }, graceMs);
      await allClosed;
      clearTimeout(timer);
    }
    await closed;
    this.#stopping = false;
  }

  #accept(socket: Socket): void {
    if (this.#stopping) {
      socket.destroy();
      return;
    }
    this.#handshaking.add(socket);
    socket.setTimeout(this.#options.handshakeTimeoutMs, () => socket.destroy());
    socket.on('error', () => undefined);
    const parts: Buffer[] = [];
    let received = 0;
    const onData = (data: Buffer) => {
      parts.push(data);
      received += data.length;
      if (received < HANDSHAKE_BYTES) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      this.#handshaking.delete(socket);
      const bytes = Buffer.concat(parts, received);
      this.#shakeHands(socket, bytes.subarray(0, HANDSHAKE_BYTES), bytes.subarray(HANDSHAKE_BYTES));
    };
    const onClose = () => this.#handshaking.delete(socket);
    socket.on('data', onData);
    socket.on('close', onClose);
  }

  #shakeHands(socket: Socket, handshake: Buffer, rest: Buffer): void {
    if (handshake.readUInt32BE(0) !== MAGIC) {
      // Not Bolt (an HTTP request, say): nothing to answer in a protocol it speaks.
      socket.destroy();
      return;
    }
    const version = chooseVersion(handshake);
    if (!version) {
      socket.end(Buffer.alloc(4));
      return;
    }
    const answer = Buffer.from([0, 0, version[1], version[0]]);
    socket.write(answer);
    const connection = new BoltConnection(socket, this.#context(socket), version);
    this.#connections.add(connection);
    connection.receive(rest);
  }

  #context(socket: Socket): ConnectionContext {
    const options = this.#options;
    const server = this;
    const host = socket.localAddress ?? options.host;
    const localAddress = `${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
    return {
      acquire: options.acquire,
      authenticate: options.authenticate,
      serverAgent: options.serverAgent,
      maxMessageBytes: options.maxMessageBytes,
      idleTransactionTimeoutMs: options.idleTransactionTimeoutMs,
      slotWaitMs: options.slotWaitMs,
      queryTimeoutMs: options.queryTimeoutMs,
      maxResultBytes: options.maxResultBytes,
      localAddress,
      get stopping() {
        return server.#stopping;
      },
      transactions: options.transactions,
      authenticated() {
        socket.setTimeout(0);
      },
      closed(connection) {
        server.#connections.delete(connection);
        if (server.#connections.size === 0 && server.#closedAll) {
          server.#closedAll();
          server.#closedAll = null;
        }
      },
    };
  }
}
