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

export interface JournalRow {
  readonly journalId: string;
  readonly book: string;
  readonly kind: JournalKind;
  readonly amount: number;
}

/** The rows of one balanced journal (zero entries dropped), for statements that write them themselves. */
export function journalRows(kind: JournalKind, entries: readonly Entry[]): JournalRow[] {
  const moving = entries.filter((entry) => entry.amount !== 0);
  if (moving.length === 0) return [];
  if (!isBalanced(moving)) throw new Error(`unbalanced ${kind} journal`);
  const journalId = newId('J');
  return moving.map((entry) => ({ journalId, book: entry.book, kind, amount: entry.amount }));
}

/** Writes one balanced journal; call it inside the transaction of the movement it records. */
export async function postJournal(tx: Executor, journal: Journal): Promise<void> {
  const rows = journalRows(journal.kind, journal.entries);
  if (rows.length === 0) return;
  await tx.insert(ledgerEntries).values(
    rows.map((row) => ({
      ...row,
      accountId: journal.accountId,
      currency: journal.currency,
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
