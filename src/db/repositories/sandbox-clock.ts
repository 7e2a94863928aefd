// The sandbox's test clock row (0014): how many milliseconds business time runs ahead of the wall
// clock. An advance adds to it and announces itself on CLOCK_CHANNEL in the same transaction, so
// every process's business clock (src/app/clock/business-clock.ts) moves within a moment.
import type { Database } from '../client.ts';
import { notifyingSchema } from '../notify.ts';

export const CLOCK_CHANNEL = 'acquiro_clock';

/** Business time's lead on the wall clock, in milliseconds (0 on a database never advanced). */
export async function readClockOffset(database: Pick<Database, 'query'>): Promise<number> {
  const [row] = await database.query<{ offset_ms: string | number }>('SELECT offset_ms FROM sandbox_clock', [], 'read_clock_offset');
  return Number(row?.offset_ms ?? 0);
}

/**
 * Adds `ms` (> 0, at most `maxOffsetMs`) to the lead, unless the lead would then pass
 * `maxOffsetMs`, and notifies every listening process; answers the new lead, or null (nothing
 * moved) when it would pass it. Checked in the statement, so concurrent advances cannot pass it either.
 */
export async function advanceClockOffset(database: Pick<Database, 'transaction'>, ms: number, maxOffsetMs: number): Promise<number | null> {
  return database.transaction(async (query) => {
    const [row] = await query<{ offset_ms: string | number }>(
      `INSERT INTO sandbox_clock (id, offset_ms, advanced_at) VALUES (true, $1, now())
       ON CONFLICT (id) DO UPDATE SET offset_ms = sandbox_clock.offset_ms + EXCLUDED.offset_ms, advanced_at = now()
         WHERE sandbox_clock.offset_ms + EXCLUDED.offset_ms <= $2
       RETURNING offset_ms`,
      [ms, maxOffsetMs],
    );
    if (!row) return null;
    await query(`SELECT pg_notify('${CLOCK_CHANNEL}', ${notifyingSchema("''")})`);
    return Number(row.offset_ms);
  });
}
