// 3-D Secure through the HTTP interface: frictionless with open3d, the sandbox ACS challenge for
// the challenge card (direct and on the hosted page), an external MPI's result, the challenge
// window size, abandonment, and the shopper's way back to the merchant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireAbandonedPayments } from '../../src/app/apm/expire.ts';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { allowQueriesFrom } from '../support/lifecycle.ts';
import { refreshTarget, returnedOutcome, shopper, type Shopper } from '../support/shopper.ts';

let gw: TestGateway;
let shop: SignedClient;
let browser: Shopper;
const clock = new FakeClock(new Date());
const CHALLENGE_CARD = '4000000000003220';

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant({ name: 'Kite & Co' });
  browser = shopper(gw.gateway.server.app);
});
afterAll(() => gw?.close());

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);
const eventsOf = async (paymentId: string) => (await rows('SELECT type FROM events WHERE payment_id = $1 ORDER BY created_at', [paymentId])).map((e) => e.type);

async function challenged(overrides: Record<string, unknown> = {}) {
  const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: CHALLENGE_CARD, return_url: 'https://shop.example/3ds-return', ...overrides }));
  expect(answer.body).toMatchObject({ order_status: '2', result_info: '1001:3-D Secure authentication required' });
  return answer.body as Record<string, string>;
}

describe('frictionless and external authentication', () => {
  it('authenticates a card that needs no challenge when open3d=1, and says so in threeds_result', async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { open3d: '1' }));
    expect(answer.body).toMatchObject({ order_status: '1', result_info: '0000:Success', threeds_result: 'frictionless: authenticated', redirect_url: '' });
  });

  it('takes an external MPI result (mpi_info with cavv) and skips the challenge', async () => {
    const answer = await shop.post(
      '/v1/authorise',
      cardPayment(shop.ids, {
        card: CHALLENGE_CARD,
        additional_information: [{ mpi_info: { eci: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', xid: 'x-1', dsTransID: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } }],
      }),
    );
    expect(answer.body).toMatchObject({ order_status: '1', result_info: '0000:Success', threeds_result: 'external: eci 05', redirect_url: '' });
  });
});

describe('the sandbox ACS challenge of a direct payment', () => {
  it('presents the challenge sized by challenge_window_size, with the documented codes', async () => {
    const payment = await challenged({ challenge_window_size: '02' });
    const page = await browser.get(payment.redirect_url!);
    expect(page.status).toBe(200);
    expect(page.body).toContain('class="panel challenge size-02" data-window="02"');
    expect(page.body).toMatch(/<details class="sandbox-hint"><summary>Sandbox<\/summary>\n<p lang="en">Code 1234 passes, 0000 fails\. Challenge window 02 \(390 × 400\)\.<\/p>/);
    expect(page.body).toContain('<dd id="acs-amount">$10.00</dd>');
    expect(String(page.headers['content-security-policy'])).toContain('form-action http://gateway.test https://shop.example;');
    const full = await browser.get((await challenged()).redirect_url!);
    expect(full.body).toContain('class="panel challenge size-05"');
  });

  it('passes with 1234: captured, threeds_result filled, the merchant told, the shopper sent to return_url signed', async () => {
    const payment = await challenged();
    const done = await browser.answer(payment.redirect_url!, { code: '1234', action: 'verify' });
    expect(done.status).toBe(303);
    const outcome = returnedOutcome(done.location!, shop.secret);
    expect(outcome).toMatchObject({ base: 'https://shop.example/3ds-return', signed: true });
    expect(outcome.fields).toMatchObject({
      transaction_id: payment.transaction_id,
      order_status: '1',
      result_info: '0000:Success',
      threeds_result: 'challenge: authenticated (eci 05)',
      card: '400000******3220',
    });
    const [row] = await rows('SELECT status, threeds_result, action_url FROM payments WHERE id = $1', [payment.transaction_id]);
    expect(row).toEqual({ status: 'captured', threeds_result: 'challenge: authenticated (eci 05)', action_url: null });
    expect(await eventsOf(payment.transaction_id!)).toEqual(['payment.captured']);
  });

  it('fails with 0000 (2007), and with the cardholder’s cancel', async () => {
    for (const answer of [{ code: '0000', action: 'verify' }, { code: '', action: 'cancel' }]) {
      const payment = await challenged();
      const done = await browser.answer(payment.redirect_url!, answer);
      expect(returnedOutcome(done.location!, shop.secret).fields).toMatchObject({ order_status: '0', result_info: '2007:3-D Secure authentication failed' });
      expect(await eventsOf(payment.transaction_id!)).toEqual(['payment.failed']);
    }
  });

  // A payment that begins a subscription keeps the card when the challenge is required, and its
  // answer names the token. Until the challenge approves the payment, and for good once it fails,
  // that token is no card the merchant may charge: it would charge a card whose holder never
  // passed (or failed) 3-D Secure, and a payment that failed keeps no card (decisions.md §8).
  it('charges a subscription payment’s token only once its challenge approved the payment', async () => {
    const subscription = { contract_name: 'Gold', contract_amount: '10.00', interval: 'month' };
    const byToken = (token: string) => ({ ...shop.ids, order_no: orderNo(), currency: 'USD', amount: '5.00', token_id: token });
    const stored = async (no: unknown) => (await rows('SELECT 1 FROM payments WHERE order_no = $1', [no])).length;

    const failing = await challenged({ subscription });
    expect(failing.token_id).toMatch(/^TK/);
    const early = byToken(failing.token_id!);
    const whilePending = await shop.post('/v1/authorise', early);
    expect([whilePending.status, whilePending.body.result_info]).toEqual([400, '4008:token_id is not usable: the payment that stored the card was not approved']);
    expect(await stored(early.order_no)).toBe(0);
    await browser.answer(failing.redirect_url!, { code: '0000', action: 'verify' });
    const late = byToken(failing.token_id!);
    const afterFailure = await shop.post('/v1/authorise', late);
    // The failure took the card out of the vault: the token is unknown from then on.
    expect([afterFailure.status, afterFailure.body.result_info]).toEqual([400, '4008:token_id is not known for this account']);
    expect(await stored(late.order_no)).toBe(0);

    const passing = await challenged({ subscription });
    await browser.answer(passing.redirect_url!, { code: '1234', action: 'verify' });
    const charged = await shop.post('/v1/authorise', byToken(passing.token_id!));
    // The challenge card is challenged again when the shopper pays by its token.
    expect([charged.status, charged.body.result_info, charged.body.token_id]).toEqual([200, '1001:3-D Secure authentication required', passing.token_id]);
  });

  it('asks again for a code that is neither documented one, and changes nothing', async () => {
    const payment = await challenged();
    const wrong = await browser.answer(payment.redirect_url!, { code: '9999', action: 'verify' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('That code is not right. Try again.');
    const [row] = await rows('SELECT status FROM payments WHERE id = $1', [payment.transaction_id]);
    expect(row?.status).toBe('requires_authentication');
  });

  it('holds a manual-capture account’s payment authorised', async () => {
    const manual = await gw.merchant({ captureMode: 'manual' });
    const answer = await manual.post('/v1/authorise', cardPayment(manual.ids, { card: CHALLENGE_CARD }));
    await browser.answer(answer.body.redirect_url, { code: '1234', action: 'verify' });
    const [row] = await rows('SELECT status, captured_amount::int AS captured FROM payments WHERE id = $1', [answer.body.transaction_id]);
    expect(row).toEqual({ status: 'authorised', captured: 0 });
  });

  it('shows a closing page when the payment has no return_url, and closes the challenge once done', async () => {
    const payment = await challenged({ return_url: undefined });
    const form = (await browser.form(payment.redirect_url!))!;
    const done = await browser.post(form.action, [...form.fields, ['code', '1234'], ['action', 'verify']]);
    expect(done.status).toBe(200);
    expect(done.body).toContain('Verification finished');
    // The shopper's session on the challenge ended with it: the same form again changes nothing, and the page is gone.
    const again = await browser.post(form.action, [...form.fields, ['code', '0000'], ['action', 'verify']]);
    expect([again.status, again.location]).toEqual([404, undefined]);
    expect((await browser.get(payment.redirect_url!)).status).toBe(404);
    const [row] = await rows('SELECT status FROM payments WHERE id = $1', [payment.transaction_id]);
    expect(row?.status).toBe('captured');
    expect((await browser.get('/sandbox/acs/T00000000000000000000000000')).status).toBe(404);
  });

  it('records one outcome when the challenge is answered ten times at once', async () => {
    const payment = await challenged();
    const form = (await browser.form(payment.redirect_url!))!;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => browser.post(form.action, [...form.fields, ['code', i % 2 === 0 ? '1234' : '0000'], ['action', 'verify']])),
    );
    expect(answers.every((answer) => answer.status === 303 || answer.status === 404)).toBe(true);
    const events = await eventsOf(payment.transaction_id!);
    expect(events).toHaveLength(1);
    expect(await rows(`SELECT 1 FROM ledger_entries WHERE payment_id = $1 AND kind = 'capture'`, [payment.transaction_id])).toHaveLength(events[0] === 'payment.captured' ? 2 : 0);
  });

  it('fails an unfinished challenge as abandoned after 30 minutes', async () => {
    const payment = await challenged();
    clock.advance(31 * 60_000);
    try {
      expect(await expireAbandonedPayments(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
    } finally {
      clock.advance(-31 * 60_000);
    }
    const [row] = await rows('SELECT status, result_code FROM payments WHERE id = $1', [payment.transaction_id]);
    expect(row).toEqual({ status: 'failed', result_code: '2009' });
    expect(await eventsOf(payment.transaction_id!)).toEqual(['payment.failed']);
    // The shopper's session on the challenge ended with it: the page is gone, and hands back nothing.
    const late = await browser.answer(payment.redirect_url!, { code: '1234', action: 'verify' });
    expect([late.status, late.location]).toEqual([404, undefined]);
  });
});

describe('a subscription’s card kept for its challenge', () => {
  it('leaves the vault when the challenge fails: no token_id in the return or the notification, and none to charge', async () => {
    const subscription = { contract_name: 'Gold plan', contract_amount: '9.90', interval: 'month' };
    const answer = await challenged({ subscription });
    // Kept while the shopper authenticates (docs/subscriptions.md): its number is gone when the challenge ends.
    const token = answer.token_id!;
    expect(token).toMatch(/^TK[0-9A-Z]{26}$/);
    const done = await browser.answer(answer.redirect_url!, { code: '0000', action: 'verify' });
    const outcome = returnedOutcome(done.location!, shop.secret);
    expect(outcome.fields).toMatchObject({ order_status: '0', result_info: '2007:3-D Secure authentication failed', token_id: '', recurring_id: '' });
    const [event] = await rows('SELECT type, payload FROM events WHERE payment_id = $1', [answer.transaction_id]);
    expect([event?.type, event?.payload.token_id]).toEqual(['payment.failed', '']);
    expect(await rows('SELECT id FROM card_tokens WHERE id = $1', [token])).toEqual([]);
    const { card: _card, expiration_month: _month, expiration_year: _year, security_code: _cvc, ...order } = cardPayment(shop.ids);
    const charged = await shop.post('/v1/authorise', { ...order, token_id: token });
    expect([charged.status, charged.body.result_info]).toEqual([400, '4008:token_id is not known for this account']);
  });
});

describe('3-D Secure on the hosted page', () => {
  async function hostedChallenge(extra: Record<string, unknown> = {}) {
    const body = { ...shop.ids, order_no: orderNo('CO'), currency: 'EUR', amount: '40.00', return_url: 'https://shop.example/return', challenge_window_size: '03', ...extra };
    const handOff = await shop.post('/v1/checkout', body);
    const pageUrl = (await browser.handOff(handOff.raw)).location!;
    const paid = await browser.post(`${pageUrl}/pay`, { holder_name: 'Ana Lima', card_number: CHALLENGE_CARD, expiry: '12/30', security_code: '123' });
    expect(paid.location).toBe(pageUrl);
    // A page that goes on by itself, not a 303: a redirect ending the card form's submission would
    // meet the card page's form-action, which a real issuer's origin is not in (test/e2e/issuer-origin.test.ts).
    const toAcs = await browser.get(pageUrl);
    expect(toAcs.status).toBe(200);
    const acsUrl = refreshTarget(toAcs)!;
    expect(acsUrl).toMatch(/^http:\/\/gateway\.test\/sandbox\/acs\/T[0-9A-Z]{26}\/[A-Za-z0-9_-]{32}$/);
    expect(toAcs.body).toContain(`<a class="button" id="to-issuer" href="${acsUrl}">Continue to your bank</a>`);
    expect(toAcs.body).not.toContain('<script');
    expect(toAcs.body).not.toContain('<form');
    expect(String(toAcs.headers['content-security-policy'])).toContain("script-src 'none';");
    expect(String(toAcs.headers['content-security-policy'])).toContain('form-action http://gateway.test;');
    return { body, pageUrl, acsUrl };
  }

  it('sends the shopper through the challenge and on to return_url when it passes', async () => {
    const { body, pageUrl, acsUrl } = await hostedChallenge();
    expect((await browser.get(acsUrl)).body).toContain('size-03');
    const passed = await browser.answer(acsUrl, { code: '1234', action: 'verify' });
    expect(passed.location).toBe(pageUrl);
    const back = await browser.get(pageUrl);
    const outcome = returnedOutcome(back.location!, shop.secret);
    expect(outcome.signed).toBe(true);
    expect(outcome.fields).toMatchObject({ order_no: body.order_no, order_status: '1', threeds_result: 'challenge: authenticated (eci 05)' });
    // A later visitor of the challenge URL learns nothing of the hosted page's URL.
    const later = await browser.get(acsUrl);
    expect([later.status, later.location, later.body.includes(pageUrl)]).toEqual([404, undefined, false]);
  });

  it('brings the shopper back to the page to try again when it fails, and tells the merchant nothing yet', async () => {
    const { body, pageUrl, acsUrl } = await hostedChallenge();
    await browser.answer(acsUrl, { code: '0000', action: 'verify' });
    const page = await browser.get(pageUrl);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Your bank could not verify the card (3-D Secure). Try again or use another card.');
    const [row] = await rows('SELECT id, status FROM payments WHERE order_no = $1', [body.order_no]);
    expect(row?.status).toBe('requires_redirect');
    expect(await eventsOf(row!.id)).toEqual([]);
    // The next try may be challenged too, at once: the first challenge's answer is not one in flight.
    await browser.post(`${pageUrl}/pay`, { holder_name: 'Ana Lima', card_number: CHALLENGE_CARD, expiry: '12/30', security_code: '123' });
    const second = refreshTarget(await browser.get(pageUrl))!;
    expect(second).not.toBe(acsUrl);
    expect((await browser.answer(second, { code: '1234', action: 'verify' })).location).toBe(pageUrl);
    expect(await eventsOf(row!.id)).toEqual(['payment.captured']);
  });

  it('keeps only the card that paid for a subscription: the one kept for a failed challenge leaves the vault', async () => {
    const subscription = { contract_name: 'Gold plan', contract_amount: '9.90', interval: 'month' };
    const { body, pageUrl, acsUrl } = await hostedChallenge({ subscription });
    const [kept] = await rows('SELECT token_id FROM payments WHERE order_no = $1', [body.order_no]);
    expect(kept?.token_id).toMatch(/^TK/);
    await browser.answer(acsUrl, { code: '0000', action: 'verify' });
    await browser.post(`${pageUrl}/pay`, { holder_name: 'Ana Lima', card_number: '4111111111111111', expiry: '12/30', security_code: '123' });
    const outcome = returnedOutcome((await browser.get(pageUrl)).location!, shop.secret);
    expect(outcome.fields).toMatchObject({ order_status: '1', card: '411111******1111', token_id: expect.stringMatching(/^TK/) });
    expect(outcome.fields.token_id).not.toBe(kept!.token_id);
    expect(await rows('SELECT last4 FROM card_tokens WHERE id = ANY($1)', [[kept!.token_id, outcome.fields.token_id]])).toEqual([{ last4: '1111' }]);
  });

  it('reports no 3-D Secure for a card paid without one after a failed challenge: the return, the notification and the query', async () => {
    const { body, pageUrl, acsUrl } = await hostedChallenge();
    await browser.answer(acsUrl, { code: '0000', action: 'verify' });
    // The next try is a card the issuer lets through without 3-D Secure (open3d not asked).
    const paid = await browser.post(`${pageUrl}/pay`, { holder_name: 'Ana Lima', card_number: '4111111111111111', expiry: '12/30', security_code: '123' });
    expect(paid.location).toBe(pageUrl);
    const outcome = returnedOutcome((await browser.get(pageUrl)).location!, shop.secret);
    expect(outcome.fields).toMatchObject({ order_no: body.order_no, order_status: '1', card: '411111******1111', threeds_result: '' });
    const [row] = await rows('SELECT id, threeds_result FROM payments WHERE order_no = $1', [body.order_no]);
    expect(row?.threeds_result).toBeNull();
    const [event] = await rows('SELECT payload FROM events WHERE payment_id = $1', [row!.id]);
    expect(event?.payload).toMatchObject({ notify_type: 'payment.captured', threeds_result: '' });
    await allowQueriesFrom(gw, [shop]);
    const queried = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: body.order_no }, { format: 'form' });
    expect(queried.body.orders_list[0]).toMatchObject({ order_no: body.order_no, is3ds: '0' });
  });
});
