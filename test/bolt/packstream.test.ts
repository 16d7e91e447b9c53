// PackStream v1 and Bolt framing (src/bolt/packstream.ts, src/bolt/framing.ts): round trips
// of every value kind, and bytes that are hostile: truncated, oversized, too deep, unknown.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkReader, MAX_CHUNK_BYTES, MessageWriter } from '../../src/bolt/framing.js';
import { decode, Encoder, PackStreamError, Structure } from '../../src/bolt/packstream.js';

function encode(value: unknown): Buffer {
  const out = new Encoder(16);
  out.value(value);
  return Buffer.from(out.bytes());
}

/** Values as the decoder gives them back (whole floats are Number objects, maps prototype-less). */
const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.maxSafeInteger(),
  fc
    .bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
    .filter((v) => v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)),
  fc.double({ noNaN: true }).filter((v) => !Number.isInteger(v)),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ minLength: 200, maxLength: 400 }),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
);

const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('list'), tie('map'), tie('struct')),
  list: fc.array(tie('any'), { maxLength: 20 }),
  map: fc
    .dictionary(fc.string({ maxLength: 10 }), tie('any'), { maxKeys: 20 })
    .map((entries) => Object.assign(Object.create(null), entries)),
  struct: fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.array(tie('any'), { maxLength: 15 }))
    .map(([tag, fields]) => new Structure(tag, fields)),
})).any;

describe('PackStream round trips', () => {
  it('decodes what it encodes, for any value', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(decode(encode(v))).toEqual(v);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a whole float a float and uses the smallest integer form', () => {
    expect([...encode(new Number(1))]).toEqual([0xc1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]);
    expect(decode(encode(new Number(1)))).toEqual(new Number(1));
    expect([...encode(-16)]).toEqual([0xf0]);
    expect([...encode(-17)]).toEqual([0xc8, 0xef]);
    expect([...encode(127)]).toEqual([0x7f]);
    expect([...encode(128)]).toEqual([0xc9, 0x00, 0x80]);
    expect([...encode(2 ** 31)]).toEqual([0xcb, 0, 0, 0, 0, 0x80, 0, 0, 0]);
    expect(decode(Buffer.from([0xcb, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).toBe(2n ** 63n - 1n);
    expect([...encode('')]).toEqual([0x80]);
    expect([...encode('a'.repeat(16))].slice(0, 2)).toEqual([0xd0, 16]);
    expect([...encode(new Array(16).fill(1))].slice(0, 2)).toEqual([0xd4, 16]);
  });

  it('reads short strings byte by byte only while they are ASCII', () => {
    for (const text of [
      '',
      'a',
      'a'.repeat(31),
      'b'.repeat(32),
      'c'.repeat(33),
      'héllo',
      'ab日本',
      'x\u0000y',
    ]) {
      expect(decode(encode(text))).toBe(text);
    }
    // Invalid UTF-8 after an ASCII start is still refused.
    expect(() => decode(Buffer.from([0x83, 0x61, 0x62, 0xff]))).toThrow(/not valid UTF-8/);
  });

  it('writes a one-byte value at the moment the buffer grows (a lost byte once)', () => {
    for (let size = 1; size <= 12; size++) {
      const out = new Encoder(size);
      const v = new Structure(0, [-(2n ** 53n), [[]]]);
      out.value(v);
      expect(decode(out.bytes())).toEqual(v);
    }
  });

  it('refuses integers beyond 64 bits when encoding', () => {
    expect(() => encode(2n ** 63n)).toThrow(RangeError);
  });
});

describe('PackStream hostile input', () => {
  const cases: Array<[string, number[], RegExp]> = [
    ['an empty message', [], /truncated value/],
    ['a truncated int64', [0xcb, 1, 2], /truncated int64/],
    ['a truncated float', [0xc1, 0, 0], /truncated float/],
    ['a string longer than the message', [0xd2, 0xff, 0xff, 0xff, 0xff, 0x41], /truncated string/],
    ['a list longer than the message', [0xd6, 0x7f, 0xff, 0xff, 0xff, 1], /list of 2147483647 items/],
    ['a map longer than the message', [0xda, 0x7f, 0xff, 0xff, 0xff], /map of 2147483647 items/],
    ['bytes longer than the message', [0xce, 0x10, 0, 0, 0], /truncated bytes/],
    ['a structure without its tag', [0xb1], /truncated structure tag/],
    ['a structure with missing fields', [0xb3, 0x4e, 1], /structure of 3 items/],
    ['a map key that is not a string', [0xa1, 1, 2], /map key .* is not a string/],
    ['invalid UTF-8', [0x82, 0xc3, 0x28], /not valid UTF-8/],
    ['bytes after the value', [0x01, 0x02], /1 bytes follow/],
  ];
  for (const [what, bytes, message] of cases) {
    it(`refuses ${what}`, () => {
      expect(() => decode(Buffer.from(bytes))).toThrow(PackStreamError);
      expect(() => decode(Buffer.from(bytes))).toThrow(message);
    });
  }

  it('refuses every unused marker', () => {
    const unused = [0xc4, 0xc5, 0xc6, 0xc7, 0xcf, 0xd3, 0xd7, 0xdb, 0xdc, 0xdd, 0xde, 0xdf];
    for (let m = 0xe0; m <= 0xef; m++) unused.push(m);
    for (const marker of unused) {
      expect(() => decode(Buffer.from([marker, 0, 0, 0, 0]))).toThrow(/unknown PackStream marker/);
    }
  });

  it('refuses nesting deeper than the limit, without exhausting the stack', () => {
    const deep = Buffer.alloc(100_000, 0x91); // [[[[...
    expect(() => decode(deep)).toThrow(/nest deeper than 64/);
    const ok = Buffer.concat([Buffer.alloc(63, 0x91), Buffer.from([0x01])]);
    expect(() => decode(ok)).not.toThrow();
  });

  it('bounds the values of one message', () => {
    const many = Buffer.concat([Buffer.from([0xd6, 0, 0x0f, 0x42, 0x40]), Buffer.alloc(1_000_000, 0x01)]);
    expect(() => decode(many, { maxDepth: 64, maxValues: 1000 })).toThrow(/more than 1000 values/);
  });

  it('never throws anything but PackStreamError on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          decode(Buffer.from(bytes));
        } catch (error) {
          expect(error).toBeInstanceOf(PackStreamError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('chunked framing', () => {
  function frame(messages: Buffer[]): Buffer {
    const writer = new MessageWriter();
    for (const message of messages) {
      writer.begin().raw(message);
      writer.end();
    }
    return writer.take();
  }

  it('reassembles messages from any split of the stream, skipping NOOPs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 200_000 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.integer({ min: 1, max: 70_000 }), { maxLength: 10 }),
        (bodies, cuts) => {
          const messages = bodies.map((b) => Buffer.from(b));
          const stream = Buffer.concat([Buffer.from([0, 0]), frame(messages), Buffer.from([0, 0])]);
          const reader = new ChunkReader(1 << 20);
          const got: Buffer[] = [];
          let at = 0;
          for (const cut of cuts) {
            if (at >= stream.length) break;
            got.push(...reader.push(stream.subarray(at, Math.min(stream.length, at + cut))));
            at += cut;
          }
          if (at < stream.length) got.push(...reader.push(stream.subarray(at)));
          expect(got).toEqual(messages);
          expect(reader.midMessage).toBe(false);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('splits a large message into chunks of at most 65535 bytes', () => {
    const body = Buffer.alloc(MAX_CHUNK_BYTES * 2 + 10, 7);
    const framed = frame([body]);
    expect(framed.readUInt16BE(0)).toBe(MAX_CHUNK_BYTES);
    expect(framed.length).toBe(body.length + 3 * 2 + 2);
    expect(new ChunkReader(1 << 20).push(framed)).toEqual([body]);
  });

  it('refuses a message larger than the limit before buffering it', () => {
    const reader = new ChunkReader(100_000);
    reader.push(Buffer.from([0xff, 0xff]));
    reader.push(Buffer.alloc(0xffff));
    expect(() => reader.push(Buffer.from([0xff, 0xff]))).toThrow(/larger than the 100000 bytes/);
  });

  it('keeps a partly read message pending', () => {
    const reader = new ChunkReader(1000);
    expect(reader.push(Buffer.from([0x00]))).toEqual([]);
    expect(reader.push(Buffer.from([0x02, 0xaa]))).toEqual([]);
    expect(reader.midMessage).toBe(true);
    expect(reader.push(Buffer.from([0xbb, 0x00, 0x00]))).toEqual([Buffer.from([0xaa, 0xbb])]);
  });
});
