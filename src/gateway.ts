// The composition root: opens the database, migrates, wires use cases to the HTTP server.
import type { Logger } from 'pino';
import { systemClock, type Clock, type Connectors, type Deps } from './app/context.ts';
import { probeSealedData } from './app/vault-probe.ts';
import { Vault } from './app/vault.ts';
import type { Config } from './config.ts';
import { createConnectors } from './connectors/registry.ts';
import { migrate, openDatabase, type Database } from './db/client.ts';
import { buildServer, type Server } from './http/server.ts';
import { createLogger } from './logging.ts';

export interface GatewayOptions {
  readonly config: Config;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Security timers' time (portal sessions); tests inject one. */
  readonly wallClock?: Clock;
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
  return openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.dbPoolSize });
}

export async function createDeps(options: GatewayOptions & { database: Database }): Promise<Deps> {
  const { config } = options;
  await migrate(options.database);
  return {
    config,
    database: options.database,
    clock: options.clock ?? systemClock,
    ...(options.wallClock ? { wallClock: options.wallClock } : {}),
    vault: Vault.fromConfig(config),
    connectors: options.connectors ?? createConnectors(config),
    log: options.log ?? createLogger(config.logLevel),
  };
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
      if (ownsDatabase) await database.close();
    },
  };
}
