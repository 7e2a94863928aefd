// Business time for one process: the wall clock plus the sandbox's lead (the `sandbox_clock` row
// that `acquiro clock advance` grows). `now()` stays synchronous and costs no query: the lead is
// cached, and refreshed when any process announces an advance (LISTEN, where the database offers
// it) and by a poll every second (behind PgBouncer's transaction mode LISTEN does not work). The
// cached lead only grows, so this clock never moves backwards.
import { CLOCK_CHANNEL, readClockOffset } from '../../db/repositories/sandbox-clock.ts';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../context.ts';

const POLL_MS = 1_000;

export interface BusinessClockOptions {
  /** Follow later advances (a server or worker); a one-shot command reads the lead once. */
  readonly watch: boolean;
  readonly wallClock: Clock;
}

export class BusinessClock implements Clock {
  readonly #database: Pick<Database, 'query' | 'listen'>;
  readonly #wallClock: Clock;
  readonly #listeners = new Set<() => void>();
  #leadMs = 0;
  #unlisten: (() => Promise<void>) | undefined;
  #poll: NodeJS.Timeout | undefined;

  private constructor(database: Pick<Database, 'query' | 'listen'>, wallClock: Clock) {
    this.#database = database;
    this.#wallClock = wallClock;
  }

  static async open(database: Pick<Database, 'query' | 'listen'>, options: BusinessClockOptions): Promise<BusinessClock> {
    const clock = new BusinessClock(database, options.wallClock);
    await clock.refresh();
    if (options.watch) {
      // A listener that cannot connect leaves the poll to do the work.
      clock.#unlisten = await database.listen?.(CLOCK_CHANNEL, () => void clock.refresh().catch(() => {})).catch(() => undefined);
      clock.#poll = setInterval(() => void clock.refresh().catch(() => {}), POLL_MS);
      clock.#poll.unref();
    }
    return clock;
  }

  now(): Date {
    return new Date(this.#wallClock.now().getTime() + this.#leadMs);
  }

  /** How far business time runs ahead of the wall clock, as last read. */
  get leadMs(): number {
    return this.#leadMs;
  }

  onAdvance(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the lead again; tells the listeners when it grew. */
  async refresh(): Promise<void> {
    const lead = await readClockOffset(this.#database);
    if (lead <= this.#leadMs) return;
    this.#leadMs = lead;
    for (const listener of this.#listeners) listener();
  }

  async close(): Promise<void> {
    clearInterval(this.#poll);
    this.#listeners.clear();
    await this.#unlisten?.();
  }
}
