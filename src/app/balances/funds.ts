// What payouts draw on: reserve from the available balance, release a reservation, pay it out.
// Each movement locks nothing but its balance row, changes it with one conditional UPDATE and
// writes its journal in the same transaction; its key (the payout's id) makes a retry a no-op.
// docs/ledger.md, Balances.
import { payoutEntries, releaseReservationEntries, reserveEntries, type JournalKind } from '../../domain/ledger.ts';
import type { RawQuery } from '../../db/client.ts';
import { journalWritten, reserveAvailable, takeReserved, type BalanceRow } from '../../db/repositories/balances.ts';
import { writeJournal } from '../../db/repositories/ledger.ts';
import type { Deps } from '../context.ts';

export interface FundsMovement {
  readonly accountId: string;
  readonly currency: string;
  /** Minor units, positive. */
  readonly amount: number;
  /** The payout (or other movement) this is for: with the kind, the journal's key. */
  readonly key: string;
}

export type FundsResult =
  | { readonly ok: true; readonly balance: BalanceRow | null; readonly repeated: boolean }
  | { readonly ok: false; readonly reason: 'insufficient_funds' | 'not_reserved' };

type Move = (query: RawQuery, m: FundsMovement) => Promise<BalanceRow | null>;

async function move(deps: Pick<Deps, 'database' | 'clock'>, m: FundsMovement, kind: JournalKind, change: Move, entries: (amount: number) => ReturnType<typeof reserveEntries>): Promise<FundsResult> {
  if (!Number.isSafeInteger(m.amount) || m.amount <= 0) throw new Error(`a ${kind} amount is a positive number of minor units`);
  return deps.database.transaction(async (query): Promise<FundsResult> => {
    if (await journalWritten(query, `${m.key}:${kind}`)) return { ok: true, balance: null, repeated: true };
    const balance = await change(query, m);
    if (!balance) return { ok: false, reason: kind === 'payout_reserve' ? 'insufficient_funds' : 'not_reserved' };
    await writeJournal(query, { key: m.key, accountId: m.accountId, currency: m.currency, kind, referenceId: m.key, entries: entries(m.amount), at: deps.clock.now() });
    return { ok: true, balance, repeated: false };
  });
}

/** Takes `amount` from available into reserved, or refuses (insufficient_funds) and moves nothing. */
export function reserveFunds(deps: Pick<Deps, 'database' | 'clock'>, m: FundsMovement): Promise<FundsResult> {
  return move(deps, m, 'payout_reserve', (q, x) => reserveAvailable(q, x.accountId, x.currency, x.amount), reserveEntries);
}

/** Gives a reservation back to available (the payout failed or was cancelled). */
export function releaseFunds(deps: Pick<Deps, 'database' | 'clock'>, m: FundsMovement): Promise<FundsResult> {
  return move(deps, m, 'payout_release', (q, x) => takeReserved(q, x.accountId, x.currency, x.amount, true), releaseReservationEntries);
}

/** The reservation leaves the merchant's books: the payout was paid. */
export function payOutFunds(deps: Pick<Deps, 'database' | 'clock'>, m: FundsMovement): Promise<FundsResult> {
  return move(deps, m, 'payout', (q, x) => takeReserved(q, x.accountId, x.currency, x.amount, false), payoutEntries);
}
