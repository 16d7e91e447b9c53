// Bolt's message framing: a message goes as chunks, each a 2-byte big-endian length and that
// many bytes, and ends with an empty chunk (00 00). An empty chunk outside a message is a NOOP
// (a keep-alive). The reader holds at most one message (bounded by maxMessageBytes) and the
// chunk header it is reading; nothing it is sent can make it buffer more.

import { Encoder, PackStreamError } from './packstream.js';

/** Bytes of one chunk's payload at most (the 2-byte length's limit). */
export const MAX_CHUNK_BYTES = 0xffff;

/** Reassembles messages from chunks as bytes arrive. */
export class ChunkReader {
  /** The largest message accepted (lowered before login: see BoltConnection). */
  maxMessageBytes: number;
  /** The chunks of the message being read. */
  #parts: Buffer[] = [];
  #messageBytes = 0;
  /** The first byte of a chunk header split across reads, else -1. */
  #headerByte = -1;
  /** Bytes of the current chunk still to come (0: a header comes next). */
  #chunkLeft = 0;

  constructor(maxMessageBytes: number) {
    this.maxMessageBytes = maxMessageBytes;
  }

  /** Whether a message is partly read (a connection closing now cut it). */
  get midMessage(): boolean {
    return this.#messageBytes > 0 || this.#chunkLeft > 0 || this.#headerByte >= 0;
  }

  /**
   * Feeds bytes; returns the messages they complete, in order. Throws PackStreamError when a
   * message would grow past maxMessageBytes.
   */
  push(data: Buffer): Buffer[] {
    const messages: Buffer[] = [];
    let at = 0;
    while (at < data.length) {
      if (this.#chunkLeft > 0) {
        const n = Math.min(this.#chunkLeft, data.length - at);
        this.#parts.push(data.subarray(at, at + n));
        this.#chunkLeft -= n;
        at += n;
        continue;
      }
      let size: number;
      if (this.#headerByte >= 0) {
        size = (this.#headerByte << 8) | (data[at] as number);
        this.#headerByte = -1;
        at += 1;
      } else if (at + 1 < data.length) {
        size = data.readUInt16BE(at);
        at += 2;
      } else {
        this.#headerByte = data[at] as number;
        at += 1;
        continue;
      }
      if (size === 0) {
        // The end of a message, or a NOOP between messages.
        if (this.#messageBytes > 0) messages.push(this.#take());
        continue;
      }
      if (this.#messageBytes + size > this.maxMessageBytes) {
        throw new PackStreamError(
          `a message is larger than the ${this.maxMessageBytes} bytes the server accepts`,
        );
      }
      this.#messageBytes += size;
      this.#chunkLeft = size;
    }
    return messages;
  }

  #take(): Buffer {
    const parts = this.#parts;
    const message =
      parts.length === 1 ? Buffer.from(parts[0] as Buffer) : Buffer.concat(parts, this.#messageBytes);
    this.#parts = [];
    this.#messageBytes = 0;
    return message;
  }
}

/**
 * Writes messages as chunks into one buffer: `begin()`, encode the message with `encoder`,
 * `end()`; `take()` hands over what was written. The chunk headers are filled in at `end()`.
 */
export class MessageWriter {
  readonly encoder = new Encoder(64 * 1024);
  #start = -1;

  /** Starts a message: leaves room for its first chunk header. */
  begin(): Encoder {
    this.#start = this.encoder.length;
    this.encoder.integer(0); // placeholder byte, replaced at end()
    this.encoder.integer(0);
    return this.encoder;
  }

  /** Ends the message: splits what was encoded since begin() into chunks and adds 00 00. */
  end(): void {
    const start = this.#start;
    this.#start = -1;
    const bytes = this.encoder.bytes();
    const body = bytes.subarray(start + 2);
    if (body.length <= MAX_CHUNK_BYTES) {
      bytes.writeUInt16BE(body.length, start);
    } else {
      // Rare (a large record): re-lay the body as several chunks.
      const copy = Buffer.from(body);
      this.encoder.length = start;
      for (let at = 0; at < copy.length; at += MAX_CHUNK_BYTES) {
        const piece = copy.subarray(at, Math.min(at + MAX_CHUNK_BYTES, copy.length));
        this.encoder.integer(0);
        this.encoder.integer(0);
        const header = this.encoder.length - 2;
        this.encoder.raw(piece);
        this.encoder.bytes().writeUInt16BE(piece.length, header);
      }
    }
    this.encoder.integer(0);
    this.encoder.integer(0);
  }

  /** Drops the message begun (an encoding error midway). */
  abort(): void {
    if (this.#start >= 0) this.encoder.length = this.#start;
    this.#start = -1;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.encoder.length;
  }

  /** Hands over the bytes written (a copy) and starts empty. */
  take(): Buffer {
    const out = Buffer.from(this.encoder.bytes());
    this.encoder.reset();
    return out;
  }
}
