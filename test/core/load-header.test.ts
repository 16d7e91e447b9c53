// LOAD WITH HEADERS (columns) FROM a CSV file: whether its first record is a header.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { rejection } from '../runtime/helpers.js';

describe('LOAD WITH HEADERS', () => {
  it('takes the first record for a header when a typed column holds a name in it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-load-header-'));
    try {
      const headed = path.join(dir, 'headed.csv');
      const bare = path.join(dir, 'bare.csv');
      const names = path.join(dir, 'names.csv');
      fs.writeFileSync(headed, 'id,name,since\n1,a,2020-01-01\n2,b,2021-02-03\n');
      fs.writeFileSync(bare, '1,a,2020-01-01\n2,b,2021-02-03\n');
      fs.writeFileSync(names, 'x,y\nz,w\n');
      using db = new Database(':memory:');
      using conn = db.connect();
      const load = (file: string, options = '') =>
        conn.query(
          `LOAD WITH HEADERS (id INT64, name STRING, since DATE) FROM '${file}'${options} RETURN id, name`,
        );
      expect((await load(headed)).rows).toEqual([
        [1, 'a'],
        [2, 'b'],
      ]);
      expect((await load(bare)).rows).toEqual([
        [1, 'a'],
        [2, 'b'],
      ]);
      // header = false, or no sniffing, reads the header line as data (and fails on it).
      expect((await rejection(load(headed, ' (header = false)'))).message).toContain('id');
      expect((await rejection(load(headed, ' (auto_detect = false)'))).message).toContain('id');
      // Only STRING columns: nothing tells a header from data, so the first record is data.
      const strings = await conn.query(`LOAD WITH HEADERS (a STRING, b STRING) FROM '${names}' RETURN a`);
      expect(strings.rows).toEqual([['x'], ['z']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
