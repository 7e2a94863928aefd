// Helpers for the lifecycle operations (capture, review, cancel, refund, query, refund search):
// payments to act on, batch requests, the state of the books, and a sandbox processor whose
// answers a test can script and whose calls it can count.
import { expect } from 'vitest';
import type { Connectors } from '../../src/app/context.ts';
import { checkLedger } from '../../src/app/ledger/check.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type {
  AuthoriseOutcome,
  AuthenticationResult,
  CancelRequest,
  CaptureRequest,
  CompletionRequest,
  Connector,
  OperationOutcome,
  PaymentStatusRequest,
  RefundRequest,
  RefundStatusRequest,
  Result,
} from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { Answer, Format, SignedClient } from './client.ts';
import { cardPayment } from './fixtures.ts';
import type { TestGateway } from './gateway.ts';

/** Registers `cidr` for each client's queries (/v1/retrievalTrans and refund search answer only registered addresses). */
export async function allowQueriesFrom(gw: Pick<TestGateway, 'gateway'>, clients: readonly SignedClient[], cidr = '127.0.0.1'): Promise<void> {
  for (const client of clients) {
    const done = await runCommand(['ips', 'add', '--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id, '--cidr', cidr], gw.gateway.deps);
    expect(done.exitCode, done.stderr).toBe(0);
  }
}

/** What a batch order needs to name a transaction. */
export interface Txn {
  readonly transaction_id: string;
  readonly order_no: string;
  readonly currency: string;
  readonly amount: string;
}

/** A card payment through /v1/authorise; fails the test unless it got a transaction_id. */
export async function pay(client: SignedClient, overrides: Record<string, unknown> = {}): Promise<Txn> {
  const body = cardPayment(client.ids, overrides);
  const answer = await client.post('/v1/authorise', body);
  if (answer.status !== 200 || !answer.body.transaction_id) throw new Error(`authorise failed: ${answer.raw}`);
  return { transaction_id: answer.body.transaction_id, order_no: String(body.order_no), currency: String(body.currency), amount: answer.body.amount };
}

/** The order record of `txn`, with extra fields. */
export const orderOf = (txn: Txn, extra: Record<string, unknown> = {}) => ({
  transaction_id: txn.transaction_id,
  order_no: txn.order_no,
  currency: txn.currency,
  amount: txn.amount,
  ...extra,
});

export const BATCH_PATHS = {
  capture_orders: '/v1/capture',
  review_orders: '/v1/review',
  cancel_orders: '/v1/cancel',
  refund_orders: '/v1/refund',
} as const;
export type BatchList = keyof typeof BATCH_PATHS;

/** Posts a batch of orders to the operation whose list is `list`. */
export function batch(
  client: SignedClient,
  list: BatchList,
  orders: readonly Record<string, unknown>[],
  options: { format?: Format } = {},
): Promise<Answer> {
  return client.post(BATCH_PATHS[list], { ...client.ids, [list]: orders }, options);
}

/** The one entry of a one-order batch. */
export async function single(client: SignedClient, list: BatchList, order: Record<string, unknown>): Promise<Record<string, any>> {
  const answer = await batch(client, list, [order]);
  if (answer.status !== 200) throw new Error(`${list} answered ${answer.status}: ${answer.raw}`);
  return answer.body[list][0];
}

export const capture = (client: SignedClient, txn: Txn, extra: Record<string, unknown> = {}) => single(client, 'capture_orders', orderOf(txn, extra));
export const cancel = (client: SignedClient, txn: Txn) => single(client, 'cancel_orders', orderOf(txn));
export const review = (client: SignedClient, txn: Txn, flag: '0' | '1') => single(client, 'review_orders', orderOf(txn, { review_flag: flag }));
export const refund = (client: SignedClient, txn: Txn, refundAmount: string, extra: Record<string, unknown> = {}) =>
  single(client, 'refund_orders', orderOf(txn, { refund_amount: refundAmount, ...extra }));

/** The payment row as numbers and text. */
export async function paymentRow(gw: TestGateway, id: string): Promise<{ status: string; captured: number; refunded: number; result_code: string | null }> {
  const [row] = await gw.database.query<{ status: string; captured: number; refunded: number; result_code: string | null }>(
    'SELECT status, captured_amount::int AS captured, refunded_amount::int AS refunded, result_code FROM payments WHERE id = $1',
    [id],
  );
  if (!row) throw new Error(`no payment ${id}`);
  return row;
}

/**
 * `count` captured payments of the account `ids` names, written straight into the table (no
 * journal, no event) and numbered from `from`: ids `T<prefix><n>`, order numbers `<prefix>-<n>`.
 * For tests of how a read goes through many rows; nothing analyses the table meanwhile.
 */
export async function insertPayments(
  gw: Pick<TestGateway, 'database'>,
  ids: { merchant_id: string; account_id: string },
  count: number,
  { from = 1, prefix = 'BULK' }: { from?: number; prefix?: string } = {},
): Promise<void> {
  await gw.database.query(
    `INSERT INTO payments (id, account_id, merchant_id, order_no, kind, payment_method, status, amount, currency, request_fingerprint, request, connector, created_at)
     SELECT 'T' || $5 || i, $1, $2, $5 || '-' || i, 'card', 'card', 'captured', 1000, 'USD', 'fp', '{}'::jsonb, 'simulator', now()
     FROM generate_series($4::int, $4::int + $3::int - 1) AS i`,
    [ids.account_id, ids.merchant_id, count, from, prefix],
  );
}

/** Each book of a payment, summed (debit positive). */
export async function booksOf(gw: TestGateway, paymentId: string): Promise<Record<string, number>> {
  const rows = await gw.database.query<{ book: string; total: number }>(
    'SELECT book, sum(amount)::int AS total FROM ledger_entries WHERE payment_id = $1 GROUP BY book',
    [paymentId],
  );
  return Object.fromEntries(rows.filter((r) => r.total !== 0).map((r) => [r.book, r.total]));
}

export async function eventTypes(gw: TestGateway, paymentId: string): Promise<string[]> {
  const rows = await gw.database.query<{ type: string }>('SELECT type FROM events WHERE payment_id = $1 ORDER BY created_at, id', [paymentId]);
  return rows.map((r) => r.type);
}

/** Fails with the violations when the ledger check finds any. */
export async function expectLedgerBalanced(gw: TestGateway): Promise<void> {
  const report = await checkLedger(gw.gateway.deps);
  if (!report.ok) throw new Error(`ledger check failed:\n${JSON.stringify(report.violations, null, 2)}`);
}

/** What a test may script: each call as the connector is asked it (its `signal` included). */
export interface Script {
  capture?: (request: CaptureRequest) => Promise<Result<OperationOutcome>>;
  cancel?: (request: CancelRequest) => Promise<Result<OperationOutcome>>;
  refund?: (request: RefundRequest) => Promise<Result<OperationOutcome>>;
  refundStatus?: (request: RefundStatusRequest) => Promise<Result<OperationOutcome>>;
  paymentStatus?: (request: PaymentStatusRequest) => Promise<Result<AuthoriseOutcome>>;
  /** An APM issuer page's answer, passed on (the real one is `next`). */
  completeRedirect?: (request: CompletionRequest & { readonly result: AuthenticationResult }, next: () => Promise<Result<AuthoriseOutcome>>) => Promise<Result<AuthoriseOutcome>>;
}
type Scripted = keyof Script;

/**
 * The sandbox processor under the name `simulator`, with calls counted and, where a test sets
 * `script[call]`, answered as scripted instead (a decline, a lost answer, a pending refund, a call
 * that hangs). With `capped`, the same processor is also registered as `capped`, accepting that
 * many calls at once (`maxCallsInFlight`, an acquirer's limit): an account routed to it
 * (`connector: 'capped'`) meets the limit.
 */
export function scriptedProcessor(options: { capped?: number } = {}): {
  connectors: Connectors;
  calls: Record<Scripted, number>;
  script: Script;
} {
  const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
  const calls: Record<Scripted, number> = { capture: 0, cancel: 0, refund: 0, refundStatus: 0, paymentStatus: 0, completeRedirect: 0 };
  const script: Script = {};
  const scripted =
    <R, O>(name: Scripted, real: (request: R) => Promise<Result<O>>) =>
    async (request: R): Promise<Result<O>> => {
      calls[name] += 1;
      const answer = script[name] as ((request: R) => Promise<Result<O>>) | undefined;
      return answer ? answer(request) : real(request);
    };
  const connector: Connector = {
    ...simulator,
    capture: scripted('capture', simulator.capture),
    cancel: scripted('cancel', simulator.cancel),
    refund: scripted('refund', simulator.refund),
    refundStatus: scripted('refundStatus', simulator.refundStatus),
    paymentStatus: scripted('paymentStatus', simulator.paymentStatus),
    completeRedirect: async (request) => {
      calls.completeRedirect += 1;
      const next = () => simulator.completeRedirect!(request);
      return script.completeRedirect ? script.completeRedirect(request, next) : next();
    },
  };
  const capped: Connector | undefined = options.capped === undefined ? undefined : { ...connector, name: 'capped', maxCallsInFlight: options.capped };
  return { connectors: { get: (name) => (name === 'simulator' ? connector : name === 'capped' ? capped : undefined) }, calls, script };
}

/**
 * A scripted answer that counts the calls in flight (`most`: the largest number at once). Each call
 * is held `ms`, or until more than `limit` are in flight at once (what a connector's limit must
 * prevent): so calls made together overlap, and a fan-out past `limit` shows at once.
 */
export function heldAnswer(limit: number, ms: number, outcome: OperationOutcome = { status: 'succeeded', reference: 'scripted' }) {
  const count = { now: 0, most: 0 };
  const held: (() => void)[] = [];
  const answer = async (): Promise<Result<OperationOutcome>> => {
    count.most = Math.max(count.most, ++count.now);
    if (count.now > limit) {
      for (const release of held.splice(0)) release();
    } else {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        held.push(() => (clearTimeout(timer), resolve()));
      });
    }
    count.now -= 1;
    return { ok: true, value: outcome };
  };
  return { count, answer };
}

/**
 * A processor that never answers: the call hangs until its signal is aborted (the core's
 * deadline), then, like a network call cut off, ends with an error. `ignoring` the signal, it
 * hangs until `release` is called (a connector that does not honour the signal).
 */
export function hanging<O = OperationOutcome>(options: { ignoring?: boolean } = {}) {
  const hung: (() => void)[] = [];
  const answer = (request: { signal?: AbortSignal }): Promise<Result<O>> =>
    new Promise((resolve) => {
      const cut = () => resolve({ ok: false, error: { kind: 'network', message: 'aborted' } });
      hung.push(cut);
      if (!options.ignoring) request.signal?.addEventListener('abort', cut, { once: true });
    });
  return { answer, release: () => hung.splice(0).forEach((cut) => cut()) };
}

export const lost = async (): Promise<Result<OperationOutcome>> => ({ ok: false, error: { kind: 'timeout', message: 'no answer in time' } });
export const refused = (reason: string) => async (): Promise<Result<OperationOutcome>> => ({ ok: true, value: { status: 'failed', reason } });
