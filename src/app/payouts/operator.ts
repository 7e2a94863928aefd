// What an operator does with payouts (`acquiro payouts list|show|cancel`): read an account's
// payouts (and whether a disable holds them), and cancel a SCHEDULED one, which releases its
// reservation and notifies the merchant (payout.cancelled) in the same unit of work.
import { AppError } from '../../domain/errors.ts';
import { PAYOUT_MACHINE, type PayoutStatus } from '../../domain/payouts/status.ts';
import type { Transition } from '../../domain/state-machine.ts';
import { listPayouts, lockPayout, movePayout, payoutById, type PayoutFilter } from '../../db/repositories/payouts.ts';
import type { PayoutRow } from '../../db/schema.ts';
import { runRawUnitOfWork } from '../../db/unit-of-work.ts';
import { accountEnabled } from '../accounts/enabled.ts';
import type { Deps } from '../context.ts';
import { fundsJournal, moveBalance, type FundsMovement } from '../balances/funds.ts';
import { payoutEventPayload } from './view.ts';

type OperatorDeps = Pick<Deps, 'database' | 'clock'>;

/**
 * Whether the rail task holds the account's payouts not yet with the rail (awaitsRail): the
 * account or its merchant disabled by an operator (docs/payouts.md, "Held while disabled").
 */
export async function payoutsHeld(deps: OperatorDeps, accountId: string): Promise<boolean> {
  return !(await accountEnabled(deps.database.db, accountId));
}

export function payoutsOf(deps: OperatorDeps, accountId: string, filter: PayoutFilter): Promise<PayoutRow[]> {
  return listPayouts(deps.database.db, accountId, filter);
}

/** One payout of the account; another account's is answered as unknown. */
export async function payoutOf(deps: OperatorDeps, accountId: string, id: string): Promise<PayoutRow> {
  const payout = await payoutById(deps.database.db, accountId, id);
  if (!payout) throw new AppError('transaction_not_found', `no payout ${id} on account ${accountId}`);
  return payout;
}

/**
 * Cancels a SCHEDULED payout: CANCELLED, its reservation back in the available balance, and the
 * merchant told (payout.cancelled): the payout ended without being paid, and the merchant's books,
 * which the operator's command or a colleague's portal click does not reach, must hear of it.
 */
export async function cancelPayout(deps: OperatorDeps, accountId: string, id: string): Promise<PayoutRow> {
  const at = deps.clock.now();
  return runRawUnitOfWork<PayoutRow | null, { move: Transition<PayoutStatus>; funds: FundsMovement }, PayoutRow>(deps.database, {
    lock: (query) => lockPayout(query, id, accountId),
    check(payout) {
      if (!payout) throw new AppError('transaction_not_found', `no payout ${id} on account ${accountId}`);
      if (payout.status !== 'SCHEDULED') throw new AppError('payout_not_cancellable', `payout ${id} is ${payout.status}: only a SCHEDULED payout can be cancelled`);
      const funds = { accountId, currency: payout.sourceCurrency, amount: payout.amountPayerPays, key: payout.id };
      return { change: { move: PAYOUT_MACHINE.move('SCHEDULED', 'CANCELLED'), funds } };
    },
    async change(query, { move, funds }) {
      if (!(await moveBalance(query, 'payout_release', funds))) throw new Error(`payout ${id}: nothing reserved to release`);
      return movePayout(query, id, move, { nextCheckAt: null, at });
    },
    journal: ({ funds }) => [fundsJournal('payout_release', funds, at)],
    event: (_change, row) => ({ accountId: row.accountId, type: 'payout.cancelled', payload: payoutEventPayload('payout.cancelled', row), notifyUrl: row.notifyUrl }),
  });
}
