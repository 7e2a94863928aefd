// The settlement batch: captured money (less refunds and fees) that has been pending for the
// connector's settlement days becomes available. The authorisation and capture hot path never
// touches a balance row; this batch moves what is due, per account and currency, one short
// transaction each, under the balance row's lock, with a journal keyed by the batch's cutoff.
// A negative amount due (refunds or chargebacks beyond new captures) takes available down: the
// debt is recovered from the next settlements. docs/ledger.md, Settlement.
import { settlementEntries } from '../../domain/ledger.ts';
import { scheduleOf } from '../../connectors/port.ts';
import { creditAvailable, dueSettlements, lockBalance, settlementDue } from '../../db/repositories/balances.ts';
import { writeJournal } from '../../db/repositories/ledger.ts';
import type { Deps } from '../context.ts';

const BATCH = 100;
const DAY_MS = 86_400_000;

/** One round: settles up to BATCH account-currency pairs per connector; answers how many it settled. */
export async function settleBalances(deps: Pick<Deps, 'database' | 'clock' | 'connectors'>): Promise<number> {
  const connectors = await deps.database.query<{ connector: string }>(`SELECT DISTINCT connector FROM accounts`);
  let settled = 0;
  for (const { connector: name } of connectors) {
    const connector = deps.connectors.get(name);
    if (!connector) continue; // not served by this process (a live connector in a sandbox worker, or the reverse)
    const now = deps.clock.now();
    const cutoff = new Date(now.getTime() - scheduleOf(connector).settlementDays * DAY_MS);
    for (const due of await dueSettlements(deps.database.query, name, cutoff, BATCH)) {
      settled += await deps.database.transaction(async (query) => {
        await lockBalance(query, due.accountId, due.currency);
        const amount = await settlementDue(query, due.accountId, due.currency, cutoff);
        if (amount === 0) return 0; // another worker settled it first
        const key = `ST${due.accountId}_${due.currency}_${cutoff.toISOString()}`;
        await writeJournal(query, { key, accountId: due.accountId, currency: due.currency, kind: 'settlement', referenceId: key, entries: settlementEntries(amount), at: now });
        await creditAvailable(query, due.accountId, due.currency, amount);
        return 1;
      });
    }
  }
  return settled;
}
