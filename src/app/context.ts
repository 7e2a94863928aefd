// What use cases are given to work with. Every kind of I/O sits behind one of these, so tests
// choose the database, the clock and the connectors.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Connector } from '../connectors/port.ts';
import type { Database } from '../db/client.ts';
import type { Vault } from './vault.ts';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface Connectors {
  get(name: string): Connector | undefined;
  /** Every registered connector's name (the contract suite runs on each). */
  names?(): readonly string[];
}

export interface Deps {
  readonly config: Config;
  readonly database: Database;
  readonly clock: Clock;
  /**
   * The real time, for security timers (portal sessions, lockouts, one-time links): never the
   * sandbox's business clock, which may be moved. Absent: the system clock.
   */
  readonly wallClock?: Clock;
  readonly vault: Vault;
  readonly connectors: Connectors;
  readonly log: Logger;
}
