// fast-check arbitraries for the HTTP surface of the service: methods, request targets, header
// sets, framings and bodies (JSON of every shape written as text, so that numbers past 2^53,
// 1e400, lone surrogates, duplicate keys and deep nesting get through), valid requests and
// their byte-level mutations.

import fc from 'fast-check';

/** Queries over the fuzz schema (Person, Knows); the parameters they name are in PARAM_NAMES. */
export const QUERIES: readonly string[] = [
  'RETURN 1',
  'RETURN $x AS x',
  'RETURN $a + $b AS s',
  'RETURN $x, $list, $map',
  'UNWIND $list AS v RETURN v',
  'MATCH (p:Person) RETURN p.name, p.age ORDER BY p.id LIMIT 5',
  'MATCH (p:Person {id: $id}) RETURN p',
  'MATCH (p:Person) WHERE p.age > $age RETURN count(*)',
  'MATCH (a:Person)-[k:Knows]->(b:Person) RETURN a.id, b.id, k.since LIMIT 10',
  'MATCH (a:Person)-[*1..4]->(b:Person) RETURN count(*)',
  'MATCH p = (a:Person)-[:Knows*1..3]->(b:Person) WHERE a.id = $id RETURN p LIMIT 3',
  'CREATE (:Person {id: $id, name: $name, age: $age})',
  'MERGE (p:Person {id: $id}) SET p.name = $name RETURN p.id',
  'MATCH (p:Person) WHERE p.id = $id SET p.age = $age',
  'MATCH (a:Person {id: $a}), (b:Person {id: $b}) CREATE (a)-[:Knows {since: $x}]->(b)',
  'MATCH (p:Person {id: $id}) DETACH DELETE p',
  'UNWIND range(1, 3000000) AS x RETURN sum(x)',
  'UNWIND range(1, 100000) AS x UNWIND range(1, 100) AS y RETURN count(*)',
  'MATCH (a:Person), (b:Person), (c:Person) RETURN count(*)',
  'RETURN 1; RETURN 2',
  'RETURN nextval("no_such_sequence")',
  'CALL threads = 1',
  'CREATE NODE TABLE FuzzT(id INT64, PRIMARY KEY(id))',
  'COPY Person FROM "/no/such/file.csv"',
  'MATCH (n) RETURN labels(n), count(*)',
  'RETURN [1, 2, 3][$x]',
  'RETURN CAST($x AS INT64)',
  'RETURN $x / $a',
  'RETUR 1',
  '',
];

export const PARAM_NAMES = ['x', 'a', 'b', 'id', 'name', 'age', 'list', 'map'];

const NUMBER_TEXTS = [
  '0',
  '-0',
  '1',
  '-1',
  '0.5',
  '1e400',
  '-1e400',
  '1e-400',
  '4.9e-324',
  '1.7976931348623157e308',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775808',
  '-9223372036854775809',
  '170141183460469231731687303715884105727',
  '170141183460469231731687303715884105728',
  '-170141183460469231731687303715884105728',
  '-170141183460469231731687303715884105729',
  '123456789012345678901234567890123456789012345678901234567890',
  '1E5',
  '2147483647',
  '2147483648',
  // Not JSON numbers: the parser must refuse them.
  '01',
  '1.',
  '.5',
  '+1',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '1e',
];

const STRING_TEXTS = [
  '""',
  '"\\ud800"',
  '"\\udc00x"',
  '"\\ud83d\\ude00"',
  '"\\u0000"',
  '"\\x41"',
  '"\\u12"',
  '"a\\"b"',
  '"tab\there"',
  '"\u0000raw nul"',
  '"line\nbreak"',
  '"\\/"',
];

/** A JSON number written as text, including ones a double cannot hold and ones JSON forbids. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }).map(String),
  fc.constantFrom(...NUMBER_TEXTS),
);

/** A JSON string written as text: any code units (lone surrogates escaped) or odd escapes. */
export const stringText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(...STRING_TEXTS),
);

const keyText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PARAM_NAMES).map((k) => JSON.stringify(k)),
  stringText,
);

/** Any JSON value as text, nested a few levels, with duplicate keys now and then. */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('null', 'true', 'false'),
    numberText,
    stringText,
    fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(keyText, tie('value')), { maxLength: 5 })
      .map((entries) => `{${entries.map(([k, v]) => `${k}:${v}`).join(',')}}`),
  ),
})).value;

/** `depth` levels of arrays or maps around a value. */
export const deepText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 50, max: 30_000 }), fc.constantFrom('array', 'map', 'mixed'))
  .map(([depth, shape]) => {
    if (shape === 'array') return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    if (shape === 'map') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    return `${'[{"a":'.repeat(depth >> 1)}1${'}]'.repeat(depth >> 1)}`;
  });

const accessModeText: fc.Arbitrary<string> = fc.oneof(
  fc
    .constantFrom('read', 'r', 'insert', 'i', 'update', 'u', 'schema', 's', 'READ', 'write', '', 'rw')
    .map((m) => JSON.stringify(m)),
  jsonText,
);

const timeoutText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('1', '5', '50', '1000', '2147483647', '2147483648', '0', '-1', '1.5', '1e3', '1e400'),
  fc.constantFrom('"100"', 'null', 'true', '[]', '{}'),
  numberText,
  jsonText,
);

/** The text of a POST /cypher body: an object with any of the fields, valid or not. */
export const requestText: fc.Arbitrary<string> = fc
  .record(
    {
      query: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...QUERIES).map((q) => JSON.stringify(q)) },
        { weight: 1, arbitrary: jsonText },
      ),
      parameters: fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .array(fc.tuple(keyText, fc.oneof(jsonText, numberText)), { maxLength: 6 })
            .map((entries) => `{${entries.map(([k, v]) => `${k}:${v}`).join(',')}}`),
        },
        { weight: 1, arbitrary: jsonText },
        { weight: 1, arbitrary: deepText.map((deep) => `{"x":${deep}}`) },
      ),
      access_mode: accessModeText,
      timeout_ms: timeoutText,
      extra: fc.tuple(stringText, jsonText).map(([k, v]) => `${k}:${v}`),
    },
    { requiredKeys: [] },
  )
  .map((fields) => {
    const entries = Object.entries(fields).map(([name, value]) =>
      name === 'extra' ? value : `"${name}":${value}`,
    );
    return `{${entries.join(',')}}`;
  });

/** A valid request for one of QUERIES, with fitting parameters and an optional time limit. */
export const validRequest: fc.Arbitrary<string> = fc
  .record(
    {
      query: fc.constantFrom(...QUERIES.filter((q) => q !== '' && !q.includes(';'))),
      id: fc.integer({ min: 0, max: 60 }),
      a: fc.integer({ min: 0, max: 60 }),
      b: fc.integer({ min: 0, max: 60 }),
      x: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.string({ maxLength: 5 })),
      name: fc.string({ maxLength: 12 }),
      age: fc.integer({ min: 0, max: 100 }),
      list: fc.array(fc.integer(), { maxLength: 5 }),
      map: fc.dictionary(fc.constantFrom('k', 'v'), fc.integer()),
      access_mode: fc.option(fc.constantFrom('read', 'insert', 'update', 'schema'), { nil: undefined }),
      timeout_ms: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
    },
    { requiredKeys: ['query'] },
  )
  .map(({ query, access_mode, timeout_ms, ...parameters }) =>
    JSON.stringify({ query, parameters, access_mode, timeout_ms }),
  );

/** Byte-level mutations of a text: deletions, duplications, insertions, flips. */
export function mutated(source: fc.Arbitrary<string>): fc.Arbitrary<Buffer> {
  const edit = fc.record({
    kind: fc.constantFrom('delete', 'duplicate', 'insert', 'flip', 'truncate'),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 16 }),
    byte: fc.integer({ min: 0, max: 255 }),
    text: fc.string({ unit: 'grapheme', maxLength: 4 }),
  });
  return fc.tuple(source, fc.array(edit, { minLength: 1, maxLength: 4 })).map(([text, edits]) => {
    let bytes = Buffer.from(text, 'utf8');
    for (const e of edits) {
      const at = bytes.length === 0 ? 0 : e.at % (bytes.length + 1);
      const end = Math.min(bytes.length, at + e.length);
      if (e.kind === 'delete') bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(end)]);
      else if (e.kind === 'duplicate') bytes = Buffer.concat([bytes.subarray(0, end), bytes.subarray(at)]);
      else if (e.kind === 'insert') {
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(e.text, 'utf8'), bytes.subarray(at)]);
      } else if (e.kind === 'flip' && at < bytes.length) {
        bytes = Buffer.from(bytes);
        bytes[at] = e.byte;
      } else if (e.kind === 'truncate') bytes = bytes.subarray(0, at);
    }
    return bytes;
  });
}

/** A body for POST /cypher (or any route): anything from valid requests to random bytes. */
export function bodyArb(maxBodyBytes: number): fc.Arbitrary<Buffer> {
  const utf8 = (a: fc.Arbitrary<string>) => a.map((s) => Buffer.from(s, 'utf8'));
  return fc.oneof(
    { weight: 6, arbitrary: utf8(requestText) },
    { weight: 8, arbitrary: utf8(validRequest) },
    { weight: 3, arbitrary: mutated(validRequest) },
    { weight: 2, arbitrary: mutated(requestText) },
    { weight: 2, arbitrary: utf8(jsonText) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)) },
    {
      weight: 1,
      // Invalid UTF-8 inside an otherwise valid request: overlong, surrogate, truncated, stray.
      arbitrary: fc
        .tuple(
          validRequest,
          fc.constantFrom(
            [0xc0, 0x80],
            [0xed, 0xa0, 0x80],
            [0xe2, 0x82],
            [0xff],
            [0x80],
            [0xf4, 0x90, 0x80, 0x80],
          ),
        )
        .map(([text, bad]) => {
          const at = text.indexOf(':') + 3;
          const bytes = Buffer.from(text, 'utf8');
          return Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]);
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(validRequest, fc.nat())
        .map(([text, n]) => Buffer.from(text.slice(0, n % text.length), 'utf8')),
    },
    { weight: 1, arbitrary: utf8(deepText) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '',
          ' ',
          '\ufeff{"query":"RETURN 1"}',
          '{"query":"RETURN 1"}garbage',
          '{"query":"RETURN 1"} {"query":"RETURN 2"}',
          '{"query":"RETURN 1","query":"RETURN 2"}',
          '{"query":"RETURN $x","parameters":{"x":1,"x":2}}',
          'null',
          '[]',
          '"RETURN 1"',
          '{"query":null}',
          '{"query":"RETURN 1","parameters":[]}',
          '{"query":"RETURN 1","parameters":null}',
        )
        .map((s) => Buffer.from(s, 'utf8')),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: maxBodyBytes - 16, max: maxBodyBytes + 4096 })
        .map((n) => Buffer.from(`{"query":"RETURN 1","pad":"${'x'.repeat(Math.max(0, n - 30))}"}`)),
    },
  );
}

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND'];

/** Method names node:http sends (tokens; CONNECT aside, which opens a tunnel). */
export const methodArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 1, arbitrary: fc.constantFrom('post', 'Get', 'M-SEARCH', 'PURGE') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,10}$/) },
);

/** Methods on the wire, including some no parser accepts. */
export const rawMethodArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: methodArb },
  { weight: 1, arbitrary: fc.constantFrom('CONNECT', '', 'G ET', 'GET\0', 'POST\t', '\u00e9') },
);

const ROUTE_PATHS = [
  '/cypher',
  '/schema',
  '/status',
  '/service_status',
  '/',
  '/index.html',
  '/console/',
  '/console/app.js',
  '/nope',
  '/tx',
  '/tx/x',
  '/tx/AAAAAAAAAAAAAAAAAAAAAA',
  '/tx/x/commit',
  '/tx//commit',
];

const ODD_PATHS = [
  '/./cypher',
  '/a/../cypher',
  '/%2e/cypher',
  '/%2e%2e/cypher',
  '/cypher/..',
  '/cypher/.',
  '//cypher',
  '/%63ypher',
  '/CYPHER',
  '/cypher%2f',
  '/cypher/',
  '/%',
  '/%zz',
  '/%C0%AF',
  '/%ff',
  '/%00',
  '/cypher%00',
  '/cypher?%',
  '/status?x=%zz',
  '/%E2%82%AC',
  '/console/../../package.json',
  '/console/%2e%2e/%2e%2e/package.json',
  '/console/..%2f..%2fpackage.json',
  'http://127.0.0.1/cypher',
  'http://evil.example/status',
  '*',
  'cypher',
  '/status#frag',
];

/** Request targets node:http accepts (no spaces or controls; anything else percent-encoded). */
export const pathArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ROUTE_PATHS) },
  { weight: 4, arbitrary: fc.constantFrom(...ODD_PATHS) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...ROUTE_PATHS), fc.constantFrom('?', '?a=1&a=2', '/..', '//', ';x', '?q=%FF'))
      .map(([p, s]) => p + s),
  },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 20_000 }).map((n) => `/${'a'.repeat(n)}`) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => `/${encodeURI(s)}`) },
);

/** Targets on the wire: also raw unicode, NUL, spaces and controls. */
export const rawPathArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: pathArb },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((s) => `/${s}`) },
  { weight: 1, arbitrary: fc.constantFrom('/cy pher', '/cypher\0', '/\u00e9t\u00e9', '/\t', '', ' /cypher') },
);

export const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset="UTF-8"',
  'APPLICATION/JSON',
  'application/json; charset=utf8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; boundary=x; charset=utf-8',
  'application/jsonx',
  'application/json5',
  'text/json',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  ';',
  'application/json;;;',
  '*/*',
];

export function hostValues(port: number): string[] {
  return [
    `127.0.0.1:${port}`,
    `127.0.0.1:${port}`,
    '127.0.0.1',
    'localhost',
    `localhost:${port}`,
    'LOCALHOST.',
    'app.localhost',
    '[::1]',
    `[::1]:${port}`,
    '[',
    '[::1',
    'evil.example',
    'evil.example:80',
    '',
    '127.0.0.1:99999',
    '0x7f.1',
    'a'.repeat(300),
  ];
}

export const ORIGINS = [
  'http://127.0.0.1',
  'null',
  'https://evil.example',
  'http://localhost',
  'file://',
  '',
  'x',
];

/** Header sets node:http sends: valid names and values, odd contents. */
export function headersArb(port: number, token: string | undefined): fc.Arbitrary<Record<string, string>> {
  const rare = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 12 });
  const usual = <T>(common: T, arb: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 6, arbitrary: fc.constant(common) }, { weight: 1, arbitrary: arb });
  return fc
    .record({
      'content-type': usual('application/json', fc.constantFrom(...CONTENT_TYPES)),
      host: usual(`127.0.0.1:${port}`, fc.constantFrom(...hostValues(port))),
      origin: rare(fc.oneof(fc.constantFrom(...ORIGINS), fc.constant(`http://127.0.0.1:${port}`))),
      authorization: rare(fc.constantFrom('Bearer ', 'Bearer wrong', 'Basic YTpi', 'bearer x y', 'x')),
      accept: fc.option(
        fc.constantFrom(
          'application/x-ndjson',
          'application/ndjson',
          'application/x-ndjson;q=0',
          'application/ndjson, application/json;q=0.5',
          'application/json',
          'text/html',
          '*/*',
          '',
        ),
        { nil: undefined, freq: 4 },
      ),
      'accept-encoding': rare(fc.constantFrom('gzip', 'br', 'identity', '*;q=0')),
      'if-none-match': rare(fc.constantFrom('*', '"x"', 'W/"y"')),
      'access-control-request-method': rare(fc.constantFrom('POST', 'GET', 'DELETE')),
      'x-huge': fc.option(
        fc.integer({ min: 1000, max: 20_000 }).map((n) => 'h'.repeat(n)),
        { nil: undefined, freq: 40 },
      ),
      'x-odd': rare(
        fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ' ')),
      ),
    })
    .map((record) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(record)) if (value !== undefined) headers[name] = value;
      return headers;
    })
    .map((headers) => {
      // The token, when the service wants one, unless the arbitrary sent its own Authorization.
      if (token !== undefined && headers.authorization === undefined) {
        return { ...headers, authorization: `Bearer ${token}` };
      }
      return headers;
    });
}

/** How a raw request frames its body. */
export type Framing =
  | 'length'
  | 'chunked'
  | 'none'
  | 'length-short'
  | 'length-long'
  | 'length-bad'
  | 'length-twice'
  | 'chunked-and-length'
  | 'encoding-bad'
  | 'chunked-broken';

export interface RawRequest {
  bytes: Buffer;
  /** The request is complete and well delimited as sent: an answer is due. */
  framed: boolean;
  head: boolean;
  halfClose: boolean;
  /** A rare request that relies on the server's own receive timeout to end. */
  waitForServer: boolean;
}

function chunk(body: Buffer, pieces: number): Buffer {
  const parts: Buffer[] = [];
  const step = Math.max(1, Math.ceil(body.length / pieces));
  for (let at = 0; at < body.length; at += step) {
    const part = body.subarray(at, at + step);
    parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** A whole request on the wire. */
export function rawRequestArb(port: number, token: string | undefined, maxBodyBytes: number) {
  const extraHeader = fc.oneof(
    fc.tuple(fc.constantFrom('Expect'), fc.constantFrom('100-continue', 'nonsense')),
    fc.tuple(
      fc.constantFrom('Connection'),
      fc.constantFrom('close', 'keep-alive', 'upgrade', 'Upgrade, close'),
    ),
    fc.tuple(fc.constantFrom('Upgrade'), fc.constantFrom('websocket', 'h2c')),
    fc.tuple(fc.constantFrom('Host'), fc.constantFrom(...hostValues(port))),
    fc.tuple(fc.constantFrom('Content-Type'), fc.constantFrom(...CONTENT_TYPES)),
    fc.tuple(fc.constantFrom('Origin'), fc.constantFrom(...ORIGINS)),
    fc.tuple(
      fc.constantFrom('Accept'),
      fc.constantFrom('application/x-ndjson', 'application/ndjson;q=0.1', '*/*'),
    ),
    fc.tuple(
      fc.constantFrom('X-Big'),
      fc.integer({ min: 1000, max: 40_000 }).map((n) => 'b'.repeat(n)),
    ),
    fc.tuple(fc.constantFrom('Bad Name', 'X:Colon', '', 'X-\u00e9', 'X-Nul\0'), fc.constant('v')),
    fc.tuple(fc.constantFrom('X-Value'), fc.constantFrom('a\0b', '\u00e9\u00e8', 'a\rb', ' lead', '\u2028')),
    fc.tuple(fc.constantFrom(' X-Folded'), fc.constant('continued')),
    fc.tuple(
      fc.string({ unit: 'binary-ascii', maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
    ),
  );
  return fc
    .record({
      method: rawMethodArb,
      target: rawPathArb,
      version: fc.oneof(
        { weight: 12, arbitrary: fc.constant('HTTP/1.1') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'HTTP/1.0',
            'HTTP/2.0',
            'HTTP/1.2',
            'HTTP/9',
            'http/1.1',
            '',
            'HTTP/1.1 x',
          ),
        },
      ),
      eol: fc.oneof(
        { weight: 12, arbitrary: fc.constant('\r\n') },
        { weight: 1, arbitrary: fc.constant('\n') },
      ),
      host: fc.option(
        fc.oneof(
          { weight: 4, arbitrary: fc.constant(`127.0.0.1:${port}`) },
          fc.constantFrom(...hostValues(port)),
        ),
        { nil: undefined, freq: 8 },
      ),
      contentType: fc.option(
        fc.oneof(
          { weight: 4, arbitrary: fc.constant('application/json') },
          fc.constantFrom(...CONTENT_TYPES),
        ),
        { nil: undefined, freq: 8 },
      ),
      extra: fc.oneof(
        { weight: 2, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(extraHeader, { minLength: 1, maxLength: 3 }) },
      ),
      manyHeaders: fc.oneof(
        { weight: 30, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }) },
      ),
      body: bodyArb(maxBodyBytes),
      framing: fc.oneof(
        { weight: 10, arbitrary: fc.constant<Framing>('length') },
        { weight: 3, arbitrary: fc.constant<Framing>('chunked') },
        {
          weight: 4,
          arbitrary: fc.constantFrom<Framing>(
            'none',
            'length-short',
            'length-long',
            'length-bad',
            'length-twice',
            'chunked-and-length',
            'encoding-bad',
            'chunked-broken',
          ),
        },
      ),
      pieces: fc.integer({ min: 1, max: 5 }),
      badLength: fc.constantFrom('abc', '-1', '1e3', '99999999999999999999', ' 5 ', '5, 6', '0x10', ''),
      badEncoding: fc.constantFrom(
        'gzip',
        'chunked, gzip',
        'identity',
        'xchunked',
        'chunked, chunked',
        'CHUNKED',
      ),
      brokenChunks: fc.constantFrom(
        'zz\r\nabc\r\n0\r\n\r\n',
        '5\r\nab',
        '3;ext=1\r\nabc\r\n0\r\n\r\n',
        'ffffffffffffffffff\r\n',
        '-1\r\n',
        '3\r\nabcd\r\n0\r\n\r\n',
      ),
      halfClose: fc.boolean(),
      waitForServer: fc.oneof(
        { weight: 150, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
    })
    .map((r): RawRequest => {
      const lines = [`${r.method} ${r.target} ${r.version}`.trimEnd()];
      if (r.host !== undefined) lines.push(`Host: ${r.host}`);
      if (r.contentType !== undefined) lines.push(`Content-Type: ${r.contentType}`);
      if (token !== undefined) lines.push(`Authorization: Bearer ${token}`);
      for (const [name, value] of r.extra) lines.push(`${name}: ${value}`);
      for (let i = 0; i < r.manyHeaders; i++) lines.push(`X-Many-${i}: ${i}`);
      let body: Buffer = r.body;
      let framed = true;
      switch (r.framing) {
        case 'length':
          lines.push(`Content-Length: ${body.length}`);
          break;
        case 'chunked':
          lines.push('Transfer-Encoding: chunked');
          body = chunk(body, r.pieces);
          break;
        case 'none':
          framed = false;
          break;
        case 'length-short':
          lines.push(`Content-Length: ${Math.max(0, body.length - r.pieces)}`);
          framed = false;
          break;
        case 'length-long':
          lines.push(`Content-Length: ${body.length + r.pieces}`);
          framed = false;
          break;
        case 'length-bad':
          lines.push(`Content-Length: ${r.badLength}`);
          framed = false;
          break;
        case 'length-twice':
          lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
          framed = false;
          break;
        case 'chunked-and-length':
          lines.push('Transfer-Encoding: chunked', `Content-Length: ${body.length}`);
          body = chunk(body, r.pieces);
          framed = false;
          break;
        case 'encoding-bad':
          lines.push(`Transfer-Encoding: ${r.badEncoding}`);
          framed = false;
          break;
        case 'chunked-broken':
          lines.push('Transfer-Encoding: chunked');
          body = Buffer.from(r.brokenChunks, 'latin1');
          framed = false;
          break;
      }
      const head = Buffer.from(lines.join(r.eol) + r.eol + r.eol, 'utf8');
      // Anything unusual in the request line or the headers may leave the request open-ended
      // for the parser: treat it as unframed (the client then half-closes, or waits for the
      // server to time it out).
      const plain =
        r.version === 'HTTP/1.1' && r.eol === '\r\n' && r.extra.length === 0 && r.manyHeaders === 0;
      // CONNECT asks for a tunnel, which the server refuses by closing the connection.
      framed = framed && plain && r.method !== 'CONNECT';
      return {
        bytes: Buffer.concat([head, body]),
        framed,
        head: r.method === 'HEAD',
        halfClose: !framed && !r.waitForServer ? true : r.halfClose && !r.waitForServer,
        waitForServer: !framed && r.waitForServer,
      };
    });
}
