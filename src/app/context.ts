// What use cases are given to work with. Every kind of I/O sits behind one of these, so tests
// choose the database, the clock and the connectors.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Connector } from '../connectors/port.ts';
import type { Database } from '../db/client.ts';
import type { CallSlots } from './batch/calls-in-flight.ts';
import type { Vault } from './vault.ts';

export interface Clock {
  now(): Date;
  /**
   * Calls `listener` whenever this clock jumps forward (the sandbox's test clock after
   * `acquiro clock advance`), so waiting work can look again at once; answers how to stop.
   */
  onAdvance?(listener: () => void): () => void;
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
  /**
   * Business time: due charges, dunning, settlement, payout dates, expiries of payments,
   * authorisations and shoppers' sessions, ids and stamps. In the sandbox it runs ahead of the
   * wall clock by what `acquiro clock advance` added (src/app/clock/business-clock.ts).
   */
  readonly clock: Clock;
  /**
   * Wall time, never moved by the test clock: security timers (secret keys' grace period, staff
   * sessions, rate limits) and `notify_time`, which receivers compare with their own clock.
   */
  readonly wallClock: Clock;
  readonly vault: Vault;
  readonly connectors: Connectors;
  readonly log: Logger;
  /**
   * Set by a fan-out of connector calls (a batch's lanes, a refund wave) for the use cases it
   * runs: the connector's calls in flight, a slot of which every call of theirs takes
   * (callConnector, src/app/batch/calls-in-flight.ts). Absent elsewhere: one call at a time.
   */
  readonly calls?: CallSlots;
}
