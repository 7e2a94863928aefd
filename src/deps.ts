// The dependencies every process builds the same way (server, worker, a CLI command): the
// migrated database, business and wall clocks, vault, connectors and logger. Apart from the HTTP
// composition root (gateway.ts) so that a process without a server loads none of it.
import type { Logger } from 'pino';
import { BusinessClock } from './app/clock/business-clock.ts';
import { systemClock, type Clock, type Connectors, type Deps } from './app/context.ts';
import { Vault } from './app/vault.ts';
import type { Config } from './config.ts';
import { createConnectors } from './connectors/registry.ts';
import { migrate, openDatabase, type Database } from './db/client.ts';
import { createLogger } from './logging.ts';
import { databaseOptions } from './startup.ts';

export interface DepsOptions {
  readonly config: Config;
  readonly log?: Logger;
  /** Business time; by default the wall clock, plus the test clock's lead in the sandbox. */
  readonly clock?: Clock;
  /** Wall time for security timers and notify_time; by default `clock` when one is given (a test's fake clock moves both), else the system's. */
  readonly wallClock?: Clock;
  /** Follow the test clock's advances (servers and workers); a one-shot CLI command reads it once. */
  readonly watchClock?: boolean;
  /** An open database; without one, the gateway opens the configured database (and closes it with itself). */
  readonly database?: Database;
  readonly connectors?: Connectors;
}

export async function openConfiguredDatabase(config: Config): Promise<Database> {
  return openDatabase(databaseOptions(config));
}

export async function createDeps(options: DepsOptions & { database: Database }): Promise<Deps> {
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
