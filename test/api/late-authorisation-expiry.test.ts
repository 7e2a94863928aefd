// A hold's expiry counts from its authorisation, not from the payment's creation: the processor's
// authorisation is valid for its connector's days (the sandbox's seven) from when it was given. An
// APM voucher paid on day 3 of its "pay later" window (docs/apm.md) is authorised then, on a
// manual-capture account, or held for review there when risk says so: its hold runs to day 10, not
// day 7. The expire-authorisations round and the refusal a capture or an approval meets (5007,
// hold-expiry.ts) both judge by that moment. An approval from review asks the processor nothing:
// the hold it approves is the one taken on entering review, whose days it keeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireAuthorisations } from '../../src/app/capture/expire-authorisations.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment, freshCard, orderNo } from '../support/fixtures.ts';
import { hotPath } from '../../src/db/repositories/payments.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { capture, eventTypes, expectLedgerBalanced, pay, paymentRow, review, type Txn } from '../support/lifecycle.ts';
import { shopper, type Shopper } from '../support/shopper.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
const clock = new FakeClock('2026-11-02T09:00:00Z');
let gw: TestGateway;
let manual: SignedClient;
let held: SignedClient;
let browser: Shopper;

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  manual = await gw.merchant({ captureMode: 'manual', rateLimitPerSecond: 10_000 });
  held = await gw.merchant({ captureMode: 'manual' });
  // Every voucher of this account above R$10.00 is held for review once paid.
  const set = await runCommand(['risk', 'set', '--merchant-id', held.ids.merchant_id, '--account-id', held.ids.account_id, '--set', 'amountLimits.BRL.review=10.00', '--json'], gw.gateway.deps);
  expect(set.exitCode, set.stderr).toBe(0);
  browser = shopper(gw.gateway.server.app);
});
afterAll(() => gw?.close());

const PERSON = { document_type: 'CPF', document_number: '529.982.247-25', email: 'ana@example.com' };

/** A voucher of R$30.00 (due in three days), not paid yet: its issuer page's URL. */
async function voucher(client: SignedClient): Promise<{ txn: Txn; issuerUrl: string }> {
  const body = {
    ...client.ids,
    payment_method: 'sandbox_voucher',
    order_no: orderNo('VCH'),
    currency: 'BRL',
    billing_country: 'BR',
    amount: '30.00',
    person: PERSON,
    return_url: 'https://shop.example/apm-return',
  };
  const answer = await client.post('/v1/authorise', body);
  expect(answer.body.result_info, answer.raw).toBe('1002:Redirect the shopper to issuer_url');
  return { txn: { transaction_id: answer.body.transaction_id, order_no: body.order_no, currency: 'BRL', amount: '30.00' }, issuerUrl: answer.body.issuer_url };
}

/** The shopper pays the voucher on its issuer page. */
async function paid(issuerUrl: string): Promise<void> {
  expect((await browser.answer(issuerUrl, { action: 'approve' })).status).toBe(303);
}

/** Card payments authorised at once, sent together (their outcomes written in shared statements, payment-batches.ts). */
async function cardsAtOnce(count: number): Promise<string[]> {
  const outcomes = hotPath(gw.database).outcome.stats.statements;
  const answers = await Promise.all(Array.from({ length: count }, () => manual.post('/v1/authorise', cardPayment(manual.ids, { card: freshCard() }))));
  expect(answers.map((answer) => answer.body.order_status)).toEqual(Array(count).fill('1'));
  expect(hotPath(gw.database).outcome.stats.statements - outcomes).toBeLessThan(count);
  const ids = answers.map((answer) => answer.body.transaction_id as string);
  // Each hold's start stamped as it was taken, by the shared statement as by one alone.
  const rows = await gw.database.query<{ held_since: Date | null }>('SELECT held_since FROM payments WHERE id = ANY($1)', [ids]);
  expect(rows.map((row) => row.held_since && new Date(row.held_since).toISOString())).toEqual(Array(count).fill(clock.now().toISOString()));
  return ids;
}

describe('a hold taken days after its payment was created', () => {
  it('expires its connector’s days after the authorisation: the round and a capture judge by it, not by created_at', async () => {
    const start = clock.now().getTime();
    // Authorised at once, alone and together: their days run from day 0.
    const cards = [(await pay(manual)).transaction_id, ...(await cardsAtOnce(4))];
    const late = await voucher(manual);
    const captured = await voucher(manual);
    clock.advance(3 * DAY - 60 * MINUTE); // day 3, within the voucher's window
    await paid(late.issuerUrl);
    await paid(captured.issuerUrl);
    expect((await paymentRow(gw, late.txn.transaction_id)).status).toBe('authorised');
    expect((await paymentRow(gw, captured.txn.transaction_id)).status).toBe('authorised');
    const authorisedAt = clock.now().getTime();

    // Seven days after creation, four after the authorisation: a capture before the round runs
    // goes through, and the round then voids only the cards' holds.
    clock.set(new Date(start + 7 * DAY + MINUTE));
    expect(await capture(manual, captured.txn)).toMatchObject({ capture_status: '1' });
    expect((await paymentRow(gw, captured.txn.transaction_id)).status).toBe('captured');
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(cards.length);
    for (const card of cards) expect(await paymentRow(gw, card)).toMatchObject({ status: 'cancelled', result_code: '2010' });
    expect((await paymentRow(gw, late.txn.transaction_id)).status).toBe('authorised');

    // Just before its seventh day the hold is still captured as any other; just after, it is gone.
    clock.set(new Date(authorisedAt + 7 * DAY - MINUTE));
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(0);
    clock.set(new Date(authorisedAt + 7 * DAY + MINUTE));
    expect(await capture(manual, late.txn)).toMatchObject({ capture_status: '0', error_message: '5007:the transaction is already cancelled' });
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(1);
    expect(await paymentRow(gw, late.txn.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '2010' });
    expect(await eventTypes(gw, late.txn.transaction_id)).toEqual(['payment.authorised', 'payment.cancelled']);
    await expectLedgerBalanced(gw);
  });

  it('held for review on payment: the review and an approval keep the hold’s days from then, not from created_at', async () => {
    const start = clock.now().getTime();
    const approved = await voucher(held);
    const left = await voucher(held);
    clock.advance(3 * DAY - 60 * MINUTE);
    await paid(approved.issuerUrl);
    await paid(left.issuerUrl);
    expect((await paymentRow(gw, approved.txn.transaction_id)).status).toBe('pending_review');
    expect((await paymentRow(gw, left.txn.transaction_id)).status).toBe('pending_review');
    const heldAt = clock.now().getTime();

    // Seven days after creation: an approval before the round runs goes through, and the round
    // releases neither.
    clock.set(new Date(start + 7 * DAY + MINUTE));
    expect(await review(held, approved.txn, '1')).toMatchObject({ review_status: '1' });
    expect((await paymentRow(gw, approved.txn.transaction_id)).status).toBe('authorised');
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(0);
    expect((await paymentRow(gw, left.txn.transaction_id)).status).toBe('pending_review');

    // Seven days after the hold began (not after the approval): both released.
    clock.set(new Date(heldAt + 7 * DAY + MINUTE));
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(2);
    expect(await paymentRow(gw, approved.txn.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '2010' });
    expect(await paymentRow(gw, left.txn.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '3003' });
    await expectLedgerBalanced(gw);
  });
});
