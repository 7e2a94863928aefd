// What every batch operation shares (the batch rules of docs/api/query.md). The list is judged as a whole
// first: missing, not a list of orders, empty or over the operation's limit → the request is
// refused (400) and nothing is done. Then each order is validated and run on its own; whatever
// refuses one order becomes that order's status and error_message, and the others go on. The
// answer holds one entry per submitted order, in order.
//
// Orders on one transaction run one after the other, in the order sent (two refunds of one
// payment are two refunds, the second seeing the first). Orders on different transactions are
// independent and run side by side: a 50-order batch then costs a few orders' time, not fifty.
// An operation runs them in one of two ways. Lanes (`run`): each transaction's orders one after
// the other, BATCH_CONCURRENCY transactions at once, or fewer when a connector the batch calls (the
// account's, or one its payments were taken on) accepts fewer calls at once. Waves (`runWave`, refunds): the first order of every transaction, up to
// WAVE_SIZE at a time, handed to the use case together (which claims and records them with one
// statement and one commit each, and keeps the processor calls in between to what the connector
// accepts at once), then the second order of those that have one, and so on.
//
// The database away (restarting, failing over) refuses the order that meets it `9503`, and no
// order is started after it: each not yet started is answered `9503` too. The orders already
// under way settle first (one whose processor call was made is answered pending: the gateway
// asks again once the database is back), and only then is the request answered: 200 with each
// order's own result when any order was done, or 503 `9503` as a whole when none was (nothing
// was stored, the same request may be sent again). Nothing of a batch runs after its answer.
import { mapBounded } from '../../app/batch/calls-in-flight.ts';
import { metDatabaseAway, orderRefusal } from '../../app/batch/orders.ts';
import { AppError } from '../../domain/errors.ts';
import { findBadText, quoteName } from '../../domain/text.ts';
import type { AccountRow } from '../../db/schema.ts';
import type { Deps } from '../../app/context.ts';
import { databaseAway } from '../plugins/errors.ts';

export type Fields = Record<string, string>;

interface BatchCommon<Order> {
  /** The list field of request and answer: `capture_orders`. */
  readonly list: string;
  readonly limit: number;
  /** Request fields each answer entry echoes, as sent. */
  readonly echo: readonly string[];
  /** Checks one order's fields; throws an AppError naming the field. */
  parse(entry: Record<string, unknown>): Order;
  /** Status fields of an order that was refused. */
  refused(error: AppError): Fields;
}

/** An operation run in lanes: one order at a time per transaction. */
interface LaneSpec<Order> extends BatchCommon<Order> {
  /** Processor calls the batch's connectors accept at once (batchCallLimit): at most that many lanes. */
  readonly callLimit: number;
  /** Runs one valid order, the `index`th of the list (0-based); answers its status fields. */
  run(order: Order, index: number): Promise<Fields>;
}

/** An operation run in waves: orders on different transactions together. */
interface WaveSpec<Order> extends BatchCommon<Order> {
  /**
   * Runs valid orders on different transactions together, `indices` their places in the list
   * (0-based); answers each one's status fields or its refusal, in order.
   */
  runWave(orders: Order[], indices: number[]): Promise<(Fields | AppError)[]>;
}

export type BatchSpec<Order> = LaneSpec<Order> | WaveSpec<Order>;

export interface BatchAnswer extends Record<string, unknown> {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly return_status: '1';
  readonly return_message: 'OK';
}

/**
 * Transactions worked on at once in one batch's lanes, at most (each holds a database connection
 * while it runs, and has one processor call in flight at a time).
 */
export const BATCH_CONCURRENCY = 8;

/**
 * Orders of a wave: different transactions claimed together, whose processor calls are in flight
 * at once, or as many at once as their connector accepts. A wave holds one database connection
 * only while it claims and while it records, never during the calls.
 */
export const WAVE_SIZE = 50;

export async function runBatch<Order>(
  deps: Pick<Deps, 'log'>,
  account: AccountRow,
  body: Record<string, unknown>,
  spec: BatchSpec<Order>,
): Promise<BatchAnswer> {
  const orders = ordersOf(body, spec);
  const lanes = lanesOf(orders);
  const run = new BatchRun(deps, spec, orders);
  if ('runWave' in spec) await runWaves(run, spec, lanes);
  else await runLanes(run, spec, lanes);
  // Every order has settled. None done and the database away: nothing was stored, 503 as a whole.
  if (run.away && !run.done) throw databaseAway();
  const answer = { merchant_id: account.merchantId, account_id: account.id, return_status: '1', return_message: 'OK', [spec.list]: run.entries } as const;
  if (run.away) unfinished.add(answer);
  return answer;
}

/** Answers of which some order met the database away (`9503`): a keyed request does not keep them. */
const unfinished = new WeakSet<BatchAnswer>();

/** Whether some order of this batch answer was refused `9503` for want of the database. */
export function metTheDatabaseAway(answer: BatchAnswer): boolean {
  return unfinished.has(answer);
}

/** One batch request's entries as its orders settle, and what it met. */
class BatchRun<Order> {
  readonly entries: Fields[];
  /** Some order met the database away: none is started after it. */
  away = false;
  /** Some order was done (its use case answered it: done, pending, or refused by the processor). */
  done = false;
  readonly #deps: Pick<Deps, 'log'>;
  readonly #spec: BatchCommon<Order>;
  readonly #orders: Record<string, unknown>[];

  constructor(deps: Pick<Deps, 'log'>, spec: BatchCommon<Order>, orders: Record<string, unknown>[]) {
    this.#deps = deps;
    this.#spec = spec;
    this.#orders = orders;
    this.entries = new Array(orders.length);
  }

  /** The `index`th order checked: its text, then its fields (throws the order's refusal). */
  parse(index: number): Order {
    assertGoodText(this.#orders[index]!);
    return this.#spec.parse(this.#orders[index]!);
  }

  /** The order's answer from what its use case answered. */
  answer(index: number, fields: Fields): void {
    this.done = true;
    this.#set(index, fields);
  }

  /** The orders' answer from their refusal, or from what their run threw (orderRefusal, logged once). */
  refuse(indices: number | readonly number[], error: unknown): void {
    const all = typeof indices === 'number' ? [indices] : indices;
    const refusal = orderRefusal(error, this.#deps.log, 'batch order failed', { list: this.#spec.list, index: all[0] });
    if (metDatabaseAway(refusal)) this.away = true;
    for (const index of all) this.#set(index, this.#spec.refused(refusal));
  }

  /** An order not started because the database was found away: 9503, nothing of it stored. */
  notStarted(index: number): void {
    this.#set(index, this.#spec.refused(new AppError('service_unavailable')));
  }

  #set(index: number, fields: Fields): void {
    this.entries[index] = { ...echoOf(this.#orders[index]!, this.#spec.echo), ...fields };
  }
}

async function runLanes<Order>(run: BatchRun<Order>, spec: LaneSpec<Order>, lanes: number[][]) {
  // No lane's order throws (each is answered or refused): every lane settles before the answer.
  await mapBounded(lanes, Math.min(BATCH_CONCURRENCY, spec.callLimit), async (lane) => {
    for (const index of lane) {
      if (run.away) {
        run.notStarted(index);
        continue;
      }
      try {
        run.answer(index, await spec.run(run.parse(index), index));
      } catch (error) {
        run.refuse(index, error);
      }
    }
  });
}

async function runWaves<Order>(run: BatchRun<Order>, spec: WaveSpec<Order>, lanes: number[][]) {
  for (let round = 0; ; round++) {
    // The round-th order of every transaction that has one: all on different transactions.
    const indices = lanes.flatMap((lane) => (round < lane.length ? [lane[round]!] : []));
    if (indices.length === 0) return;
    for (let start = 0; start < indices.length; start += WAVE_SIZE) {
      const valid: { index: number; order: Order }[] = [];
      for (const index of indices.slice(start, start + WAVE_SIZE)) {
        if (run.away) {
          run.notStarted(index);
          continue;
        }
        try {
          valid.push({ index, order: run.parse(index) });
        } catch (error) {
          run.refuse(index, error);
        }
      }
      if (valid.length === 0) continue;
      let results: (Fields | AppError)[];
      try {
        results = await spec.runWave(valid.map((v) => v.order), valid.map((v) => v.index));
      } catch (error) {
        // Thrown by the wave as a whole: none of its orders was done (the database away before
        // its claims, or a fault), each refused alike.
        run.refuse(valid.map((v) => v.index), error);
        continue;
      }
      valid.forEach(({ index }, i) => {
        const result = results[i]!;
        if (result instanceof AppError) run.refuse(index, result);
        else run.answer(index, result);
      });
    }
  }
}

/** Indices of the orders grouped by the transaction they name, each group in the order sent. */
function lanesOf(orders: readonly Record<string, unknown>[]): number[][] {
  const lanes = new Map<string, number[]>();
  orders.forEach((order, index) => {
    const key = typeof order.transaction_id === 'string' ? `t:${order.transaction_id}` : `#${index}`;
    const lane = lanes.get(key);
    if (lane) lane.push(index);
    else lanes.set(key, [index]);
  });
  return [...lanes.values()];
}

/** An order whose text the database cannot store (a NUL, an unpaired surrogate) is refused on its own. */
function assertGoodText(entry: Record<string, unknown>): void {
  const found = findBadText(entry);
  if (found !== undefined) {
    const field = quoteName(found);
    throw new AppError('invalid_field', `${field} is invalid: expected text without NUL characters or unpaired surrogates`, { field });
  }
}

/** The orders of a batch request, or the refusal of the whole request. */
export function ordersOf(body: Record<string, unknown>, spec: Pick<BatchSpec<unknown>, 'list' | 'limit'>): Record<string, unknown>[] {
  const list = body[spec.list];
  if (list === undefined) throw new AppError('missing_field', `${spec.list} is required`, { field: spec.list });
  if (!Array.isArray(list)) throw new AppError('invalid_field', `${spec.list} is invalid: expected a list of orders`, { field: spec.list });
  if (list.length === 0 || list.length > spec.limit) {
    throw new AppError('batch_limit', `${spec.list} holds ${list.length} orders: 1 to ${spec.limit} per request`, { field: spec.list });
  }
  list.forEach((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new AppError('invalid_field', `${spec.list}[${i}] is invalid: expected an order with its fields`, { field: `${spec.list}[${i}]` });
    }
  });
  return list as Record<string, unknown>[];
}

const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

function echoOf(entry: Record<string, unknown>, fields: readonly string[]): Fields {
  return Object.fromEntries(fields.map((field) => [field, text(entry[field])]));
}

/** The answer to a refused batch request: return_status 0, the code naming the field, no entries. */
export function batchRefusal(list: string) {
  return (body: Record<string, unknown>, error: AppError): Record<string, unknown> => ({
    merchant_id: text(body.merchant_id),
    account_id: text(body.account_id),
    return_status: '0',
    return_message: error.info,
    [list]: [],
  });
}
