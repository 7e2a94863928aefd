// A 3-D Secure or APM completion whose answer never reached the gateway (docs/3ds.md, docs/apm.md):
// the processor may have approved, and captured, the payment while it still waits for the
// shopper here. At its deadline the expiry task asks the processor before failing it: the approval
// is recorded as the completion would have been (its journals, its event), and a payment the
// shopper never completed still fails as abandoned; a processor that gives no clear answer leaves
// the payment waiting, asked again. The sandbox's lost-answer card and bank lose the approval's
// answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireAbandonedPayments } from '../../src/app/apm/expire.ts';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { scriptedProcessor } from '../support/lifecycle.ts';
import { returnedOutcome, shopper, type Shopper } from '../support/shopper.ts';

let gw: TestGateway;
let shop: SignedClient;
let manual: SignedClient;
let browser: Shopper;
const clock = new FakeClock(new Date());
const CHALLENGE_CARD = '4000000000003220';
const LOST_ANSWER_CARD = '4000000000003238';
const LOST_ANSWER_BANK = 'SBX008';

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant({ name: 'Kite & Co' });
  manual = await gw.merchant({ captureMode: 'manual' });
  browser = shopper(gw.gateway.server.app);
});
afterAll(() => gw?.close());

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);
const paymentOf = async (id: string) => (await rows('SELECT status, result_code, threeds_result, captured_amount::int AS captured FROM payments WHERE id = $1', [id]))[0];
const eventsOf = async (id: string) => (await rows('SELECT type, payload FROM events WHERE payment_id = $1 ORDER BY created_at', [id])).map((e) => [e.type, e.payload.order_status]);
const journalsOf = async (id: string) => (await rows('SELECT DISTINCT kind FROM ledger_entries WHERE payment_id = $1 ORDER BY kind', [id])).map((e) => e.kind);

/** The clock past the deadline, and the expiry task run as a worker runs it. */
async function pastDeadline(ms: number) {
  clock.advance(ms);
  await expireAbandonedPayments(gw.gateway.deps);
}

async function challenged(card: string) {
  const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card, return_url: 'https://shop.example/3ds-return', notify_url: 'https://shop.example/notify' }));
  expect(answer.body).toMatchObject({ order_status: '2', result_info: '1001:3-D Secure authentication required' });
  return answer.body as Record<string, string>;
}

async function atBank(client: SignedClient) {
  const answer = await client.post('/v1/authorise', {
    ...client.ids,
    payment_method: 'sandbox_bank',
    bank_code: LOST_ANSWER_BANK,
    order_no: orderNo('APM'),
    currency: 'EUR',
    amount: '18.00',
    return_url: 'https://shop.example/apm-return',
    notify_url: 'https://shop.example/notify',
  });
  expect(answer.body).toMatchObject({ order_status: '2', result_info: '1002:Redirect the shopper to issuer_url' });
  return answer.body as Record<string, string>;
}

describe('a completion whose answer was lost', () => {
  it('3-D Secure: approved and captured by the processor, it ends captured at the challenge’s deadline, not abandoned; a challenge never answered still fails', async () => {
    const lost = await challenged(LOST_ANSWER_CARD);
    const never = await challenged(CHALLENGE_CARD);
    const answered = await challenged(CHALLENGE_CARD);
    await browser.answer(answered.redirect_url!, { code: '1234', action: 'verify' });
    const done = await browser.answer(lost.redirect_url!, { code: '1234', action: 'verify' });
    // The gateway heard nothing: the shopper is told the payment is pending, never that it failed.
    expect(returnedOutcome(done.location!, shop.secret).fields).toMatchObject({ order_status: '2' });
    expect((await paymentOf(lost.transaction_id!))?.status).toBe('requires_authentication');

    await pastDeadline(31 * 60_000);
    expect(await paymentOf(lost.transaction_id!)).toEqual({ status: 'captured', result_code: '0000', threeds_result: 'challenge: authenticated (eci 05)', captured: 1000 });
    expect(await eventsOf(lost.transaction_id!)).toEqual([['payment.captured', '1']]);
    // Booked as the challenge answered in time books it.
    expect(await journalsOf(lost.transaction_id!)).toEqual(await journalsOf(answered.transaction_id!));
    expect(await journalsOf(lost.transaction_id!)).toContain('capture');

    expect(await paymentOf(never.transaction_id!)).toMatchObject({ status: 'failed', result_code: '2009' });
    expect(await eventsOf(never.transaction_id!)).toEqual([['payment.failed', '0']]);
    expect(await journalsOf(never.transaction_id!)).toEqual([]);
  });

  it('APM: approved at the bank, it ends authorised on a manual-capture account at the payment’s deadline; a payment never answered still fails', async () => {
    const lost = await atBank(manual);
    const never = await atBank(manual);
    const back = await browser.answer(lost.issuer_url!, { action: 'approve' });
    const approvedAt = clock.now();
    expect(returnedOutcome(back.location!, manual.secret).fields).toMatchObject({ order_status: '2' });
    expect((await paymentOf(lost.transaction_id!))?.status).toBe('requires_redirect');

    await pastDeadline(61 * 60_000);
    expect(await paymentOf(lost.transaction_id!)).toMatchObject({ status: 'authorised', result_code: '0000', captured: 0 });
    // Its hold began when the bank approved it, as the processor's answer says, not an hour later
    // when the gateway learned of it: the connector's expiry days count from then.
    const [held] = await rows('SELECT held_since FROM payments WHERE id = $1', [lost.transaction_id]);
    expect(new Date(held!.held_since).toISOString()).toBe(approvedAt.toISOString());
    expect(await eventsOf(lost.transaction_id!)).toEqual([['payment.authorised', '1']]);
    expect(await journalsOf(lost.transaction_id!)).toEqual(['authorisation']);

    expect(await paymentOf(never.transaction_id!)).toMatchObject({ status: 'failed', result_code: '2009' });
    expect(await eventsOf(never.transaction_id!)).toEqual([['payment.failed', '0']]);
  });
});

describe('a completion marked as sent that never reached the processor', () => {
  it('fails as abandoned at its deadline: the processor says the shopper never finished, and the payment does not wait for ever', async () => {
    const challenge = await challenged(CHALLENGE_CARD);
    const apm = await atBank(manual);
    // The gateway marks a completion before sending it; one killed in between leaves the mark and
    // a processor that never heard of the completion.
    await rows('UPDATE payments SET completion_sent_at = $2 WHERE id = ANY ($1)', [[challenge.transaction_id, apm.transaction_id], clock.now()]);

    await pastDeadline(61 * 60_000);
    for (const payment of [challenge, apm]) {
      expect(await paymentOf(payment.transaction_id!)).toMatchObject({ status: 'failed', result_code: '2009' });
      expect(await eventsOf(payment.transaction_id!)).toEqual([['payment.failed', '0']]);
    }
  });
});

describe('a processor that does not say what became of a sent completion', () => {
  const processor = scriptedProcessor();
  const ownClock = new FakeClock(new Date());
  let own: TestGateway;
  let ownShop: SignedClient;
  beforeAll(async () => {
    own = await startTestGateway({ clock: ownClock, connectors: processor.connectors });
    ownShop = await own.merchant();
  });
  afterAll(() => own?.close());

  it('leaves the payment waiting, never failed, and records the approval once the processor says it', async () => {
    const answer = await ownShop.post('/v1/authorise', cardPayment(ownShop.ids, { card: LOST_ANSWER_CARD }));
    const id = answer.body.transaction_id as string;
    await shopper(own.gateway.server.app).answer(answer.body.redirect_url, { code: '1234', action: 'verify' });
    processor.script.paymentStatus = async () => ({ ok: false, error: { kind: 'timeout', message: 'no answer' } });
    ownClock.advance(31 * 60_000);
    await expireAbandonedPayments(own.gateway.deps);
    const status = async () => (await own.database.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [id]))[0]?.status;
    expect(await status()).toBe('requires_authentication');
    expect(processor.calls.paymentStatus).toBe(1);

    delete processor.script.paymentStatus;
    ownClock.advance(2 * 60_000); // past the lease
    await expireAbandonedPayments(own.gateway.deps);
    expect(await status()).toBe('captured');
  });
});
