// What payouts draw on: reserve from the available balance, release a reservation, pay it out,
// credit back a payout that was returned. Each movement changes its balance row with one
// conditional UPDATE and writes its journal in the same transaction; its key (the payout's id)
// makes a retry a no-op. A payout's unit of work calls `moveBalance` in its change step and
// books `fundsJournal` in its journal step; `reserveFunds` and the others run one movement in a
// transaction of its own. docs/ledger.md, Balances.
import { payoutEntries, payoutReturnEntries, releaseReservationEntries, reserveEntries, type Entry } from '../../domain/ledger.ts';
import type { RawQuery } from '../../db/client.ts';
import { creditAvailable, journalWritten, reserveAvailable, takeReserved, type BalanceRow } from '../../db/repositories/balances.ts';
import { writeJournal, type Journal } from '../../db/repositories/ledger.ts';
import type { Deps } from '../context.ts';

export interface FundsMovement {
  readonly accountId: string;
  readonly currency: string;
  /** Minor units, positive. */
  readonly amount: number;
  /** The payout (or other movement) this is for: with the kind, the journal's key. */
  readonly key: string;
  /** Of a payout paid (`payout`), the part that is our fee (booked to fee_revenue); 0 when absent. */
  readonly fee?: number;
}

export type FundsKind = 'payout_reserve' | 'payout_release' | 'payout' | 'payout_return';

export type FundsResult =
  | { readonly ok: true; readonly balance: BalanceRow | null; readonly repeated: boolean }
  | { readonly ok: false; readonly reason: 'insufficient_funds' | 'not_reserved' };

const ENTRIES: Record<FundsKind, (m: FundsMovement) => Entry[]> = {
  payout_reserve: (m) => reserveEntries(m.amount),
  payout_release: (m) => releaseReservationEntries(m.amount),
  payout: (m) => payoutEntries(m.amount, m.fee ?? 0),
  payout_return: (m) => payoutReturnEntries(m.amount),
};

/**
 * The balance row's side of a movement, in the caller's transaction: null when the row cannot
 * take it (available does not cover a reservation; less is reserved than is released or paid).
 */
export function moveBalance(query: RawQuery, kind: FundsKind, m: FundsMovement): Promise<BalanceRow | null> {
  if (!Number.isSafeInteger(m.amount) || m.amount <= 0) throw new Error(`a ${kind} amount is a positive number of minor units`);
  switch (kind) {
    case 'payout_reserve':
      return reserveAvailable(query, m.accountId, m.currency, m.amount);
    case 'payout_release':
      return takeReserved(query, m.accountId, m.currency, m.amount, true);
    case 'payout':
      return takeReserved(query, m.accountId, m.currency, m.amount, false);
    case 'payout_return':
      return creditAvailable(query, m.accountId, m.currency, m.amount);
  }
}

/** The balanced journal of a movement, keyed `key:kind`, booked at the clock's `at`. */
export function fundsJournal(kind: FundsKind, m: FundsMovement, at: Date): Journal {
  return { key: m.key, accountId: m.accountId, currency: m.currency, kind, referenceId: m.key, entries: ENTRIES[kind](m), at };
}

async function move(deps: Pick<Deps, 'database' | 'clock'>, m: FundsMovement, kind: FundsKind): Promise<FundsResult> {
  return deps.database.transaction(async (query): Promise<FundsResult> => {
    if (await journalWritten(query, `${m.key}:${kind}`)) return { ok: true, balance: null, repeated: true };
    const balance = await moveBalance(query, kind, m);
    if (!balance) return { ok: false, reason: kind === 'payout_reserve' ? 'insufficient_funds' : 'not_reserved' };
    await writeJournal(query, fundsJournal(kind, m, deps.clock.now()));
    return { ok: true, balance, repeated: false };
  });
}

/** Takes `amount` from available into reserved, or refuses (insufficient_funds) and moves nothing. */
export function reserveFunds(deps: Pick<Deps, 'database' | 'clock'>, m: FundsMovement): Promise<FundsResult> {
  return move(deps, m, 'payout_reserve');
}

/** Gives a reservation back to available (the payout failed or was cancelled). */
export function releaseFunds(deps: Pick<Deps, 'database' | 'clock'>, m: FundsMovement): Promise<FundsResult> {
  return move(deps, m, 'payout_release');
}

/** The reservation leaves the merchant's books: the payout was paid. */
export function payOutFunds(deps: Pick<Deps, 'database' | 'clock'>, m: FundsMovement): Promise<FundsResult> {
  return move(deps, m, 'payout');
}
