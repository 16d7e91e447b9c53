// A Bolt client that speaks raw messages (the tests of the protocol and of its limits).
import { connect, type Socket } from 'node:net';
import { expect } from 'vitest';
import { ChunkReader, MessageWriter } from '../../src/bolt/framing.js';
import { decode, Structure } from '../../src/bolt/packstream.js';

export const HELLO = 0x01;
export const GOODBYE = 0x02;
export const RESET = 0x0f;
export const RUN = 0x10;
export const BEGIN = 0x11;
export const COMMIT = 0x12;
export const PULL = 0x3f;
export const DISCARD = 0x2f;
export const TELEMETRY = 0x54;
export const ROUTE = 0x66;
export const LOGON = 0x6a;
export const LOGOFF = 0x6b;
export const SUCCESS = 0x70;
export const RECORD = 0x71;
export const IGNORED = 0x7e;
export const FAILURE = 0x7f;

export interface Response {
  tag: number;
  meta: Record<string, unknown>;
}

/** The magic preamble and up to four version proposals (each `00 range minor major`). */
export function handshakeBytes(...versions: number[]): Buffer {
  const out = Buffer.alloc(20);
  out.writeUInt32BE(0x6060b017, 0);
  for (const [i, v] of versions.entries()) out.writeUInt32BE(v, 4 + 4 * i);
  return out;
}

/** A Bolt client that speaks raw messages. */
export class RawClient {
  readonly socket: Socket;
  readonly #reader = new ChunkReader(1 << 24);
  readonly #responses: Response[] = [];
  #waiters: Array<() => void> = [];
  #handshake: Buffer | null = null;
  #handshakeBytes: Buffer[] = [];
  closed: Promise<void>;

  constructor(port: number) {
    this.socket = connect({ port, host: '127.0.0.1' });
    this.closed = new Promise((resolve) => this.socket.on('close', () => resolve()));
    this.socket.on('error', () => undefined);
    this.socket.on('data', (data: Buffer) => {
      if (this.#handshake === null) {
        this.#handshakeBytes.push(data);
        const all = Buffer.concat(this.#handshakeBytes);
        if (all.length < 4) return;
        this.#handshake = all.subarray(0, 4);
        data = all.subarray(4);
      }
      for (const message of this.#reader.push(data)) {
        const s = decode(message) as Structure;
        this.#responses.push({ tag: s.tag, meta: (s.fields[0] ?? {}) as Record<string, unknown> });
      }
      for (const w of this.#waiters.splice(0)) w();
    });
    this.socket.on('close', () => {
      for (const w of this.#waiters.splice(0)) w();
    });
  }

  async handshake(...versions: number[]): Promise<Buffer> {
    this.socket.write(handshakeBytes(...versions));
    await this.#until(() => this.#handshake !== null);
    return this.#handshake as Buffer;
  }

  send(tag: number, ...fields: unknown[]): void {
    const writer = new MessageWriter();
    const e = writer.begin();
    e.value(new Structure(tag, fields));
    writer.end();
    this.socket.write(writer.take());
  }

  async #until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (this.socket.destroyed && !condition()) throw new Error('connection closed');
      if (Date.now() > deadline) throw new Error('timed out waiting for a response');
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** The next response. */
  async next(): Promise<Response> {
    await this.#until(() => this.#responses.length > 0);
    return this.#responses.shift() as Response;
  }

  /** Responses up to and including the next summary (SUCCESS, FAILURE or IGNORED). */
  async summary(): Promise<{ records: unknown[][]; summary: Response }> {
    const records: unknown[][] = [];
    for (;;) {
      const r = await this.next();
      if (r.tag === RECORD) records.push(r.meta as unknown as unknown[]);
      else return { records, summary: r };
    }
  }

  async login(version = 0x00040405, auth: Record<string, unknown> = { scheme: 'none' }): Promise<void> {
    await this.handshake(version);
    this.send(HELLO, { user_agent: 'raw/1', routing: { address: 'example.test:7687' } });
    expect((await this.next()).tag).toBe(SUCCESS);
    this.send(LOGON, auth);
    expect((await this.next()).tag).toBe(SUCCESS);
  }

  close(): void {
    this.socket.destroy();
  }
}
