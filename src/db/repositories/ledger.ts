import { sql } from 'drizzle-orm';
import { newId } from '../../domain/ids.ts';
import { isBalanced, type Entry, type JournalKind } from '../../domain/ledger.ts';
import { rowsOf, type Executor } from '../client.ts';
import { ledgerEntries } from '../schema.ts';

export interface Journal {
  readonly accountId: string;
  readonly currency: string;
  readonly kind: JournalKind;
  readonly paymentId?: string;
  readonly referenceId?: string;
  readonly entries: readonly Entry[];
}

/** Writes one balanced journal; call it inside the transaction of the movement it records. */
export async function postJournal(tx: Executor, journal: Journal): Promise<void> {
  const entries = journal.entries.filter((entry) => entry.amount !== 0);
  if (entries.length === 0) return;
  if (!isBalanced(entries)) throw new Error(`unbalanced ${journal.kind} journal for ${journal.paymentId ?? journal.accountId}`);
  const journalId = newId('J');
  await tx.insert(ledgerEntries).values(
    entries.map((entry) => ({
      journalId,
      accountId: journal.accountId,
      book: entry.book,
      kind: journal.kind,
      currency: journal.currency,
      amount: entry.amount,
      paymentId: journal.paymentId ?? null,
      referenceId: journal.referenceId ?? null,
    })),
  );
}

/** The merchant's balance per currency: the credit side of merchant_balance. */
export async function merchantBalances(db: Executor, accountId: string): Promise<Record<string, number>> {
  const rows = await rowsOf<{ currency: string; balance: string }>(
    db,
    sql`SELECT currency, (-sum(amount))::bigint::text AS balance FROM ledger_entries
        WHERE account_id = ${accountId} AND book = 'merchant_balance' GROUP BY currency ORDER BY currency`,
  );
  return Object.fromEntries(rows.map((r) => [r.currency, Number(r.balance)]));
}
