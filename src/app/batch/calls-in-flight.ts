// A fan-out of processor calls keeps to what the connector accepts at once (its
// `maxCallsInFlight`, src/connectors/port.ts): a refund batch's wave asks about each connector's
// refunds at most that many at a time, and a capture, void or review batch runs at most that many
// lanes. The core never assumes a number of its own beyond the port's default.
import { callLimitOf } from '../../connectors/port.ts';
import type { AccountRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';

/**
 * `work` on every item, at most `limit` at once: each next item starts, in order, as soon as one
 * ends. Answers the results in the items' order; rejects with the first `work` that throws.
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}

/** How many calls the connector of `account` accepts at once: the one its payments are taken on. */
export function accountCallLimit(deps: Pick<Deps, 'connectors'>, account: Pick<AccountRow, 'connector'>): number {
  return callLimitOf(deps.connectors.get(account.connector));
}
