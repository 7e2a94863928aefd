// The composition root: opens the database, migrates, wires use cases to the HTTP server.
import type { Logger } from 'pino';
import { BusinessClock } from './app/clock/business-clock.ts';
import { systemClock, type Clock, type Connectors, type Deps } from './app/context.ts';
import { probeSealedData } from './app/vault-probe.ts';
import { Vault } from './app/vault.ts';
import type { Config } from './config.ts';
import { createConnectors } from './connectors/registry.ts';
import { migrate, openDatabase, type Database } from './db/client.ts';
import { buildServer, type Server } from './http/server.ts';
import { createLogger } from './logging.ts';
import { databaseOptions } from './startup.ts';

export interface GatewayOptions {
  readonly config: Config;
  readonly log?: Logger;
  /** Business time; by default the wall clock, plus the test clock's lead in the sandbox. */
  readonly clock?: Clock;
  /** Wall time for security timers and notify_time; by default `clock` when one is given (a test's fake clock moves both), else the system's. */
  readonly wallClock?: Clock;
  /** Follow the test clock's advances (servers and workers); a one-shot CLI command reads it once. */
  readonly watchClock?: boolean;
  /** An open database; without one, the configured database is opened (and closed with the gateway). */
  readonly database?: Database;
  readonly connectors?: Connectors;
  /** Start with /health answering 503 until `server.readiness.ready` is set (a process still starting). */
  readonly startsUnready?: boolean;
}

export interface Gateway {
  readonly deps: Deps;
  readonly server: Server;
  close(): Promise<void>;
}

export async function openConfiguredDatabase(config: Config): Promise<Database> {
  return openDatabase(databaseOptions(config));
}

export async function createDeps(options: GatewayOptions & { database: Database }): Promise<Deps> {
  const { config } = options;
  await migrate(options.database);
  const wallClock = options.wallClock ?? options.clock ?? systemClock;
  const clock =
    options.clock ??
    (config.mode === 'sandbox' ? await BusinessClock.open(options.database, { watch: options.watchClock ?? true, wallClock }) : wallClock);
  return {
    config,
    database: options.database,
    clock,
    wallClock,
    vault: Vault.fromConfig(config),
    connectors: options.connectors ?? createConnectors(config, [], clock, options.database),
    log: options.log ?? createLogger(config.logLevel),
  };
}

/** Stops what createDeps started (the business clock's listener and poll); the database stays open. */
export async function releaseDeps(deps: Deps): Promise<void> {
  if (deps.clock instanceof BusinessClock) await deps.clock.close();
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const ownsDatabase = !options.database;
  const database = options.database ?? (await openConfiguredDatabase(options.config));
  const deps = await createDeps({ ...options, database });
  if (deps.config.mode === 'live') await probeSealedData(deps);
  const server = await buildServer(deps, { ready: !options.startsUnready });
  return {
    deps,
    server,
    async close() {
      await server.app.close();
      await releaseDeps(deps);
      if (ownsDatabase) await database.close();
    },
  };
}
