// The sandbox processor's memory of the charges it answered, by the idempotency key each was sent
// with (a payment's transaction id for its only attempt, `<id>-<n>` for a hosted page's later card
// attempts): declines, approvals whose answer it "lost" (the timeout card, a completion of the
// lost-answer card or bank), every 3-D Secure or APM completion's answer (the gateway may die
// before recording it), and, until that answer, a payment sent to the shopper as unfinished. The
// latest answer about a charge is the one kept. It is what a status query about the key hears, and
// what a repeat of the key gets instead of a new charge, as a real acquirer honours its idempotency
// keys. A real acquirer remembers a charge across its restarts and whichever of our processes
// asks, so this memory lives in a table of its own (simulator_lost_answers), owned by the simulator
// and empty in live mode. Without a database (the connector contract's unit tests) it is kept in
// memory.
import type { Database } from '../../db/client.ts';
import { coalescing } from '../../db/coalesce.ts';
import type { AuthoriseOutcome } from '../port.ts';

export interface LostAnswers {
  remember(idempotencyKey: string, outcome: AuthoriseOutcome): Promise<void>;
  recall(idempotencyKey: string): Promise<AuthoriseOutcome | undefined>;
}

/** One key's lookup, alone (the benchmark's raw statements send it too: bench/raw-authorise.ts). */
export const RECALL_SQL = 'SELECT outcome FROM simulator_lost_answers WHERE idempotency_key = $1';

const MAX_REMEMBERED = 10_000;
/** Keys looked up in one statement at most (the authorisations of one turn of the event loop). */
const MOST_AT_ONCE = 200;

export function lostAnswersIn(database: Database | undefined): LostAnswers {
  if (!database) return lostAnswersInMemory();
  return {
    remember: async (idempotencyKey, outcome) => {
      await database.query(
        'INSERT INTO simulator_lost_answers (idempotency_key, outcome) VALUES ($1, $2) ON CONFLICT (idempotency_key) DO UPDATE SET outcome = EXCLUDED.outcome, remembered_at = now()',
        [idempotencyKey, JSON.stringify(outcome)],
      );
    },
    // Every sandbox authorisation asks whether its key was answered before: those of one turn ask
    // in one statement (src/db/coalesce.ts), as the gateway's own claims and outcomes go.
    recall: coalescing<string, AuthoriseOutcome | undefined>({
      one: async (key) => {
        const [row] = await database.query<{ outcome: AuthoriseOutcome }>(RECALL_SQL, [key], 'simulator_recall');
        return row ? revived(row.outcome) : undefined;
      },
      many: async (keys) => {
        const rows = await database.query<{ idempotency_key: string; outcome: AuthoriseOutcome }>(
          'SELECT idempotency_key, outcome FROM simulator_lost_answers WHERE idempotency_key = ANY($1::text[])',
          [keys],
          'simulator_recall_many',
        );
        const found = new Map(rows.map((row) => [row.idempotency_key, revived(row.outcome)]));
        return keys.map((key) => found.get(key));
      },
      key: (key) => key,
      max: MOST_AT_ONCE,
    }),
  };
}

function lostAnswersInMemory(): LostAnswers {
  const lost = new Map<string, AuthoriseOutcome>();
  return {
    remember: async (idempotencyKey, outcome) => {
      if (lost.size >= MAX_REMEMBERED && !lost.has(idempotencyKey)) lost.delete(lost.keys().next().value!);
      lost.set(idempotencyKey, outcome);
    },
    recall: async (idempotencyKey) => lost.get(idempotencyKey),
  };
}

/** An outcome as stored in JSON, its authorisation's time a Date again (JSON keeps it as text). */
function revived(outcome: AuthoriseOutcome): AuthoriseOutcome {
  return outcome.status === 'approved' && outcome.authorisedAt !== undefined ? { ...outcome, authorisedAt: new Date(outcome.authorisedAt) } : outcome;
}
