// The sandbox processor's memory of answers that may not have reached the gateway: approvals whose
// answer it "lost" (the timeout card, a completion of the lost-answer card or bank), every 3-D
// Secure or APM completion's answer (the gateway may die before recording it), and, until that
// answer, a payment sent to the shopper as unfinished. The latest answer about a payment is the
// one kept. A real acquirer remembers a charge across its restarts
// and whichever of our processes asks, so this memory lives in a table of its own
// (simulator_lost_answers), owned by the simulator and empty in live mode. Without a database
// (the connector contract's unit tests) it is kept in memory.
import type { Database } from '../../db/client.ts';
import type { AuthoriseOutcome } from '../port.ts';

export interface LostAnswers {
  remember(paymentId: string, outcome: AuthoriseOutcome): Promise<void>;
  recall(paymentId: string): Promise<AuthoriseOutcome | undefined>;
}

const MAX_REMEMBERED = 10_000;

export function lostAnswersIn(database: Database | undefined): LostAnswers {
  if (!database) return lostAnswersInMemory();
  return {
    remember: async (paymentId, outcome) => {
      await database.query(
        'INSERT INTO simulator_lost_answers (payment_id, outcome) VALUES ($1, $2) ON CONFLICT (payment_id) DO UPDATE SET outcome = EXCLUDED.outcome, remembered_at = now()',
        [paymentId, JSON.stringify(outcome)],
      );
    },
    recall: async (paymentId) => {
      const [row] = await database.query<{ outcome: AuthoriseOutcome }>('SELECT outcome FROM simulator_lost_answers WHERE payment_id = $1', [paymentId]);
      return row ? revived(row.outcome) : undefined;
    },
  };
}

function lostAnswersInMemory(): LostAnswers {
  const lost = new Map<string, AuthoriseOutcome>();
  return {
    remember: async (paymentId, outcome) => {
      if (lost.size >= MAX_REMEMBERED && !lost.has(paymentId)) lost.delete(lost.keys().next().value!);
      lost.set(paymentId, outcome);
    },
    recall: async (paymentId) => lost.get(paymentId),
  };
}

/** An outcome as stored in JSON, its authorisation's time a Date again (JSON keeps it as text). */
function revived(outcome: AuthoriseOutcome): AuthoriseOutcome {
  return outcome.status === 'approved' && outcome.authorisedAt !== undefined ? { ...outcome, authorisedAt: new Date(outcome.authorisedAt) } : outcome;
}
