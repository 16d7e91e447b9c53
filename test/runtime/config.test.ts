// The service's config table (src/runtime/config.ts) is what docs/http-api.md documents, and what
// the service checks: a field the table lacks is refused.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FIELDS, configTable, resolveConfig } from '../../src/runtime/config.js';

describe('the ServiceConfig table', () => {
  it('is the table docs/http-api.md shows', () => {
    const docs = readFileSync(path.join(__dirname, '../../docs/http-api.md'), 'utf8');
    expect(docs).toContain(`${configTable()}\n`);
  });

  it('resolves the defaults and refuses fields it does not have', () => {
    const { values, poolSize } = resolveConfig({}, 4);
    expect(poolSize).toBe(4);
    expect(values.maxWaiting).toBe(256);
    expect(values.maxOpenTransactions).toBe(2);
    expect(values.receiveTimeoutMs).toBe(30_000);
    expect(values.boltPort).toBeNull();
    expect(() => resolveConfig({ nope: 1 } as never, 4)).toThrow(/unknown ServiceConfig field 'nope'/);
    expect(Object.keys(CONFIG_FIELDS)).toContain('boltPort');
  });

  it('checks a field against the fields before it', () => {
    expect(() => resolveConfig({ threadNum: 2, maxOpenTransactions: 2 }, 4)).toThrow(
      /maxOpenTransactions must be between 0 and 1, got 2/,
    );
    expect(() => resolveConfig({ headersTimeoutMs: 40_000, receiveTimeoutMs: 35_000 }, 4)).toThrow(
      /must not exceed receiveTimeoutMs/,
    );
    expect(resolveConfig({ headersTimeoutMs: 40_000 }, 4).values.receiveTimeoutMs).toBe(40_000);
  });
});
