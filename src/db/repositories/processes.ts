// The processes running on this database: each gateway beats once a second, and learns in the
// same round trip how many gateways are alive and the account cache's version. Liveness is judged
// by the database's own now(), the one clock every process shares whatever its host's says.
import type { Database } from '../client.ts';

export type ProcessRole = 'gateway' | 'worker';

/** A process that has not beaten for this long counts as gone (a crashed one stops beating). */
export const ALIVE_SECONDS = 3;

export interface Beat {
  /** Gateways alive, this one included when it is a gateway. */
  readonly gateways: number;
  /** The account and key cache's version (cache_versions): a change bumps it. */
  readonly accountsVersion: number;
}

const BEAT_SQL = `
  WITH beat AS (
    INSERT INTO process_heartbeats (id, role, beat_at) VALUES ($1, $2, now())
    ON CONFLICT (id) DO UPDATE SET beat_at = now()
    RETURNING role
  )
  SELECT (SELECT count(*)::int FROM process_heartbeats
           WHERE role = 'gateway' AND id <> $1 AND beat_at > now() - make_interval(secs => ${ALIVE_SECONDS}))
         + (SELECT count(*)::int FROM beat WHERE role = 'gateway') AS gateways,
         (SELECT version FROM cache_versions WHERE name = 'accounts')::text AS accounts_version`;

export async function beat(database: Database, id: string, role: ProcessRole): Promise<Beat> {
  const [row] = await database.query<{ gateways: number; accounts_version: string }>(BEAT_SQL, [id, role], 'process-beat');
  return { gateways: row!.gateways, accountsVersion: Number(row!.accounts_version) };
}

/** A process that stops cleanly leaves at once, so the others take over its share now. */
export async function leave(database: Database, id: string): Promise<void> {
  await database.query('DELETE FROM process_heartbeats WHERE id = $1', [id]);
}

/** Rows of processes gone for a day are history no one reads. */
export async function forgetLongGone(database: Database): Promise<void> {
  await database.query(`DELETE FROM process_heartbeats WHERE beat_at < now() - interval '1 day'`);
}

/** The database's own time, in milliseconds since the epoch: the clock every process shares. */
export async function databaseNowMs(database: Pick<Database, 'query'>): Promise<number> {
  const [row] = await database.query<{ ms: string | number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms', [], 'database-now');
  return Number(row!.ms);
}
