// GraphDBService and its Bolt server: configuration, binding, the bound port, stopping.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/core/database.js';
import { GraphDBService } from '../../src/service/service.js';

function newService(config = {}): GraphDBService {
  return new GraphDBService(new Database(':memory:', { maxThreadNum: 2 }), {
    queryPort: 0,
    autoCompaction: false,
    console: false,
    ...config,
  });
}

describe('ServiceConfig.boltPort', () => {
  it('checks the Bolt settings', () => {
    expect(() => newService({ boltPort: 70000 })).toThrow(/boltPort must be between 0 and 65535/);
    expect(() => newService({ boltPort: 1.5 })).toThrow(/boltPort must be an integer/);
    expect(() => newService({ boltPort: '7687' })).toThrow(/boltPort must be an integer/);
  });

  it('serves no Bolt without it, and gives the bound port and URL with it', async () => {
    const plain = newService();
    await plain.start();
    expect(plain.boltPort).toBeNull();
    expect(plain.boltUrl).toBeNull();
    await plain.close();

    const service = newService({ boltPort: 0 });
    await service.start();
    try {
      expect(service.boltPort).toBeGreaterThan(0);
      expect(service.boltUrl).toBe(`bolt://127.0.0.1:${service.boltPort}`);
    } finally {
      await service.close();
    }
    expect(service.boltPort).toBeNull();
  });

  const openssl = spawnSync('openssl', ['version']).status === 0;
  it.skipIf(!openssl)('gives bolt+s:// for a certificate an authority signed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-bolt-ca-'));
    const run = (...args: string[]) => {
      const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    };
    try {
      run(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-days',
        '2',
        '-subj',
        '/CN=Test CA',
      );
      run(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'leaf.key',
        '-out',
        'leaf.csr',
        '-subj',
        '/CN=127.0.0.1',
      );
      run(
        'x509',
        '-req',
        '-in',
        'leaf.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        'leaf.crt',
        '-days',
        '2',
      );
      const service = newService({
        boltPort: 0,
        tls: {
          cert: fs.readFileSync(path.join(dir, 'leaf.crt')),
          key: fs.readFileSync(path.join(dir, 'leaf.key')),
        },
      });
      await service.start();
      try {
        expect(service.boltUrl).toBe(`bolt+s://127.0.0.1:${service.boltPort}`);
      } finally {
        await service.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('speaks TLS on the Bolt port when the service has tls, with the tokens of auth', async () => {
    const fixtures = path.join(__dirname, '..', 'http', 'fixtures');
    const service = newService({
      boltPort: 0,
      tls: {
        cert: fs.readFileSync(path.join(fixtures, 'tls-test.crt')),
        key: fs.readFileSync(path.join(fixtures, 'tls-test.key')),
      },
      auth: { tokens: [{ token: 'bolt-admin-token-0123', role: 'admin' }] },
    });
    await service.start();
    const port = service.boltPort as number;
    // The test certificate is self-signed: drivers reach it with bolt+ssc://, not bolt://.
    expect(service.boltUrl).toBe(`bolt+ssc://127.0.0.1:${port}`);
    const secure = neo4j.driver(service.boltUrl as string, neo4j.auth.bearer('bolt-admin-token-0123'));
    const plain = neo4j.driver(`bolt://127.0.0.1:${port}`, neo4j.auth.bearer('bolt-admin-token-0123'));
    const wrong = neo4j.driver(`bolt+ssc://127.0.0.1:${port}`, neo4j.auth.bearer('not-the-token-0123456'));
    try {
      const session = secure.session();
      expect((await session.run('RETURN 5 AS n')).records[0]?.get('n').toNumber()).toBe(5);
      await session.close();
      await expect(plain.verifyConnectivity()).rejects.toThrow();
      await expect(wrong.verifyConnectivity()).rejects.toMatchObject({
        code: 'Neo.ClientError.Security.Unauthorized',
      });
    } finally {
      await Promise.all([secure.close(), plain.close(), wrong.close()]);
      await service.close();
    }
  });

  it('fails to start when the Bolt port is taken, leaving the HTTP port free', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    const service = newService({ boltPort: taken });
    try {
      await expect(service.start()).rejects.toThrow(/cannot bind the Bolt port 127\.0\.0\.1:\d+: EADDRINUSE/);
      expect(service.isRunning()).toBe(false);
      expect(service.url).toBeNull();
    } finally {
      blocker.close();
      await service.close();
    }
  });

  it('stops: idle connections close at once, an open transaction is rolled back after the grace', async () => {
    const service = newService({ boltPort: 0, stopTimeoutMs: 200 });
    await service.start();
    const driver = neo4j.driver(service.boltUrl as string);
    try {
      const setup = driver.session();
      await setup.run('CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))');
      await setup.close();
      const session = driver.session();
      const tx = session.beginTransaction();
      await tx.run('CREATE (:T {id: 1})');
      const started = Date.now();
      await service.stop();
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(150);
      expect(took).toBeLessThan(5000);
      expect(service.pool?.inUse).toBe(0);
      await session.close().catch(() => undefined);
      // The transaction's write was rolled back.
      await service.start();
      const again = neo4j.driver(service.boltUrl as string);
      const check = again.session();
      const count = await check.run('MATCH (t:T) RETURN count(*) AS n');
      expect(count.records[0]?.get('n').toNumber()).toBe(0);
      await check.close();
      await again.close();
    } finally {
      await driver.close();
      await service.close();
    }
  });
});
