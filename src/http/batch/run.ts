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
import { mapBounded } from '../../app/batch/calls-in-flight.ts';
import { orderRefusal } from '../../app/batch/orders.ts';
import { AppError } from '../../domain/errors.ts';
import { findBadText, quoteName } from '../../domain/text.ts';
import type { AccountRow } from '../../db/schema.ts';
import type { Deps } from '../../app/context.ts';

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
  const entries: Fields[] = new Array(orders.length);
  const lanes = lanesOf(orders);
  if ('runWave' in spec) await runWaves(deps, spec, orders, lanes, entries);
  else await runLanes(deps, spec, orders, lanes, entries);
  return { merchant_id: account.merchantId, account_id: account.id, return_status: '1', return_message: 'OK', [spec.list]: entries };
}

async function runLanes<Order>(deps: Pick<Deps, 'log'>, spec: LaneSpec<Order>, orders: Record<string, unknown>[], lanes: number[][], entries: Fields[]) {
  await mapBounded(lanes, Math.min(BATCH_CONCURRENCY, spec.callLimit), async (lane) => {
    for (const index of lane) entries[index] = { ...echoOf(orders[index]!, spec.echo), ...(await runOne(deps, spec, orders[index]!, index)) };
  });
}

async function runWaves<Order>(
  deps: Pick<Deps, 'log'>,
  spec: WaveSpec<Order>,
  orders: Record<string, unknown>[],
  lanes: number[][],
  entries: Fields[],
) {
  const answer = (index: number, fields: Fields) => (entries[index] = { ...echoOf(orders[index]!, spec.echo), ...fields });
  for (let round = 0; ; round++) {
    // The round-th order of every transaction that has one: all on different transactions.
    const indices = lanes.flatMap((lane) => (round < lane.length ? [lane[round]!] : []));
    if (indices.length === 0) return;
    for (let start = 0; start < indices.length; start += WAVE_SIZE) {
      const valid: { index: number; order: Order }[] = [];
      for (const index of indices.slice(start, start + WAVE_SIZE)) {
        try {
          assertGoodText(orders[index]!);
          valid.push({ index, order: spec.parse(orders[index]!) });
        } catch (error) {
          answer(index, refusedOrThrow(deps, spec, error, index));
        }
      }
      if (valid.length === 0) continue;
      let results: (Fields | AppError)[];
      try {
        results = await spec.runWave(valid.map((v) => v.order), valid.map((v) => v.index));
      } catch (error) {
        const refused = refusedOrThrow(deps, spec, error, valid[0]!.index);
        results = valid.map(() => refused);
      }
      valid.forEach(({ index }, i) => {
        const result = results[i]!;
        answer(index, result instanceof AppError ? spec.refused(result) : result);
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

async function runOne<Order>(deps: Pick<Deps, 'log'>, spec: LaneSpec<Order>, entry: Record<string, unknown>, index: number): Promise<Fields> {
  try {
    assertGoodText(entry);
    return await spec.run(spec.parse(entry), index);
  } catch (error) {
    return refusedOrThrow(deps, spec, error, index);
  }
}

/** The answer of an order refused by what its run threw (orderRefusal: the database away is thrown on). */
function refusedOrThrow<Order>(deps: Pick<Deps, 'log'>, spec: BatchCommon<Order>, error: unknown, index: number): Fields {
  return spec.refused(orderRefusal(error, deps.log, 'batch order failed', { list: spec.list, index }));
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
