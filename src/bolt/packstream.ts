// PackStream v1, the binary value format of the Bolt protocol: an encoder into a growing buffer
// and a decoder of one whole message, written for bytes that may be hostile. Every length is
// checked against the bytes left before anything is allocated, nesting is bounded, and the
// number of values in one message is bounded, so a message of n bytes costs O(n) memory and
// time; anything malformed is a PackStreamError naming the problem and its offset.
//
// Markers (v1): tiny int 0x00-0x7F and 0xF0-0xFF, tiny string 0x8_, tiny list 0x9_, tiny map
// 0xA_, structure 0xB_ (up to 15 fields, then a tag byte), null 0xC0, float64 0xC1, false 0xC2,
// true 0xC3, int8-64 0xC8-0xCB, bytes 0xCC-0xCE, string 0xD0-0xD2, list 0xD4-0xD6, map
// 0xD8-0xDA (8, 16 and 32-bit big-endian sizes). Every other marker is unused and refused.
//
// Decoded: Integer as a number (a bigint beyond 2^53), Float as a number (a Number object when
// whole, so that 1.0 stays a Float), Bytes as a Buffer, Map as an object without prototype,
// Structure as a Structure.

import { isUtf8 } from 'node:buffer';

/** A PackStream structure: a tag byte and its fields. */
export class Structure {
  readonly tag: number;
  readonly fields: unknown[];

  constructor(tag: number, fields: unknown[]) {
    this.tag = tag;
    this.fields = fields;
  }
}

/** Malformed or oversized PackStream (or Bolt framing): the connection cannot continue. */
export class PackStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackStreamError';
  }
}

/**
 * A well-formed message over a limit of DecodeLimits (or of the framing's size): the message
 * can be refused on its own, the stream is still in step.
 */
export class PackStreamLimitError extends PackStreamError {
  constructor(message: string) {
    super(message);
    this.name = 'PackStreamLimitError';
  }
}

/** What one decoded message may hold. */
export interface DecodeLimits {
  /** Deepest nesting of lists, maps and structures. */
  maxDepth: number;
  /** Most values (of any kind, nested ones and map keys included) in one message. */
  maxValues: number;
  /**
   * A message of at least this many bytes that is a RUN (structure 0x10) keeps its parameter
   * map (field 1) as EncodedMap: checked as decoding would check it (its form, UTF-8, the
   * limits) but not built, so that it can be converted elsewhere. Absent: never.
   */
  encodedParametersFrom?: number;
}

/** A map left in its PackStream bytes (DecodeLimits.encodedParametersFrom). */
export class EncodedMap {
  readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
}

/** The tag of a RUN message, whose parameter map may stay encoded. */
const RUN_TAG = 0x10;

export const DEFAULT_DECODE_LIMITS: Readonly<DecodeLimits> = { maxDepth: 64, maxValues: 1_000_000 };

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;
const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Strings up to this many bytes are read byte by byte when they are ASCII. */
const SHORT_STRING_BYTES = 32;

/** Decodes the single value `bytes` holds (a dechunked Bolt message). */
export function decode(bytes: Uint8Array, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): unknown {
  const decoder = new Decoder(bytes, limits);
  decoder.encodeParameters =
    limits.encodedParametersFrom !== undefined && bytes.length >= limits.encodedParametersFrom;
  const value = decoder.value(0);
  if (decoder.offset !== bytes.length) {
    throw new PackStreamError(
      `${bytes.length - decoder.offset} bytes follow the message's value at offset ${decoder.offset}`,
    );
  }
  return value;
}

class Decoder {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #limits: DecodeLimits;
  offset = 0;
  #values = 0;
  /** Whether a RUN's parameter map stays encoded (see DecodeLimits.encodedParametersFrom). */
  encodeParameters = false;

  constructor(bytes: Uint8Array, limits: DecodeLimits) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#limits = limits;
  }

  /** Checks that `n` more bytes are there; returns the offset where they start. */
  #take(n: number, what: string): number {
    const at = this.offset;
    if (n > this.#bytes.length - at) {
      throw new PackStreamError(
        `truncated ${what} at offset ${at}: needs ${n} bytes, ${this.#bytes.length - at} left`,
      );
    }
    this.offset = at + n;
    return at;
  }

  #size(width: 1 | 2 | 4, what: string): number {
    const at = this.#take(width, `${what} size`);
    if (width === 1) return this.#view.getUint8(at);
    if (width === 2) return this.#view.getUint16(at);
    return this.#view.getUint32(at);
  }

  /** A count of items each taking at least one byte must not exceed the bytes left. */
  #count(count: number, perItem: number, what: string): number {
    const left = this.#bytes.length - this.offset;
    if (count * perItem > left) {
      throw new PackStreamError(
        `${what} of ${count} items at offset ${this.offset} is longer than the ${left} bytes left`,
      );
    }
    return count;
  }

  #countValue(): void {
    if (++this.#values > this.#limits.maxValues) {
      throw new PackStreamLimitError(
        `the message holds more than ${this.#limits.maxValues} values (the server's limit per message)`,
      );
    }
  }

  value(depth: number): unknown {
    this.#countValue();
    const at = this.#take(1, 'value');
    const marker = this.#bytes[at] as number;
    if (marker < 0x80) return marker;
    if (marker >= 0xf0) return marker - 0x100;
    const high = marker & 0xf0;
    const low = marker & 0x0f;
    if (high === 0x80) return this.#string(low);
    if (high === 0x90) return this.#list(low, depth);
    if (high === 0xa0) return this.#map(low, depth);
    if (high === 0xb0) return this.#structure(low, depth);
    switch (marker) {
      case 0xc0:
        return null;
      case 0xc1: {
        // A whole Float as a Number object, so that it is not taken for an Integer.
        const v = this.#view.getFloat64(this.#take(8, 'float'));
        return Number.isInteger(v) ? new Number(v) : v;
      }
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc8:
        return this.#view.getInt8(this.#take(1, 'int8'));
      case 0xc9:
        return this.#view.getInt16(this.#take(2, 'int16'));
      case 0xca:
        return this.#view.getInt32(this.#take(4, 'int32'));
      case 0xcb: {
        const v = this.#view.getBigInt64(this.#take(8, 'int64'));
        return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
      }
      case 0xcc:
      case 0xcd:
      case 0xce: {
        const length = this.#size(marker === 0xcc ? 1 : marker === 0xcd ? 2 : 4, 'bytes');
        const start = this.#take(length, 'bytes');
        return Buffer.from(this.#bytes.subarray(start, start + length));
      }
      case 0xd0:
      case 0xd1:
      case 0xd2:
        return this.#string(this.#size(marker === 0xd0 ? 1 : marker === 0xd1 ? 2 : 4, 'string'));
      case 0xd4:
      case 0xd5:
      case 0xd6:
        return this.#list(this.#size(marker === 0xd4 ? 1 : marker === 0xd5 ? 2 : 4, 'list'), depth);
      case 0xd8:
      case 0xd9:
      case 0xda:
        return this.#map(this.#size(marker === 0xd8 ? 1 : marker === 0xd9 ? 2 : 4, 'map'), depth);
      default:
        throw new PackStreamError(
          `unknown PackStream marker 0x${marker.toString(16).padStart(2, '0')} at offset ${at}`,
        );
    }
  }

  /**
   * Passes over one value as `value` would read it (the same checks, limits and errors), without
   * building it.
   */
  #skip(depth: number): void {
    this.#countValue();
    const at = this.#take(1, 'value');
    const marker = this.#bytes[at] as number;
    if (marker < 0x80 || marker >= 0xf0) return;
    const high = marker & 0xf0;
    const low = marker & 0x0f;
    if (high === 0x80) {
      this.#skipString(low);
      return;
    }
    if (high === 0x90) {
      this.#skipItems(low, 1, depth, 'a list');
      return;
    }
    if (high === 0xa0) {
      this.#skipMap(low, depth);
      return;
    }
    if (high === 0xb0) {
      this.#take(1, 'structure tag');
      this.#skipItems(low, 1, depth, 'a structure');
      return;
    }
    switch (marker) {
      case 0xc0:
      case 0xc2:
      case 0xc3:
        return;
      case 0xc1:
        this.#take(8, 'float');
        return;
      case 0xc8:
        this.#take(1, 'int8');
        return;
      case 0xc9:
        this.#take(2, 'int16');
        return;
      case 0xca:
        this.#take(4, 'int32');
        return;
      case 0xcb:
        this.#take(8, 'int64');
        return;
      case 0xcc:
      case 0xcd:
      case 0xce:
        this.#take(this.#size(marker === 0xcc ? 1 : marker === 0xcd ? 2 : 4, 'bytes'), 'bytes');
        return;
      case 0xd0:
      case 0xd1:
      case 0xd2:
        this.#skipString(this.#size(marker === 0xd0 ? 1 : marker === 0xd1 ? 2 : 4, 'string'));
        return;
      case 0xd4:
      case 0xd5:
      case 0xd6:
        this.#skipItems(
          this.#size(marker === 0xd4 ? 1 : marker === 0xd5 ? 2 : 4, 'list'),
          1,
          depth,
          'a list',
        );
        return;
      case 0xd8:
      case 0xd9:
      case 0xda:
        this.#skipMap(this.#size(marker === 0xd8 ? 1 : marker === 0xd9 ? 2 : 4, 'map'), depth);
        return;
      default:
        throw new PackStreamError(
          `unknown PackStream marker 0x${marker.toString(16).padStart(2, '0')} at offset ${at}`,
        );
    }
  }

  #skipString(length: number): void {
    const start = this.#take(length, 'string');
    if (length <= SHORT_STRING_BYTES) {
      // Short ASCII (map keys, names) needs no view and no call.
      const bytes = this.#bytes;
      let i = start;
      while (i < start + length && (bytes[i] as number) < 0x80) i++;
      if (i === start + length) return;
    }
    if (!isUtf8(this.#bytes.subarray(start, start + length))) {
      throw new PackStreamError(`the string at offset ${start} is not valid UTF-8`);
    }
  }

  #skipItems(length: number, perItem: number, depth: number, what: string): void {
    const inner = this.#nested(depth);
    this.#count(length, perItem, what);
    for (let i = 0; i < length; i++) this.#skip(inner);
  }

  #skipMap(size: number, depth: number): void {
    const inner = this.#nested(depth);
    this.#count(size, 2, 'a map');
    for (let i = 0; i < size; i++) {
      const keyAt = this.offset;
      const marker = this.#bytes[keyAt];
      if (marker === undefined || !((marker & 0xf0) === 0x80 || (marker >= 0xd0 && marker <= 0xd2))) {
        // Not a string: value() names what is wrong (a truncation, or a key of another kind).
        const key = this.value(inner);
        if (typeof key !== 'string')
          throw new PackStreamError(`a map key at offset ${keyAt} is not a string`);
      } else {
        this.#skip(inner);
      }
      this.#skip(inner);
    }
  }

  /** A RUN's parameter map (field 1), left encoded; any other value as `value` reads it. */
  #parameters(depth: number): unknown {
    const start = this.offset;
    const marker = this.#bytes[start];
    if (marker === undefined || !((marker & 0xf0) === 0xa0 || (marker >= 0xd8 && marker <= 0xda))) {
      return this.value(depth);
    }
    this.#skip(depth);
    return new EncodedMap(Buffer.from(this.#bytes.subarray(start, this.offset)));
  }

  #string(length: number): string {
    const start = this.#take(length, 'string');
    if (length <= SHORT_STRING_BYTES) {
      // Short ASCII (map keys, names): built here, without a TextDecoder call per string.
      const bytes = this.#bytes;
      let text = '';
      let i = start;
      const end = start + length;
      for (; i < end; i++) {
        const b = bytes[i] as number;
        if (b >= 0x80) break;
        text += String.fromCharCode(b);
      }
      if (i === end) return text;
    }
    try {
      return utf8.decode(this.#bytes.subarray(start, start + length));
    } catch {
      throw new PackStreamError(`the string at offset ${start} is not valid UTF-8`);
    }
  }

  #nested(depth: number): number {
    if (depth + 1 > this.#limits.maxDepth) {
      throw new PackStreamLimitError(
        `values nest deeper than ${this.#limits.maxDepth} levels at offset ${this.offset} (the server's limit per message)`,
      );
    }
    return depth + 1;
  }

  #list(length: number, depth: number): unknown[] {
    const inner = this.#nested(depth);
    const items = new Array<unknown>(this.#count(length, 1, 'a list'));
    for (let i = 0; i < length; i++) items[i] = this.value(inner);
    return items;
  }

  #map(size: number, depth: number): Record<string, unknown> {
    const inner = this.#nested(depth);
    this.#count(size, 2, 'a map');
    // A null prototype: keys such as __proto__ are plain entries.
    const map: Record<string, unknown> = Object.create(null);
    for (let i = 0; i < size; i++) {
      const keyAt = this.offset;
      const key = this.value(inner);
      if (typeof key !== 'string') {
        throw new PackStreamError(`a map key at offset ${keyAt} is not a string`);
      }
      // A key given twice: the last value wins (as the specification says).
      map[key] = this.value(inner);
    }
    return map;
  }

  #structure(size: number, depth: number): Structure {
    const inner = this.#nested(depth);
    const tag = this.#bytes[this.#take(1, 'structure tag')] as number;
    this.#count(size, 1, 'a structure');
    const fields = new Array<unknown>(size);
    const encoded = this.encodeParameters && depth === 0 && tag === RUN_TAG;
    for (let i = 0; i < size; i++)
      fields[i] = encoded && i === 1 ? this.#parameters(inner) : this.value(inner);
    return new Structure(tag, fields);
  }
}

/**
 * Encodes values into a growing buffer. Numbers are Floats unless `Integer` wraps them or they
 * are bigints: the caller decides (Bolt results know their column types).
 */
export class Encoder {
  #buffer: Buffer;
  #view: DataView;
  length = 0;

  constructor(initialSize = 1024) {
    this.#buffer = Buffer.allocUnsafe(initialSize);
    this.#view = new DataView(this.#buffer.buffer, this.#buffer.byteOffset, this.#buffer.byteLength);
  }

  /** The bytes written so far (a view, valid until the next write or reset). */
  bytes(): Buffer {
    return this.#buffer.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
  }

  #reserve(n: number): number {
    const at = this.length;
    if (at + n > this.#buffer.length) {
      let size = this.#buffer.length * 2;
      while (size < at + n) size *= 2;
      const grown = Buffer.allocUnsafe(size);
      this.#buffer.copy(grown, 0, 0, at);
      this.#buffer = grown;
      this.#view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
    }
    this.length = at + n;
    return at;
  }

  #byte(b: number): void {
    // Reserve first: it may replace the buffer.
    const at = this.#reserve(1);
    this.#buffer[at] = b;
  }

  null(): void {
    this.#byte(0xc0);
  }

  boolean(v: boolean): void {
    this.#byte(v ? 0xc3 : 0xc2);
  }

  float(v: number): void {
    const at = this.#reserve(9);
    this.#buffer[at] = 0xc1;
    this.#view.setFloat64(at + 1, v);
  }

  /** A whole number within the 64-bit range (a RangeError otherwise). */
  integer(v: number | bigint): void {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) {
        if (!Number.isInteger(v)) throw new RangeError(`${v} is not an integer`);
        this.integer(BigInt(v));
        return;
      }
      if (v >= -16 && v <= 127) {
        this.#byte(v & 0xff);
      } else if (v >= -128 && v <= 127) {
        const at = this.#reserve(2);
        this.#buffer[at] = 0xc8;
        this.#view.setInt8(at + 1, v);
      } else if (v >= -32768 && v <= 32767) {
        const at = this.#reserve(3);
        this.#buffer[at] = 0xc9;
        this.#view.setInt16(at + 1, v);
      } else if (v >= -(2 ** 31) && v < 2 ** 31) {
        const at = this.#reserve(5);
        this.#buffer[at] = 0xca;
        this.#view.setInt32(at + 1, v);
      } else {
        const at = this.#reserve(9);
        this.#buffer[at] = 0xcb;
        this.#view.setBigInt64(at + 1, BigInt(v));
      }
      return;
    }
    if (v < MIN_INT64 || v > MAX_INT64) throw new RangeError(`${v} is outside the 64-bit integer range`);
    if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) {
      this.integer(Number(v));
      return;
    }
    const at = this.#reserve(9);
    this.#buffer[at] = 0xcb;
    this.#view.setBigInt64(at + 1, v);
  }

  #header(length: number, tiny: number, m8: number, m16: number, m32: number, what: string): void {
    if (length < 16 && tiny !== 0) {
      this.#byte(tiny | length);
    } else if (length < 0x100 && m8 !== 0) {
      const at = this.#reserve(2);
      this.#buffer[at] = m8;
      this.#buffer[at + 1] = length;
    } else if (length < 0x10000) {
      const at = this.#reserve(3);
      this.#buffer[at] = m16;
      this.#view.setUint16(at + 1, length);
    } else if (length <= 0xffffffff) {
      const at = this.#reserve(5);
      this.#buffer[at] = m32;
      this.#view.setUint32(at + 1, length);
    } else {
      throw new RangeError(`a ${what} of ${length} items is too long for PackStream`);
    }
  }

  string(v: string): void {
    const max = v.length * 3;
    if (v.length < 16 && max < 16) {
      // Short: write in place after a one-byte header.
      const at = this.#reserve(1 + max);
      const written = this.#buffer.write(v, at + 1, 'utf8');
      this.#buffer[at] = 0x80 | written;
      this.length = at + 1 + written;
      return;
    }
    const length = Buffer.byteLength(v, 'utf8');
    this.#header(length, 0x80, 0xd0, 0xd1, 0xd2, 'string');
    const at = this.#reserve(length);
    this.#buffer.write(v, at, 'utf8');
  }

  /** Bytes as they are (framing). */
  raw(v: Uint8Array): void {
    const at = this.#reserve(v.length);
    this.#buffer.set(v, at);
  }

  bytesValue(v: Uint8Array): void {
    this.#header(v.length, 0, 0xcc, 0xcd, 0xce, 'byte array');
    const at = this.#reserve(v.length);
    this.#buffer.set(v, at);
  }

  listHeader(length: number): void {
    this.#header(length, 0x90, 0xd4, 0xd5, 0xd6, 'list');
  }

  mapHeader(size: number): void {
    this.#header(size, 0xa0, 0xd8, 0xd9, 0xda, 'map');
  }

  structHeader(tag: number, size: number): void {
    if (size > 15) throw new RangeError(`a structure has at most 15 fields, got ${size}`);
    const at = this.#reserve(2);
    this.#buffer[at] = 0xb0 | size;
    this.#buffer[at + 1] = tag;
  }

  /**
   * Plain values: null/undefined, booleans, numbers (whole ones as Integer, others and Number
   * objects as Float),
   * bigints, strings, byte arrays, arrays, Structures and objects or Maps with string keys.
   */
  value(v: unknown): void {
    if (v === null || v === undefined) this.null();
    else if (typeof v === 'boolean') this.boolean(v);
    else if (typeof v === 'number') Number.isInteger(v) ? this.integer(v) : this.float(v);
    else if (v instanceof Number) this.float(v.valueOf());
    else if (typeof v === 'bigint') this.integer(v);
    else if (typeof v === 'string') this.string(v);
    else if (v instanceof Uint8Array) this.bytesValue(v);
    else if (Array.isArray(v)) {
      this.listHeader(v.length);
      for (const item of v) this.value(item);
    } else if (v instanceof Structure) {
      this.structHeader(v.tag, v.fields.length);
      for (const field of v.fields) this.value(field);
    } else if (v instanceof Map) {
      this.mapHeader(v.size);
      for (const [key, item] of v) {
        this.string(String(key));
        this.value(item);
      }
    } else if (typeof v === 'object') {
      const keys = Object.keys(v);
      this.mapHeader(keys.length);
      for (const key of keys) {
        this.string(key);
        this.value((v as Record<string, unknown>)[key]);
      }
    } else {
      throw new TypeError(`cannot encode a ${typeof v} in PackStream`);
    }
  }
}
