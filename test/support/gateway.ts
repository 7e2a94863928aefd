// A gateway per test file, on the backend the vitest project names (ACQUIRO_TEST_DB): a schema
// of its own on an in-memory PGlite the worker keeps between files, or on the machine's
// PostgreSQL; dropped afterwards.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import type { Clock, Connectors, Deps } from '../../src/app/context.ts';
import { createMerchant, type AccountSettings, type Credentials } from '../../src/app/merchants/credentials.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/logging.ts';
import { signedClient, type SignedClient } from './client.ts';
import { borrowPglite } from './pglite-pool.ts';

export const TEST_DB = (process.env.ACQUIRO_TEST_DB ?? 'pglite') as 'pglite' | 'postgres';
export const POSTGRES_URL = process.env.ACQUIRO_TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  readonly database: Database;
  /** The schema this file works in. */
  readonly schema: string;
  readonly drop: () => Promise<void>;
  /** For child processes: the environment that points them at this database. */
  readonly env: Record<string, string>;
  /** A second handle on the same data, as another worker would have (PGlite: the same instance). */
  readonly another: () => Promise<Database>;
}

/** `backend`: the vitest project's unless named (the chaos runner, outside vitest, names PostgreSQL). */
export async function openTestDatabase(poolSize = 10, backend: 'pglite' | 'postgres' = TEST_DB): Promise<TestDatabase> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  if (backend === 'pglite') {
    const lease = await borrowPglite();
    await lease.client.exec(`CREATE SCHEMA ${schema}`);
    const shared = await openDatabase({ pglite: lease.client, searchPath: schema });
    // close() ends this database as it always did (the instance is not lent again); drop() hands it back.
    const database: Database = { ...shared, close: () => lease.retire() };
    return { database, schema, drop: () => lease.release(schema), env: {}, another: async () => ({ ...database, close: async () => {} }) };
  }
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const database = await openDatabase({ url: POSTGRES_URL, searchPath: schema, poolSize });
  return {
    database,
    schema,
    env: { DATABASE_URL: `${POSTGRES_URL}?options=-c%20search_path%3D${schema}` },
    another: () => openDatabase({ url: POSTGRES_URL, searchPath: schema, poolSize }),
    drop: async () => {
      await database.close();
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

/** Everything the gateway logged, for assertions (the PAN canary reads it). */
export class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

export interface TestGateway {
  readonly gateway: Gateway;
  readonly database: Database;
  readonly config: Config;
  readonly logs: LogCapture;
  /** A new merchant with one account, and a client that signs with its key. */
  merchant(settings?: AccountSettings & { name?: string }): Promise<SignedClient & { credentials: Credentials }>;
  /** Another connection pool on this gateway's database (close it when done). */
  anotherConnection(): Promise<Database>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  readonly env?: Record<string, string>;
  readonly clock?: Clock;
  /** The portal's security timers (sessions, lockout, links). */
  readonly wallClock?: Clock;
  readonly connectors?: Connectors;
}

/**
 * The sandbox gateways of the tests hash portal passwords at scrypt's N=2^10 instead of 2^15: the
 * same code and the same hash format (a password is checked with the N stored in its hash), at a
 * 32nd of the CPU. Live mode refuses so low a cost, so live gateways keep the default.
 * src/config.test.ts and src/app/portal/credentials.test.ts check the default.
 */
export function withTestPasswordCost(env: Record<string, string | undefined>): Record<string, string> {
  return env.ACQUIRO_MODE === 'live' ? {} : { ACQUIRO_PASSWORD_COST: '10' };
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { database, drop, another } = await openTestDatabase();
  // Live mode refuses an http:// base URL: its links send card details and staff passwords.
  const baseUrl = options.env?.ACQUIRO_MODE === 'live' ? 'https://gateway.test' : 'http://gateway.test';
  const config = loadConfig({ ACQUIRO_BASE_URL: baseUrl, LOG_LEVEL: 'info', ...withTestPasswordCost(options.env ?? {}), ...options.env });
  const logs = new LogCapture();
  const gateway = await createGateway({
    config,
    database,
    log: createLogger(config.logLevel, logs),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.wallClock ? { wallClock: options.wallClock } : {}),
    ...(options.connectors ? { connectors: options.connectors } : {}),
  });
  await gateway.server.app.ready();
  let merchants = 0;
  return {
    gateway,
    database,
    config,
    logs,
    async merchant(settings = {}) {
      const credentials = await createMerchant(gateway.deps, settings.name ?? `Test merchant ${++merchants}`, settings);
      return { ...signedClient(gateway.server.app, credentials), credentials };
    },
    anotherConnection: another,
    async close() {
      await gateway.close();
      await drop();
    },
  };
}

/**
 * The gateway's deps as a sweeper would run them `ms` from now: business time and wall time both
 * moved (leases and re-check timers run on the wall clock, due dates on business time).
 */
export function depsLater(gw: TestGateway, ms: number): Deps {
  const clock: Clock = { now: () => new Date(Date.now() + ms) };
  return { ...gw.gateway.deps, clock, wallClock: clock };
}

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  #now: number;
  constructor(start: Date | string = '2026-11-22T12:00:00Z') {
    this.#now = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(ms: number): void {
    this.#now += ms;
  }
  set(to: Date | string): void {
    this.#now = new Date(to).getTime();
  }
}
