// The per-message limits of the Bolt server (issue 34): before login a message is at most
// 16 KiB, 256 values and 8 levels deep, and one over them closes the connection; once logged in
// a message over `boltMaxMessageValues` is refused on its own (FAILURE, then FAILED until
// RESET) before anything converts it, and /status keeps answering while clients send such
// messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/core/database.js';
import { GraphDBService } from '../../src/service/service.js';
import { FAILURE, HELLO, IGNORED, PULL, RawClient, RESET, RUN, SUCCESS } from './raw-client.js';

let service: GraphDBService;
let port: number;

beforeAll(async () => {
  service = new GraphDBService(new Database(':memory:', { maxThreadNum: 2 }), {
    queryPort: 0,
    boltPort: 0,
    autoCompaction: false,
    console: false,
    boltMaxMessageValues: 1000,
  });
  await service.start();
  port = service.boltPort as number;
});

afterAll(async () => {
  await service?.close();
});

/** A list of `n` empty lists: n + 1 values in a few bytes each. */
function emptyLists(n: number): unknown[][] {
  return Array.from({ length: n }, () => []);
}

/** A value `levels` lists deep. */
function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

/** Sends a HELLO with `extra` before login; resolves to its FAILURE's message, once closed. */
async function refusedHello(extra: Record<string, unknown>): Promise<string> {
  const client = new RawClient(port);
  await client.handshake(0x00000405);
  client.send(HELLO, extra);
  const answer = await client.next();
  expect(answer.tag).toBe(FAILURE);
  await client.closed;
  return answer.meta.message as string;
}

describe('before login', () => {
  it('refuses a HELLO over 256 values, 8 levels or 16 KiB and closes the connection', async () => {
    expect(await refusedHello({ user_agent: 'raw/1', extra: emptyLists(300) })).toMatch(
      /more than 256 values/,
    );
    expect(await refusedHello({ user_agent: 'raw/1', extra: nested(9) })).toMatch(/deeper than 8 levels/);
    expect(await refusedHello({ user_agent: 'x'.repeat(20_000) })).toMatch(/larger than the 16384 bytes/);
    // Within the limits HELLO is served as before.
    const client = new RawClient(port);
    await client.handshake(0x00000405);
    client.send(HELLO, { user_agent: 'raw/1', extra: emptyLists(200) });
    expect((await client.next()).tag).toBe(SUCCESS);
    client.close();
  });
});

describe('once logged in', () => {
  it('refuses a message over boltMaxMessageValues on its own and stays usable', async () => {
    const client = new RawClient(port);
    await client.login(0x00000405);
    // A message over the pre-login size is fine now.
    client.send(RUN, 'RETURN size($p) AS n', { p: 'y'.repeat(40_000) }, {});
    client.send(PULL, { n: -1 });
    expect((await client.next()).tag).toBe(SUCCESS);
    expect((await client.summary()).records).toEqual([[40_000]]);
    client.send(RUN, 'RETURN size($p) AS n', { p: emptyLists(5000) }, {});
    client.send(PULL, { n: -1 });
    const refused = await client.next();
    expect(refused.tag).toBe(FAILURE);
    expect(refused.meta.message).toMatch(/more than 1000 values/);
    expect((await client.next()).tag).toBe(IGNORED);
    client.send(RESET);
    expect((await client.next()).tag).toBe(SUCCESS);
    client.send(RUN, 'RETURN size($p) AS n', { p: emptyLists(900) }, {});
    client.send(PULL, { n: -1 });
    expect((await client.next()).tag).toBe(SUCCESS);
    expect((await client.summary()).records).toEqual([[900]]);
    // A parameter may nest 64 levels (as in the embedded API); one more is refused.
    client.send(RUN, 'RETURN 1 AS n', { p: nested(64) }, {});
    client.send(PULL, { n: -1 });
    expect((await client.next()).tag).toBe(SUCCESS);
    expect((await client.summary()).records).toEqual([[1]]);
    client.send(RUN, 'RETURN 1 AS n', { p: nested(65) }, {});
    const deep = await client.next();
    expect(deep.tag).toBe(FAILURE);
    expect(deep.meta.message).toMatch(/deeper than 66 levels/);
    client.close();
  });

  it('keeps /status answering while clients send oversized messages', async () => {
    const hostile = new RawClient(port);
    await hostile.login(0x00000405);
    const rounds = 5;
    const big = emptyLists(200_000);
    for (let i = 0; i < rounds; i++) hostile.send(RUN, 'RETURN size($p)', { p: big }, {});
    hostile.send(RESET);
    const pending = Array.from({ length: 6 }, () =>
      refusedHello({ user_agent: 'raw/1', extra: emptyLists(5000) }),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await fetch(`${service.url}/status`)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    for (const message of await Promise.all(pending)) expect(message).toMatch(/more than 256 values/);
    // The first is refused (or IGNORED, when the RESET came before it was served), the others
    // IGNORED (FAILED, or before the RESET); the RESET clears FAILED.
    const answers = [];
    for (let i = 0; i <= rounds; i++) answers.push((await hostile.next()).tag);
    expect([FAILURE, IGNORED]).toContain(answers[0]);
    expect(answers.slice(1)).toEqual([...Array(rounds - 1).fill(IGNORED), SUCCESS]);
    hostile.send(RUN, 'RETURN size($p)', { p: big }, {});
    const refused = await hostile.next();
    expect(refused.tag).toBe(FAILURE);
    expect(refused.meta.message).toMatch(/more than 1000 values/);
    hostile.close();
  });
});
