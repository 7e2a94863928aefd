// Every connector call goes through callConnector: under the core's deadline (the configured
// ACQUIRO_CONNECTOR_TIMEOUT), with the signal handed to the connector, and, inside a fan-out, in
// one of the fan-out's call slots.
//
// A fan-out of processor calls keeps to what the connector accepts at once (its
// `maxCallsInFlight`, src/connectors/port.ts): a refund batch's wave asks about each connector's
// refunds at most that many at a time, and a capture, void or review batch runs at most as many
// lanes as the least of the connectors its payments were taken on accepts (batchCallLimit). The
// core never assumes a number of its own beyond the port's default. A call past its deadline is
// answered `timeout` at once (the request or sweeper goes on, the outcome pending),
// but its slot is held until the connector's own promise settles: at the deadline for a connector
// that honours the signal, later for one that does not, so the processor never has more of our
// calls at once than it accepts. A call that finds no slot free within one connector timeout is
// not sent: `unavailable`, its outcome pending like any unknown one, for the sweeper to send.
import { callLimitOf, err, withDeadline, type Result } from '../../connectors/port.ts';
import { connectorsOf } from '../../db/repositories/payment-lookup.ts';
import { isBadText } from '../../domain/text.ts';
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

/**
 * How many calls a batch naming `transactionIds` may have in flight at once: the fewest that the
 * account's connector, or any connector those payments were taken on, accepts. An account routed
 * to another connector leaves its payments on the one that took them, and their captures, voids
 * and refunds go there, within that connector's limit. One transaction's calls go one after the
 * other whatever the limit, so a batch naming fewer than two is not worth the statement.
 */
export async function batchCallLimit(
  deps: Pick<Deps, 'connectors' | 'database'>,
  account: Pick<AccountRow, 'id' | 'connector'>,
  transactionIds: readonly string[],
): Promise<number> {
  // An id holding text the database cannot take (a NUL) names no payment, and would fail the
  // statement for the whole batch: its order is refused on its own (src/http/batch/run.ts).
  const ids = transactionIds.filter((id) => !isBadText(id));
  if (new Set(ids).size < 2) return accountCallLimit(deps, account);
  const connectors = await connectorsOf(deps.database, account.id, ids);
  return Math.min(accountCallLimit(deps, account), ...connectors.map((name) => callLimitOf(deps.connectors.get(name))));
}

/** The calls one fan-out may have in flight at once. */
export interface CallSlots {
  /** A slot, and how to give it back; null when none came free within `waitMs`. */
  take(waitMs: number): Promise<(() => void) | null>;
}

/** `limit` slots (at least one): a slot given back goes to the longest waiting taker. */
export function callSlots(limit: number): CallSlots {
  let free = Math.max(1, limit);
  const waiting: ((release: () => void) => void)[] = [];
  const grant = (): (() => void) => {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = waiting.shift();
      if (next) next(grant());
      else free += 1;
    };
  };
  return {
    take(waitMs) {
      if (free > 0) {
        free -= 1;
        return Promise.resolve(grant());
      }
      return new Promise((resolve) => {
        const taker = (release: () => void) => {
          clearTimeout(timer);
          resolve(release);
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(taker), 1);
          resolve(null);
        }, waitMs);
        waiting.push(taker);
      });
    },
  };
}

/** `deps` for the use cases a fan-out runs: their connector calls share `limit` slots (the connector's callLimitOf). */
export function inFanOut<D>(deps: D, limit: number): D & { readonly calls: CallSlots } {
  return { ...deps, calls: callSlots(limit) };
}

/**
 * One connector call: `call` is given the signal aborted at the deadline (the configured connector
 * timeout); unanswered by then, or thrown, it is an error value (the outcome unknown, pending).
 * Inside a fan-out (`deps.calls`), it first takes a slot, held until the connector's promise
 * settles; none free within one connector timeout, the call is not made (`unavailable`).
 */
export async function callConnector<T>(deps: Pick<Deps, 'config' | 'calls'>, call: (signal: AbortSignal) => Promise<Result<T>>): Promise<Result<T>> {
  const { callTimeoutMs } = deps.config.processor;
  const release = deps.calls ? await deps.calls.take(callTimeoutMs) : undefined;
  if (release === null) return err({ kind: 'unavailable', message: `no call slot came free within ${callTimeoutMs} ms: not sent` });
  return withDeadline(call, callTimeoutMs, release);
}

const LEFT_PENDING = {
  operation: 'pending operation left pending: no such connector in this process',
  refund: 'pending refund left pending: no such connector in this process',
} as const;

/**
 * Whether this process has `connector`, to ask again about a pending `what` (a capture or void, a
 * refund) taken on it. One sent before may be done at the processor: a process without the
 * connector cannot ask, so it does not know. The sweeper leaves it pending (never failed: its
 * reservation held, its payment as it is) for a process that can, and its lease brings it back;
 * logged as an error with `ids` (what names the item, never a request's values).
 */
export function canAskAgain(deps: Pick<Deps, 'connectors' | 'log'>, connector: string, what: keyof typeof LEFT_PENDING, ids: Record<string, string>): boolean {
  if (deps.connectors.get(connector)) return true;
  deps.log.error({ ...ids, connector }, LEFT_PENDING[what]);
  return false;
}
