// GET /health: 200 when the database answers, 503 while it does not, 200 again when it is back.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/logging.ts';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';

/** A TCP proxy to PostgreSQL that the test can cut and restore. */
async function cuttableProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let server: net.Server;
  const listen = (port = 0) =>
    new Promise<number>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const port = await listen();
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
    restore: () => listen(port),
  };
}

let test: TestDatabase | undefined;
let gateway: Gateway | undefined;
afterAll(async () => {
  await gateway?.close();
  await test?.drop();
});

describe('GET /health', () => {
  it.runIf(TEST_DB === 'postgres')('follows the database: 200, 503 while it is cut off, 200 when it is back', async () => {
    test = await openTestDatabase(2);
    const schema = /search_path%3D(\w+)/.exec(test.env.DATABASE_URL!)![1]!;
    const proxy = await cuttableProxy({ host: '127.0.0.1', port: 5432 });
    const url = `postgresql://postgres@127.0.0.1:${proxy.port}/test`;
    const database = await openDatabase({ url, searchPath: schema, poolSize: 2 });
    gateway = await createGateway({ config: loadConfig({ DATABASE_URL: url }), database, log: createLogger('silent') });
    const health = () => gateway!.server.app.inject({ method: 'GET', url: '/health' });

    expect((await health()).statusCode).toBe(200);
    await proxy.cut();
    const down = await health();
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ status: 'unavailable', database: 'postgres' });
    await proxy.restore();
    let back = await health();
    for (let i = 0; i < 20 && back.statusCode !== 200; i++) back = await health();
    expect(back.statusCode).toBe(200);
    await database.close();
  });

  it('answers 200 with the mode and the database in use', async () => {
    const own = await openTestDatabase(2);
    const gw = await createGateway({ config: loadConfig({}), database: own.database, log: createLogger('silent') });
    const answer = await gw.server.app.inject({ method: 'GET', url: '/health' });
    expect([answer.statusCode, answer.json()]).toEqual([200, { status: 'ok', mode: 'sandbox', database: TEST_DB }]);
    await gw.close();
    await own.drop();
  });
});
