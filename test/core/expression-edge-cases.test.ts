// Expression edge cases that differential testing against Kùzu pinned down: unary minus and
// IN, large doubles as text, DATE and TIMESTAMP construction and arithmetic out of range.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

describe('expression edge cases', () => {
  let db: Database;
  let conn: Connection;

  beforeEach(() => {
    db = new Database(':memory:');
    conn = db.connect();
  });

  afterEach(() => {
    db.close();
  });

  const value = async (expression: string, params?: Record<string, unknown>) =>
    (await conn.query(`RETURN ${expression} AS v`, params as never)).rows[0][0];
  const text = async (expression: string) => (await conn.queryText(`RETURN ${expression} AS v`)).rows[0][0];

  it('binds a unary minus tighter than IN and the other list and string operators', async () => {
    expect(await value('-1 IN [-1]')).toBe(true);
    expect(await value('-1 IN [1]')).toBe(false);
    expect(await value('NOT -1 IN [1]')).toBe(true);
    expect(await value('- 2 IN [-2, 3]')).toBe(true);
    expect(await value('-$x IN [-5]', { x: 5 })).toBe(true);
    expect(await value('-[1, 2][1] IN [-1]')).toBe(true); // -(l[1]); subscripts are 1-based
    expect(await value('-1.5 IN [-1.5]')).toBe(true);
    expect(await value('-1 IS NULL')).toBe(false);
    expect(await value('-NULL IS NULL')).toBe(true);
    expect(await value('-1 IN [1] OR -2 IN [-2]')).toBe(true);
    expect(await value('-1 IN [-1] AND -1.5 IS NULL')).toBe(false);
    // IN still binds tighter than arithmetic (as in Kùzu): 1 - ((-1) IN [-1]) is INT64 - BOOL.
    await expect(value('1 - -1 IN [-1]')).rejects.toMatchObject({ code: 'QUERY_BINDING' });
    expect(await value('1 - -1')).toBe(2);
  });

  it('prints every digit of a large DOUBLE, with six decimals', async () => {
    const e100 =
      '10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104.000000';
    expect(await value('CAST(1e100 AS STRING)')).toBe(e100);
    expect(await value('CAST(-1e65 AS STRING)')).toBe(
      '-99999999999999999209038626283633850822756121694230455365568299008.000000',
    );
    expect(await value('CAST(1e60 AS STRING)')).toBe(
      '999999999999999949387135297074018866963645011013410073083904.000000',
    );
    expect(await value('to_string(1e100)')).toBe(e100);
    expect(await value("concat('x', CAST(1e100 AS STRING))")).toBe(`x${e100}`);
    expect(await text('1e100')).toBe(e100);
    expect(await text('[1e100]')).toBe(`[${e100}]`);
    expect(((await value('CAST(-1.7976931348623157e308 AS STRING)')) as string).length).toBe(317);
    // Values themselves stay numbers.
    expect(await value('1e100')).toBe(1e100);
  });

  it('refuses DATE and TIMESTAMP values outside their range instead of wrapping around', async () => {
    const runtime = { code: 'QUERY_RUNTIME' };
    await expect(value('make_date(2147483647, 1, 1)')).rejects.toMatchObject({
      ...runtime,
      message: expect.stringContaining('Date out of range: 2147483647-1-1'),
    });
    await expect(value("date('2020-01-01') + 2147483647")).rejects.toMatchObject({
      ...runtime,
      message: expect.stringContaining('outside the DATE range (-290308-12-22 to 294247-01-10)'),
    });
    await expect(value("date('2020-01-01') - 2147483647")).rejects.toMatchObject(runtime);
    await expect(value("date('2020-01-01') + $n", { n: 1e15 })).rejects.toMatchObject(runtime);
    await expect(value("date('2020-01-01') + interval('300000 years')")).rejects.toMatchObject(runtime);
    await expect(value("timestamp('2020-01-01') + interval('300000 years')")).rejects.toMatchObject({
      ...runtime,
      message: expect.stringContaining('outside the TIMESTAMP range'),
    });
    await expect(value("timestamp('294247-01-10 04:00:54.775807') + interval('1 us')")).rejects.toMatchObject(
      runtime,
    );
    await expect(value("interval('2000000000 days') + interval('2000000000 days')")).rejects.toMatchObject(
      runtime,
    );
    await expect(value('epoch_ms(9223372036854775807)')).rejects.toMatchObject(runtime);
    await expect(value('to_timestamp(1e300)')).rejects.toMatchObject(runtime);
    await expect(value("date_trunc('millennium', date('-290308-12-22'))")).rejects.toMatchObject(runtime);
    await expect(value("CAST(timestamp('3000-01-01') AS TIMESTAMP_NS)")).rejects.toMatchObject(runtime);
    await expect(value("date('999999-01-01')")).rejects.toMatchObject(runtime);
    await expect(value("timestamp('300000-01-01')")).rejects.toMatchObject(runtime);
    // The ends of the range are values like any other.
    expect(await text("date('294247-01-09') + 1")).toBe('294247-01-10');
    expect(await text('make_date(-290308, 12, 22)')).toBe('-290308-12-22');
    expect(await text("date('2020-01-31') + interval('1 month')")).toBe('2020-02-29');
    expect(await text("timestamp('294247-01-10 04:00:54.775807')")).toBe('294247-01-10 04:00:54.775807');
  });
});
