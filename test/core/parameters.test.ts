// Parameters that used to turn silently into something else (Maps, Sets, class instances,
// INT128 bigints, lone surrogates), and the ISO forms of temporal results.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

let db: Database;
let conn: Connection;

beforeAll(() => {
  db = new Database(':memory:', { maxThreadNum: 1 });
  conn = db.connect();
});

afterAll(() => {
  conn.close();
  db.close();
});

/** Runs `RETURN $v` through every entry point; returns what query() gave. */
async function roundTrip(value: unknown): Promise<{ value: unknown; type: string }> {
  const r = await conn.query('RETURN $v AS v', { v: value });
  expect(conn.querySync('RETURN $v AS v', { v: value }).rows).toEqual(r.rows);
  return { value: r.rows[0]![0], type: r.types[0]! };
}

async function refused(value: unknown, message: RegExp, type: new (...args: never[]) => Error) {
  await expect(conn.query('RETURN $v', { v: value })).rejects.toThrow(message);
  await expect(conn.query('RETURN $v', { v: value })).rejects.toBeInstanceOf(type);
  expect(() => conn.querySync('RETURN $v', { v: value })).toThrow(message);
  // Nested too, and beside other parameters.
  await expect(conn.query('RETURN $v', { a: 1, v: [{ inner: value }] })).rejects.toThrow(message);
}

describe('object parameters', () => {
  it('passes a Map as a MAP, and MAP results come back as Maps', async () => {
    const { value, type } = await roundTrip(
      new Map([
        ['a', 1],
        ['b', 2.5],
      ]),
    );
    expect(type).toBe('MAP(STRING, DOUBLE)');
    expect(value).toEqual(
      new Map([
        ['a', 1],
        ['b', 2.5],
      ]),
    );
    const keyed = await conn.query('RETURN map_keys($m) AS k, map_values($m) AS v', {
      m: new Map([[2, 'two']]),
    });
    expect(keyed.rows).toEqual([[[2], ['two']]]);
    expect(keyed.types).toEqual(['INT64[]', 'STRING[]']);
    expect((await roundTrip(new Map())).type).toMatch(/^MAP/);
    const mixedKeys = new Map<unknown, unknown>([
      ['a', 1],
      [2, 1],
    ]);
    await refused(mixedKeys, /Map parameter mixes key types STRING and INT64/, TypeError);
    const mixedValues = new Map<unknown, unknown>([
      ['a', 1],
      ['b', 'c'],
    ]);
    await refused(mixedValues, /Map parameter mixes value types INT64 and STRING/, TypeError);
  });

  it('refuses Sets, ArrayBuffers, class instances and other non-plain objects', async () => {
    class Point {
      x = 1;
    }
    const cases: [unknown, RegExp][] = [
      [new Set([1, 2]), /a Set object cannot be a query parameter/],
      [new ArrayBuffer(4), /an ArrayBuffer object cannot be a query parameter/],
      [new DataView(new ArrayBuffer(2)), /a DataView object/],
      [new Point(), /a Point object/],
      [/re/, /a RegExp object/],
      [new WeakMap(), /a WeakMap object/],
      [Promise.resolve(1), /a Promise object/],
      [new Number(1), /a Number object/],
      [new Int32Array([1, 2]), /only Uint8Array typed arrays/],
      [Object.create({ inherited: 1 }), /an object whose prototype is not Object.prototype/],
    ];
    for (const [value, message] of cases) await refused(value, message, TypeError);
  });

  it('still takes plain objects, null-prototype objects, arrays, Dates and bytes', async () => {
    expect((await roundTrip({ a: 1, b: 'x' })).value).toEqual({ a: 1, b: 'x' });
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: true });
    expect((await roundTrip(bare)).value).toEqual({ k: true });
    expect((await roundTrip(JSON.parse('{"n": [1, 2]}'))).value).toEqual({ n: [1, 2] });
    expect((await roundTrip(new Uint8Array([1, 2]))).value).toEqual(Buffer.from([1, 2]));
    expect((await roundTrip(new Date(0))).value).toBe('1970-01-01T00:00:00Z');
  });
});

describe('integer and text parameters', () => {
  it('takes every INT128 as a bigint, down to -2^127', async () => {
    for (const v of [-(2n ** 127n), -(2n ** 127n) + 1n, 2n ** 127n - 1n, -(2n ** 63n) - 1n]) {
      const { value, type } = await roundTrip(v);
      expect(type).toBe('INT128');
      expect(value).toBe(v);
    }
    await refused(-(2n ** 127n) - 1n, /outside the INT128 range/, RangeError);
    await refused(2n ** 127n, /outside the INT128 range/, RangeError);
  });

  it('refuses a string with a lone surrogate instead of storing U+FFFD', async () => {
    for (const text of ['\uD800', 'a\uDC00b', 'x\uDBFF', '\uDFFF\uD800']) {
      await refused(text, /lone surrogate/, TypeError);
    }
    // Surrogate pairs and U+FFFD itself are text.
    expect((await roundTrip('\uD83D\uDE00 \uFFFD')).value).toBe('\uD83D\uDE00 \uFFFD');
    expect((await roundTrip(`${'é'.repeat(300)}\uFFFD`)).value).toBe(`${'é'.repeat(300)}\uFFFD`);
    await refused(`${'é'.repeat(300)}\uD800`, /lone surrogate/, TypeError);
  });
});

describe('temporal results', () => {
  it('are ISO 8601 with expanded years outside 0000..9999, readable by Date', async () => {
    const cases: [Date, string][] = [
      [new Date(8.64e15), '+275760-09-13T00:00:00Z'],
      [new Date(-8.64e15), '-271821-04-20T00:00:00Z'],
      [new Date(Date.UTC(10000, 0, 1)), '+010000-01-01T00:00:00Z'],
      [new Date('-000100-01-01T00:00:00Z'), '-000100-01-01T00:00:00Z'],
      [new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)), '9999-12-31T23:59:59.999Z'],
    ];
    for (const [date, iso] of cases) {
      const { value } = await roundTrip(date);
      expect(value).toBe(iso);
      expect(new Date(value as string).getTime()).toBe(date.getTime());
    }
    const dates = await conn.query(
      'RETURN date("10000-01-01") AS a, date("-0100-03-01") AS b, date("0001-01-01") AS c',
    );
    expect(dates.rows).toEqual([['+010000-01-01', '-000100-03-01', '0001-01-01']]);
    // Kùzu's text form is unchanged.
    expect((await conn.queryText('RETURN date("-0100-03-01") AS b')).rows).toEqual([['-0100-03-01']]);
  });
});
