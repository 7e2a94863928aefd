import { sql } from 'drizzle-orm';
import { isBalanced, PLATFORM_ACCOUNT_ID, PLATFORM_BOOKS, type Entry, type JournalKind } from '../../domain/ledger.ts';
import { rowsOf, type Executor, type RawQuery } from '../client.ts';
import { ledgerEntries } from '../schema.ts';

// The one place journals are made: every writer (postJournal, the unit of work's journal step;
// writeJournal, the balance batches' raw transactions; and the authorisation hot path's single
// statement in payments.ts, which inserts journalRows with journalAccountSql) gets its rows from
// journalRows, and stamps each entry's booked_at with the injected clock's time of the movement. A journal's id is its key, `subject:kind`
// (the payment, operation, refund or batch it records), unique with each book
// (ledger_entries_journal_book): a retried movement is refused by the database, never written twice.

export interface Journal {
  /** What the journal records (a payment, operation, refund or batch id): with the kind, its key. */
  readonly key: string;
  readonly accountId: string;
  readonly currency: string;
  readonly kind: JournalKind;
  readonly paymentId?: string;
  readonly referenceId?: string;
  readonly entries: readonly Entry[];
  /** The injected clock's time of the movement (booked_at): settlement compares it with its cutoff. */
  readonly at: Date;
}

export interface JournalRow {
  readonly journalId: string;
  readonly book: string;
  readonly kind: JournalKind;
  readonly amount: number;
}

/**
 * The account an entry is booked to, as SQL over the entry's `book` and the movement's own
 * account: fee_revenue belongs to the platform account, every other book to the merchant's.
 */
export function journalAccountSql(book: string, ownAccount: string): string {
  const books = PLATFORM_BOOKS.map((b) => `'${b}'`).join(', ');
  return `CASE WHEN ${book} IN (${books}) THEN '${PLATFORM_ACCOUNT_ID}' ELSE ${ownAccount} END`;
}

/** The rows of one balanced journal (zero entries dropped), for statements that write them themselves. */
export function journalRows(kind: JournalKind, entries: readonly Entry[], key: string): JournalRow[] {
  const moving = entries.filter((entry) => entry.amount !== 0);
  if (moving.length === 0) return [];
  if (!isBalanced(moving)) throw new Error(`unbalanced ${kind} journal`);
  const journalId = `${key}:${kind}`;
  return moving.map((entry) => ({ journalId, book: entry.book, kind, amount: entry.amount }));
}

/** Writes one balanced journal; call it inside the transaction of the movement it records. */
export async function postJournal(tx: Executor, journal: Journal): Promise<void> {
  const rows = journalRows(journal.kind, journal.entries, journal.key);
  if (rows.length === 0) return;
  await tx.insert(ledgerEntries).values(
    rows.map((row) => ({
      ...row,
      accountId: (PLATFORM_BOOKS as readonly string[]).includes(row.book) ? PLATFORM_ACCOUNT_ID : journal.accountId,
      currency: journal.currency,
      paymentId: journal.paymentId ?? null,
      referenceId: journal.referenceId ?? null,
      bookedAt: journal.at,
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

/** Writes one balanced journal with raw statements (inside `database.transaction`). */
export async function writeJournal(query: RawQuery, journal: Journal): Promise<void> {
  const rows = journalRows(journal.kind, journal.entries, journal.key);
  if (rows.length === 0) return;
  await query(
    `INSERT INTO ledger_entries (journal_id, account_id, book, kind, currency, amount, payment_id, reference_id, booked_at)
     SELECT e.journal_id, ${journalAccountSql('e.book', '$1')}, e.book, e.kind, $2, e.amount, $3, $4, $9
       FROM unnest($5::text[], $6::text[], $7::text[], $8::bigint[]) AS e(journal_id, book, kind, amount)`,
    [
      journal.accountId,
      journal.currency,
      journal.paymentId ?? null,
      journal.referenceId ?? null,
      rows.map((r) => r.journalId),
      rows.map((r) => r.book),
      rows.map((r) => r.kind),
      rows.map((r) => r.amount),
      journal.at,
    ],
  );
}
