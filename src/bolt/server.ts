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
  type BoltLogin,
  type BoltVersion,
  type ConnectionContext,
} from './connection.js';
import { boltError } from './messages.js';

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
  /** Connections open at once (see adminReserved); a newcomer past them replaces the oldest still shaking hands, or is closed. */
  maxConnections: number;
  /**
   * Connections past maxConnections that only admins may log in on (with authenticate; the
   * others are refused at HELLO/LOGON once maxConnections are open).
   */
  adminReserved: number;
  /** Connections one token (client) may have logged in at once; 0: no limit. */
  maxConnectionsPerClient: number;
  /** A logged-in connection idle this long with nothing open is closed; 0: never. */
  idleTimeoutMs: number;
  /** Time a client has to complete the handshake and log in. */
  handshakeTimeoutMs: number;
  /** Largest message accepted (bytes, after dechunking). */
  maxMessageBytes: number;
  /** Most PackStream values one message of a logged-in client may hold. */
  maxMessageValues: number;
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
  /** Runs a short read at once on a free slot (ConnectionContext.tryInline). */
  tryInline: ConnectionContext['tryInline'];
}

export class BoltServer {
  readonly #options: BoltServerOptions;
  #server: Server | null = null;
  readonly #connections = new Set<BoltConnection>();
  /** Sockets still shaking hands. */
  readonly #handshaking = new Set<Socket>();
  /** The connections logged in, by client (token index). */
  readonly #logins = new Map<BoltConnection, number>();
  readonly #perClient = new Map<number, number>();
  readonly #socketConnection = new WeakMap<Socket, BoltConnection>();
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

  /** Connections accepted at once: maxConnections, plus the admins' reserve with tokens. */
  #capacity(): number {
    const { maxConnections, adminReserved, authenticate } = this.#options;
    return authenticate ? maxConnections + adminReserved : maxConnections;
  }

  /** Binds host:port; resolves to the bound port. */
  async listen(): Promise<number> {
    const tlsOptions = this.#options.tls;
    const server: Server = tlsOptions
      ? createTlsServer({ ...tlsOptions, noDelay: true }, (socket) => this.#accept(socket))
      : createServer({ noDelay: true }, (socket) => this.#accept(socket));
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
    // At the limit a newcomer takes the place of the oldest socket still shaking hands: sockets
    // that send nothing cannot keep clients out. (Counted here: server.maxConnections would
    // close the newcomer.)
    if (this.connectionCount >= this.#capacity()) {
      const oldest = first(this.#handshaking);
      if (!oldest) {
        socket.destroy();
        return;
      }
      this.#handshaking.delete(oldest);
      oldest.destroy();
    }
    this.#handshaking.add(socket);
    socket.setTimeout(this.#options.handshakeTimeoutMs);
    // The handshake's time limit until the client logs in, then the idle timeout.
    socket.on('timeout', () => {
      const connection = this.#socketConnection.get(socket);
      if (!connection?.loggedIn) {
        socket.destroy();
      } else if (!connection.closeIfIdle()) {
        // Busy or something open: look again later (a fired timeout waits for new traffic).
        socket.setTimeout(this.#options.idleTimeoutMs);
      }
    });
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
    this.#socketConnection.set(socket, connection);
    connection.receive(rest);
  }

  /**
   * Lets `connection` log in as `login`, or throws the Bolt error that refuses it: its token
   * has maxConnectionsPerClient logged in already, or only the admins' reserve is left.
   */
  #admit(connection: BoltConnection, login: BoltLogin): void {
    const { maxConnections, maxConnectionsPerClient } = this.#options;
    if (login.role !== 'admin' && this.connectionCount > maxConnections) {
      throw boltError(
        'Neo.TransientError.Request.ResourceExhaustion',
        `the service has ${maxConnections} Bolt connections open (maxConnections); the rest are kept for admin tokens`,
        true,
      );
    }
    const held = this.#perClient.get(login.client) ?? 0;
    if (login.client >= 0 && maxConnectionsPerClient > 0 && held >= maxConnectionsPerClient) {
      throw boltError(
        'Neo.TransientError.Request.ResourceExhaustion',
        `this token has ${held} Bolt connections logged in, the most one token may hold (boltMaxConnectionsPerToken); close some first`,
        true,
      );
    }
    this.#logins.set(connection, login.client);
    this.#perClient.set(login.client, held + 1);
  }

  #loggedOff(connection: BoltConnection): void {
    const client = this.#logins.get(connection);
    if (client === undefined) return;
    this.#logins.delete(connection);
    const held = (this.#perClient.get(client) as number) - 1;
    if (held > 0) this.#perClient.set(client, held);
    else this.#perClient.delete(client);
  }

  #context(socket: Socket): ConnectionContext {
    const options = this.#options;
    const server = this;
    const host = socket.localAddress ?? options.host;
    const localAddress = `${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
    return {
      acquire: options.acquire,
      tryInline: options.tryInline,
      authenticate: options.authenticate,
      serverAgent: options.serverAgent,
      maxMessageBytes: options.maxMessageBytes,
      maxMessageValues: options.maxMessageValues,
      idleTransactionTimeoutMs: options.idleTransactionTimeoutMs,
      slotWaitMs: options.slotWaitMs,
      queryTimeoutMs: options.queryTimeoutMs,
      maxResultBytes: options.maxResultBytes,
      localAddress,
      get stopping() {
        return server.#stopping;
      },
      transactions: options.transactions,
      authenticated(connection, login) {
        server.#admit(connection, login);
        socket.setTimeout(options.idleTimeoutMs);
      },
      loggedOff(connection) {
        server.#loggedOff(connection);
        // Logged off: the client has the handshake's time to log in again.
        socket.setTimeout(options.handshakeTimeoutMs);
      },
      closed(connection) {
        server.#loggedOff(connection);
        server.#connections.delete(connection);
        if (server.#connections.size === 0 && server.#closedAll) {
          server.#closedAll();
          server.#closedAll = null;
        }
      },
    };
  }
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}
