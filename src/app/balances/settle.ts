// The settlement batch: captured money (less refunds and fees) that has been pending for the
// connector's settlement days becomes available. The authorisation and capture hot path never
// touches a balance row; this batch moves what is due, per account and currency, one short
// transaction each, under the balance row's lock. A negative amount due (refunds or chargebacks
// beyond new captures) takes available down: the debt is recovered from the next settlements.
// Workers' business times disagree (hosts' clocks; a process not yet told of `acquiro clock
// advance`), so a batch settles up to the later of its own cutoff and the one the balance row was
// settled up to: one behind never takes back money another made available. The cutoff may then
// repeat with new money due (a capture dated by a lagging process), so each batch's journal has a
// key of its own; the lock and the cumulative amount keep a batch from settling anything twice.
// docs/ledger.md, Settlement.
import { newId } from '../../domain/ids.ts';
import { settlementEntries } from '../../domain/ledger.ts';
import { scheduleOf } from '../../connectors/port.ts';
import { dueSettlements, lockBalance, recordSettlement, settlementDue } from '../../db/repositories/balances.ts';
import { writeJournal } from '../../db/repositories/ledger.ts';
import type { Deps } from '../context.ts';

const BATCH = 100;
const DAY_MS = 86_400_000;

/** One round: settles the account-currency pairs of up to BATCH due movements per connector; answers how many it settled. */
export async function settleBalances(deps: Pick<Deps, 'database' | 'clock' | 'connectors'>): Promise<number> {
  return (await settlementRound(deps)).settled;
}

/**
 * The worker's round (src/jobs/tasks.ts): answers how many it settled when a connector's batch was
 * full, so that the runner goes again at once for the rest, and 0 otherwise, so that it waits its
 * interval. Under steady traffic something falls due every moment: going again after any
 * settlement kept the task from ever pausing, each round reading every account's balance book and
 * writing a journal per account for a few milliseconds' captures.
 */
export async function settleBalancesTask(deps: Pick<Deps, 'database' | 'clock' | 'connectors'>): Promise<number> {
  const { settled, full } = await settlementRound(deps);
  return full ? settled : 0;
}

async function settlementRound(deps: Pick<Deps, 'database' | 'clock' | 'connectors'>): Promise<{ settled: number; full: boolean }> {
  // The connectors this process serves (reading them off every account was a scan of the table).
  const names = deps.connectors.names?.() ?? (await deps.database.query<{ connector: string }>(`SELECT DISTINCT connector FROM accounts`)).map((r) => r.connector);
  let settled = 0;
  let full = false;
  for (const name of names) {
    const connector = deps.connectors.get(name);
    if (!connector) continue; // not served by this process (a live connector in a sandbox worker, or the reverse)
    const now = deps.clock.now();
    const cutoff = new Date(now.getTime() - scheduleOf(connector).settlementDays * DAY_MS);
    const { dues, full: more } = await dueSettlements(deps.database.query, name, cutoff, BATCH);
    if (more) full = true;
    for (const due of dues) {
      settled += await deps.database.transaction(async (query) => {
        await lockBalance(query, due.accountId, due.currency);
        const { amount, cutoff: upTo } = await settlementDue(query, due.accountId, due.currency, cutoff);
        await recordSettlement(query, due.accountId, due.currency, amount, upTo);
        if (amount === 0) return 0; // another worker settled it first
        const key = newId('ST', now.getTime());
        await writeJournal(query, { key, accountId: due.accountId, currency: due.currency, kind: 'settlement', referenceId: key, entries: settlementEntries(amount), at: now });
        return 1;
      });
    }
  }
  return { settled, full };
}
