// This process among the others on one PostgreSQL. Once a second it beats (process_heartbeats)
// and, in the same round trip, learns how many gateways are alive, which sets its part of each
// account's rate limit, and the account cache's version, which empties its account directory
// when another process changed an account or a key. Nothing is written per request. Its id holds
// the Idempotency-Keys of the requests it runs: a process that stopped beating is gone, and its
// keys are taken over (src/http/plugins/idempotency.ts).
// The embedded database has one process by construction: there is nothing to beat for, and a
// key holder that is not one of this process's presences (isRunningHere) is gone.
import { randomBytes } from 'node:crypto';
import { beat, forgetLongGone, leave, type ProcessRole } from '../../db/repositories/processes.ts';
import type { Deps } from '../context.ts';

const BEAT_MS = 1_000;

/** The presences of this process that have started and not stopped: alive by construction. */
const started = new Set<string>();

/**
 * Whether `id` is a presence of this very process, running. On the embedded database (one
 * process owns the data directory, and nothing beats) any other holder is a process that is gone.
 */
export function isRunningHere(id: string): boolean {
  return started.has(id);
}

export class Presence {
  readonly id = `${process.pid}-${randomBytes(6).toString('hex')}`;
  readonly #deps: Pick<Deps, 'database' | 'log'>;
  readonly #role: ProcessRole;
  readonly #onVersion: (version: number) => void;
  #gateways = 1;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> = Promise.resolve();

  constructor(deps: Pick<Deps, 'database' | 'log'>, role: ProcessRole, onVersion: (version: number) => void = () => {}) {
    this.#deps = deps;
    this.#role = role;
    this.#onVersion = onVersion;
  }

  /** Gateways alive on this database, this one included (1 until the first beat, and on PGlite). */
  get gateways(): number {
    return this.#gateways;
  }

  /** Beats once (so the first request already knows its share), then every second. */
  async start(): Promise<void> {
    started.add(this.id);
    if (this.#deps.database.kind !== 'postgres') return;
    await forgetLongGone(this.#deps.database).catch(() => {});
    await this.#beat();
    this.#timer = setInterval(() => {
      this.#beating = this.#beat();
    }, BEAT_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    started.delete(this.id);
    if (!this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#beating;
    await leave(this.#deps.database, this.id).catch(() => {});
  }

  async #beat(): Promise<void> {
    try {
      const seen = await beat(this.#deps.database, this.id, this.#role);
      this.#gateways = Math.max(1, seen.gateways);
      this.#onVersion(seen.accountsVersion);
    } catch (error) {
      // The database is away: keep the last share; the next beat tries again.
      this.#deps.log.warn({ err: error }, 'heartbeat failed');
    }
  }
}
