// Statements of concurrent requests sent as one. Each statement costs the database a round trip,
// an executor start and a commit, and the server a protocol exchange: under load those, not the
// rows, are most of an authorisation's cost (docs/performance.md, "Coalesced statements"). A
// request waits for no company: what arrived in one turn of the event loop goes together at the
// end of that turn, and a lone request goes alone, as its own statement. It also sums how long its
// requests waited for their statement to go and then for its answer: the first is the server's own
// event loop (the rest of the turn), the second the database and, again, the loop that reads the
// answer (/metrics; docs/performance.md, "a seventeenth session").
import { setImmediate } from 'node:timers';
import { errorChain } from './error-chain.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

export interface CoalescingOptions<In, Out> {
  /** The statement of one request (also what a refused batch falls back to). */
  readonly one: (item: In) => Promise<Out>;
  /** The statement of several, answering in their order. */
  readonly many: (items: readonly In[]) => Promise<Out[]>;
  /** Requests with the same key never share a statement (a later one waits for the next). */
  readonly key: (item: In) => string;
  /** At most this many in one statement. */
  readonly max: number;
}

interface Waiting<In, Out> {
  readonly item: In;
  /** performance.now() when it was queued. */
  readonly queuedAt: number;
  readonly resolve: (out: Out) => void;
  readonly reject: (error: unknown) => void;
}

/** Counts kept for the tests and the bench: how many requests went out in how many statements. */
export interface CoalescingStats {
  requests: number;
  statements: number;
  fallbacks: number;
  /** Requests answered with nothing (a claim's order already taken, an outcome's payment moved on). */
  empty: number;
  /** Seconds the requests waited from being queued to their statement going out, summed. */
  waitSeconds: number;
  /** Seconds from their statement going out to its answer reaching them, summed (a refused batch's requests: to their own answers). */
  answerSeconds: number;
}

export interface Coalesced<In, Out> {
  (item: In): Promise<Out>;
  readonly stats: CoalescingStats;
}

export function coalescing<In, Out>(options: CoalescingOptions<In, Out>): Coalesced<In, Out> {
  let queue: Waiting<In, Out>[] = [];
  let scheduled = false;
  const stats: CoalescingStats = { requests: 0, statements: 0, fallbacks: 0, empty: 0, waitSeconds: 0, answerSeconds: 0 };

  const flush = () => {
    scheduled = false;
    const keys = new Set<string>();
    const batch: Waiting<In, Out>[] = [];
    const later: Waiting<In, Out>[] = [];
    for (const waiting of queue) {
      const key = options.key(waiting.item);
      if (batch.length < options.max && !keys.has(key)) {
        keys.add(key);
        batch.push(waiting);
      } else later.push(waiting);
    }
    queue = later;
    if (queue.length > 0) schedule();
    const sentAt = performance.now();
    for (const waiting of batch) stats.waitSeconds += (sentAt - waiting.queuedAt) / 1000;
    void send(batch, sentAt);
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  const send = async (batch: Waiting<In, Out>[], sentAt: number) => {
    const answer = (waiting: Waiting<In, Out>, out: Out) => {
      stats.answerSeconds += (performance.now() - sentAt) / 1000;
      if (out === undefined) stats.empty += 1;
      waiting.resolve(out);
    };
    stats.requests += batch.length;
    stats.statements += 1;
    if (batch.length === 1) return settle(batch[0]!, () => options.one(batch[0]!.item), answer);
    let outs: Out[];
    try {
      outs = await options.many(batch.map((waiting) => waiting.item));
    } catch (error) {
      if (!refusedByDatabase(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      // The database refused the statement, so nothing of it was written: each request is sent
      // alone, and only the one at fault (a deadlock, a constraint) sees an error of its own.
      stats.fallbacks += 1;
      stats.statements += batch.length;
      await Promise.all(batch.map((waiting) => settle(waiting, () => options.one(waiting.item), answer)));
      return;
    }
    batch.forEach((waiting, index) => answer(waiting, outs[index]!));
  };

  const coalesced = (item: In) =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ item, queuedAt: performance.now(), resolve, reject });
      schedule();
    });
  return Object.assign(coalesced, { stats });
}

async function settle<In, Out>(waiting: Waiting<In, Out>, run: () => Promise<Out>, answer: (waiting: Waiting<In, Out>, out: Out) => void): Promise<void> {
  try {
    answer(waiting, await run());
  } catch (error) {
    waiting.reject(error);
  }
}

/**
 * An error the database answered with (it has an SQLSTATE) about what was asked: the statement,
 * run in a transaction of its own, was rolled back, and each request alone may fare better.
 * Anything else is passed on to every request as it is: a connection lost on the way may have
 * committed, and a database going away (isDatabaseUnavailable) would refuse each request alone too.
 */
function refusedByDatabase(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return false;
  for (const cause of errorChain(error)) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return true;
  }
  return false;
}
