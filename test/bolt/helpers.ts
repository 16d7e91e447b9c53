import neo4j, { type Driver } from 'neo4j-driver';
import { Database, type DatabaseOptions } from '../../src/core/database.js';
import { GraphDBService, type ServiceConfig } from '../../src/service/service.js';

export interface BoltFixture {
  service: GraphDBService;
  port: number;
  driver: Driver;
  close(): Promise<void>;
}

/** A service on free ports with a Bolt server, and a driver for it. */
export async function startBolt(
  config: ServiceConfig = {},
  scheme = 'bolt',
  database: DatabaseOptions = {},
): Promise<BoltFixture> {
  const service = new GraphDBService(new Database(':memory:', { maxThreadNum: 4, ...database }), {
    queryPort: 0,
    boltPort: 0,
    autoCompaction: false,
    console: false,
    ...config,
  });
  await service.start();
  const port = service.boltPort as number;
  const driver = neo4j.driver(
    `${scheme}://127.0.0.1:${port}`,
    neo4j.auth.basic('neo4j', 'password-for-tests'),
    {
      disableLosslessIntegers: false,
      logging: process.env.BOLT_DEBUG
        ? { level: 'debug', logger: (level, message) => console.log(level, message) }
        : undefined,
    },
  );
  return {
    service,
    port,
    driver,
    async close() {
      await driver.close();
      await service.close();
    },
  };
}
