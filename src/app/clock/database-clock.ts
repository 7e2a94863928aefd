// The wall clock of an `acquiro` command: the database's, read once when the command opens it.
// The command may run on any host (an operator's laptop, a bastion) whose clock nobody watches,
// while the gateways and workers that judge what it stamps (a rotated key's grace period, a
// one-time link's expiry, a notification's next attempt) run beside the database. A stamp taken
// from the host's clock would end a grace period early or late by however far that host is off.
import type { Database } from '../../db/client.ts';
import { databaseNowMs } from '../../db/repositories/processes.ts';
import type { Clock } from '../context.ts';

/** The host's clock moved by its distance to the database's, measured at the middle of one round trip. */
export async function databaseClock(database: Pick<Database, 'query'>): Promise<Clock> {
  const sent = Date.now();
  const at = await databaseNowMs(database);
  const offset = at - (sent + Date.now()) / 2;
  return { now: () => new Date(Date.now() + offset) };
}
