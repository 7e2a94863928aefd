// A capture, void or refund whose processor answer was lost is pending: the processor may have
// done it. The sweeper that asks again runs in a worker process, which may lack the payment's
// connector (a worker deployed with another connector list, or one removed while operations on
// it were pending). It cannot ask, so it does not know: the operation stays pending, nothing is
// notified and nothing is freed, until a process that has the connector asks. Marking it failed
// would free the refund's reservation (a second refund could pay the shopper twice) or leave a
// payment the processor captured as authorised, to be captured again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/app/context.ts';
import { resolvePendingOperations } from '../../src/app/capture/operation.ts';
import { settlePendingRefunds } from '../../src/app/refund/record-refund.ts';
import type { SignedClient } from '../support/client.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { cancel, capture, eventTypes, expectLedgerBalanced, lost, pay, paymentRow, refund, scriptedProcessor } from '../support/lifecycle.ts';

const processor = scriptedProcessor();
let gw: TestGateway;
let shop: SignedClient;
let manual: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors });
  shop = await gw.merchant();
  manual = await gw.merchant({ captureMode: 'manual' });
});
afterAll(() => gw?.close());

/** A worker `ms` from now whose process has no connector at all. */
const workerWithout = (ms: number): Deps => ({ ...depsLater(gw, ms), connectors: { get: () => undefined, names: () => [] } });

const refundRows = (paymentId: string) =>
  gw.database.query<{ status: string; amount: number }>('SELECT status, amount::int AS amount FROM refunds WHERE payment_id = $1', [paymentId]);
const reserved = async (paymentId: string) =>
  (await gw.database.query<{ n: number }>('SELECT refund_reserved::int AS n FROM payments WHERE id = $1', [paymentId]))[0]!.n;
const operations = (paymentId: string) =>
  gw.database.query<{ kind: string; status: string }>('SELECT kind, status FROM payment_operations WHERE payment_id = $1 ORDER BY created_at', [paymentId]);

describe('a sweeper without the payment’s connector', () => {
  it('leaves a pending refund pending, reserved and unnotified; a process with the connector settles it', async () => {
    const txn = await pay(shop);
    processor.script.refund = lost;
    expect((await refund(shop, txn, '10.00')).refund_status).toBe('2');
    delete processor.script.refund;

    await settlePendingRefunds(workerWithout(600_000));
    expect(await refundRows(txn.transaction_id)).toEqual([{ status: 'pending', amount: 1000 }]);
    expect(await reserved(txn.transaction_id)).toBe(1000);
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured']);
    // Nothing freed: a second refund is refused.
    expect((await refund(shop, txn, '10.00')).error_message).toMatch(/^5010:/);

    expect(await settlePendingRefunds(depsLater(gw, 1_200_000))).toBeGreaterThanOrEqual(1);
    expect(await refundRows(txn.transaction_id)).toEqual([{ status: 'succeeded', amount: 1000 }]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'refunded', refunded: 1000 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'refund.succeeded']);
    await expectLedgerBalanced(gw);
  });

  it('leaves a pending capture pending: no payment.capture_failed, no second capture; a process with the connector records it', async () => {
    const txn = await pay(manual);
    processor.script.capture = lost;
    expect((await capture(manual, txn)).capture_status).toBe('2');
    delete processor.script.capture;

    await resolvePendingOperations(workerWithout(60_000));
    expect(await operations(txn.transaction_id)).toEqual([{ kind: 'capture', status: 'pending' }]);
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised']);
    expect((await capture(manual, txn)).error_message).toBe('5012:a capture of this transaction is in progress');

    expect(await resolvePendingOperations(depsLater(gw, 1_200_000))).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.captured']);
    await expectLedgerBalanced(gw);
  });

  it('leaves a pending void pending: no payment.cancel_failed; a process with the connector records it', async () => {
    const txn = await pay(manual);
    processor.script.cancel = lost;
    expect((await cancel(manual, txn)).cancel_status).toBe('2');
    delete processor.script.cancel;

    await resolvePendingOperations(workerWithout(60_000));
    expect(await operations(txn.transaction_id)).toEqual([{ kind: 'void', status: 'pending' }]);
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised']);

    expect(await resolvePendingOperations(depsLater(gw, 1_200_000))).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'cancelled' });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.cancelled']);
    await expectLedgerBalanced(gw);
  });
});
