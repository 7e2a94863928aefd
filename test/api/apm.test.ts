// APM payments through /v1/authorise (docs/apm.md): the answer with issuer_url, each
// sandbox method and the fields it needs, the issuer page's approve / decline / abandon, the
// shopper's return, the merchant's events, expiry of unpaid payments, idempotency and refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireAbandonedPayments } from '../../src/app/apm/expire.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { scriptedProcessor } from '../support/lifecycle.ts';
import { returnedOutcome, shopper, type Shopper } from '../support/shopper.ts';

let gw: TestGateway;
let shop: SignedClient;
let browser: Shopper;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant({ name: 'Feira Livre' });
  browser = shopper(gw.gateway.server.app);
});
afterAll(() => gw?.close());

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);
const eventsOf = async (paymentId: string) => (await rows('SELECT type FROM events WHERE payment_id = $1', [paymentId])).map((e) => e.type);

function apm(ids: { merchant_id: string; account_id: string }, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...ids,
    payment_method: 'sandbox_redirect',
    order_no: orderNo('APM'),
    currency: 'USD',
    amount: '30.00',
    return_url: 'https://shop.example/apm-return',
    notify_url: 'https://shop.example/notify',
    ...overrides,
  };
}

const VOUCHER_PERSON = { document_type: 'CPF', document_number: '529.982.247-25', email: 'ana@example.com', social_name: 'Ana Lima' };

describe('the APM answer', () => {
  it.each(['json', 'form', 'xml'] as const)('is XML respon with issuer_url, signed (%s request)', async (format) => {
    const body = apm(shop.ids);
    const answer = await shop.post('/v1/authorise', body, { format });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(answer.signed).toBe(true);
    expect(Object.keys(answer.body)).toEqual([
      'merchant_id', 'account_id', 'order_no', 'amount', 'currency', 'issuer_url', 'transaction_id', 'payment_method', 'order_status', 'result_info', 'encryption_data',
    ]);
    expect(answer.body).toMatchObject({
      merchant_id: shop.ids.merchant_id,
      account_id: shop.ids.account_id,
      order_no: body.order_no,
      amount: '30.00',
      currency: 'USD',
      payment_method: 'sandbox_redirect',
      order_status: '2',
      result_info: '1002:Redirect the shopper to issuer_url',
    });
    expect(answer.body.issuer_url).toMatch(new RegExp(`^http://gateway\\.test/sandbox/apm/${answer.body.transaction_id}/[A-Za-z0-9_-]{32}$`));
    const [row] = await rows('SELECT kind, status, payment_method, expires_at FROM payments WHERE id = $1', [answer.body.transaction_id]);
    expect(row).toMatchObject({ kind: 'apm', status: 'requires_redirect', payment_method: 'sandbox_redirect' });
    expect(new Date(row!.expires_at).getTime() - clock.now().getTime()).toBe(30 * 60_000);
  });

  it('treats payment_method "card" as a card payment', async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { payment_method: 'card' }));
    expect(answer.body).toMatchObject({ result_info: '0000:Success', card: '411111******1111' });
  });
});

describe('the issuer page', () => {
  async function started(overrides: Record<string, unknown> = {}) {
    const answer = await shop.post('/v1/authorise', apm(shop.ids, overrides));
    expect(answer.body.order_status).toBe('2');
    return answer.body as Record<string, string>;
  }

  it('shows the order and the choices', async () => {
    const payment = await started();
    const page = await browser.get(payment.issuer_url!);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<dd id="issuer-amount">$30.00</dd>');
    for (const action of ['approve', 'decline', 'abandon']) expect(page.body).toContain(`name="action" value="${action}"`);
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });

  it('approve: captured, the merchant told, the shopper back at return_url with the signed outcome', async () => {
    const payment = await started();
    const back = await browser.answer(payment.issuer_url!, { action: 'approve' });
    expect(back.status).toBe(303);
    const outcome = returnedOutcome(back.location!, shop.secret);
    expect(outcome).toMatchObject({ base: 'https://shop.example/apm-return', signed: true });
    expect(outcome.fields).toMatchObject({ transaction_id: payment.transaction_id, order_status: '1', result_info: '0000:Success', payment_method: 'sandbox_redirect' });
    const [row] = await rows('SELECT status, captured_amount::int AS captured FROM payments WHERE id = $1', [payment.transaction_id]);
    expect(row).toEqual({ status: 'captured', captured: 3000 });
    expect(await eventsOf(payment.transaction_id!)).toEqual(['payment.captured']);
    // Asked again for the same order: the stored outcome, issuer_url gone.
    const again = await shop.post('/v1/authorise', { ...(await rows('SELECT request FROM payments WHERE id = $1', [payment.transaction_id]))[0]!.request, ...shop.ids });
    expect(again.body).toMatchObject({ transaction_id: payment.transaction_id, order_status: '1', issuer_url: '' });
  });

  it.each([
    ['decline', '2001:Declined'],
    ['abandon', '2009:Shopper abandoned or let the payment expire'],
  ])('%s: failed with %s, and payment.failed', async (action, info) => {
    const payment = await started();
    const back = await browser.answer(payment.issuer_url!, { action });
    expect(returnedOutcome(back.location!, shop.secret).fields).toMatchObject({ order_status: '0', result_info: info });
    expect(await eventsOf(payment.transaction_id!)).toEqual(['payment.failed']);
    // The page is closed now: approving afterwards changes nothing.
    await browser.answer(payment.issuer_url!, { action: 'approve' });
    const [row] = await rows('SELECT status FROM payments WHERE id = $1', [payment.transaction_id]);
    expect(row?.status).toBe('failed');
    expect((await browser.get(payment.issuer_url!)).status).toBe(404);
  });

  it('records one outcome when approve and decline race', async () => {
    const payment = await started();
    const form = (await browser.form(payment.issuer_url!))!;
    await Promise.all(Array.from({ length: 10 }, (_, i) => browser.post(form.action, [...form.fields, ['action', i % 2 ? 'approve' : 'decline']])));
    expect(await eventsOf(payment.transaction_id!)).toHaveLength(1);
  });

  it('never completes a hosted-page payment or an unknown payment', async () => {
    const handOff = await shop.post('/v1/checkout', { ...shop.ids, order_no: orderNo('CO'), currency: 'USD', amount: '5.00', return_url: 'https://shop.example/r' });
    const [row] = await rows(`SELECT id FROM payments WHERE kind = 'checkout' ORDER BY created_at DESC LIMIT 1`);
    expect(handOff.status).toBe(200);
    expect((await browser.post(`/sandbox/apm/${row!.id}`, { action: 'approve' })).status).toBe(404);
    expect((await browser.get(`/sandbox/apm/${row!.id}`)).status).toBe(404);
    expect((await rows('SELECT status FROM payments WHERE id = $1', [row!.id]))[0]?.status).toBe('requires_redirect');
  });
});

describe('an APM payment risk holds for review', () => {
  it('approved on the issuer page: held for review (1003, payment.review), the shopper back with order_status=3', async () => {
    const held = await gw.merchant({ name: 'Held Goods' });
    const set = await runCommand(
      ['risk', 'set', '--merchant-id', held.ids.merchant_id, '--account-id', held.ids.account_id, '--set', 'amountLimits.USD.review=10.00', '--json'],
      gw.gateway.deps,
    );
    expect(set.exitCode).toBe(0);
    const answer = await held.post('/v1/authorise', apm(held.ids));
    expect(answer.body).toMatchObject({ order_status: '2', result_info: '1002:Redirect the shopper to issuer_url' });
    const id = answer.body.transaction_id as string;
    const back = await browser.answer(answer.body.issuer_url, { action: 'approve' });
    expect(back.status).toBe(303);
    expect(returnedOutcome(back.location!, held.secret).fields).toMatchObject({ transaction_id: id, order_status: '3' });
    const [row] = await rows('SELECT status, result_code, captured_amount::int AS captured FROM payments WHERE id = $1', [id]);
    expect(row).toEqual({ status: 'pending_review', result_code: '1003', captured: 0 });
    expect(await eventsOf(id)).toEqual(['payment.review']);
    expect((await browser.get(answer.body.issuer_url)).status).toBe(404);
  });
});

describe('two answers on the issuer page at once (two tabs)', () => {
  const processor = scriptedProcessor();
  let own: TestGateway;
  let ownShop: SignedClient;
  beforeAll(async () => {
    own = await startTestGateway({ connectors: processor.connectors });
    ownShop = await own.merchant();
  });
  afterAll(() => own?.close());

  it('reach the processor once: the shopper is never charged by an answer the gateway did not record', async () => {
    const started = await ownShop.post('/v1/authorise', apm(ownShop.ids));
    const tabs = shopper(own.gateway.server.app);
    const form = (await tabs.form(started.body.issuer_url))!;
    // The processor holds each answer until the other arrives (half a second at most): both tabs
    // answer while the first answer is still on its way.
    const sent: string[] = [];
    const waiting: (() => void)[] = [];
    processor.script.completeRedirect = async (request, next) => {
      sent.push(String(request.result.answer));
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length >= 2) for (const release of waiting.splice(0)) release();
        else setTimeout(resolve, 500);
      });
      return next();
    };
    const answers = await Promise.all(['approve', 'decline'].map((action) => tabs.post(form.action, [...form.fields, ['action', action]])));
    delete processor.script.completeRedirect;
    expect(answers.map((answer) => answer.status)).toEqual([303, 303]);
    expect(sent).toHaveLength(1);
    const [row] = await own.database.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [started.body.transaction_id]);
    expect(row?.status).toBe(sent[0] === 'approve' ? 'captured' : 'failed');
  });
});

describe('the sandbox methods and what each needs', () => {
  it('sandbox_bank needs a bank_code from its list; the offline bank declines at once', async () => {
    const missing = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_bank' }));
    const unknown = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_bank', bank_code: 'XYZ1' }));
    const offline = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_bank', bank_code: 'SBX009' }));
    const fine = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_bank', bank_code: 'SBX002' }));
    expect([missing.status, missing.body.result_info]).toEqual([400, '4001:bank_code is required for sandbox_bank']);
    expect([unknown.status, unknown.body.result_info]).toEqual([400, '4002:bank_code is invalid: expected one of SBX001, SBX002, SBX008, SBX009']);
    expect(offline.body).toMatchObject({ order_status: '0', result_info: '2008:Declined: processor error', issuer_url: '' });
    expect((await browser.get(fine.body.issuer_url)).body).toContain('Approve the payment at Test Savings Bank');
  });

  it('sandbox_voucher needs the person’s document and email, a currency and country it serves', async () => {
    const base = { payment_method: 'sandbox_voucher', currency: 'BRL', billing_country: 'BR' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ person: { document_type: 'CPF', email: 'a@example.com' } }, 400, '4001:person.document_number is required for sandbox_voucher'],
      [{ person: { ...VOUCHER_PERSON, document_number: '529.982.247-24' } }, 400, '4002:person.document_number is invalid: expected a valid CPF number'],
      [{ person: { ...VOUCHER_PERSON, document_type: 'XYZ' } }, 400, '4002:person.document_type is invalid: expected one of CPF, CNPJ, CURP, RFC, DNI, CC, CE, NIT, RUT, PASSPORT'],
      [{ person: { ...VOUCHER_PERSON, email: 'not-an-email' } }, 400, '4002:person.email is invalid: expected an email address'],
      [{ person: VOUCHER_PERSON, currency: 'EUR' }, 400, '4018:sandbox_voucher does not take EUR: it takes BRL, MXN, USD'],
      [{ person: VOUCHER_PERSON, billing_country: 'DE' }, 400, '4018:sandbox_voucher does not serve DE: it serves BR, MX, US'],
      [{ person: VOUCHER_PERSON, billing_country: undefined }, 400, '4001:billing_country is required for sandbox_voucher'],
      [{ person: { ...VOUCHER_PERSON, documents: { file_type: 'exe' } } }, 400, '4002:person.documents.file_type is invalid: expected pdf, jpg or png'],
    ];
    for (const [overrides, status, info] of cases) {
      const body = apm(shop.ids, { ...base, ...overrides });
      const answer = await shop.post('/v1/authorise', body);
      expect([answer.status, answer.body.result_info], JSON.stringify(overrides)).toEqual([status, info]);
      expect(await rows('SELECT 1 FROM payments WHERE order_no = $1', [body.order_no])).toHaveLength(0);
    }
    const cnpj = await shop.post('/v1/authorise', apm(shop.ids, { ...base, person: { ...VOUCHER_PERSON, document_type: 'CNPJ', document_number: '11.222.333/0001-81' } }));
    expect(cnpj.body.order_status).toBe('2');
  });

  it('sandbox_voucher shows the voucher; "pay later" returns the shopper with the payment still pending', async () => {
    const answer = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_voucher', currency: 'BRL', billing_country: 'BR', person: VOUCHER_PERSON }), { format: 'xml' });
    const page = await browser.get(answer.body.issuer_url);
    expect(page.body).toContain('Your payment voucher');
    expect(page.body).toContain('<dd id="issuer-amount">R$30.00</dd>');
    const later = await browser.answer(answer.body.issuer_url, { action: 'later' });
    expect(returnedOutcome(later.location!, shop.secret).fields).toMatchObject({ order_status: '2', result_info: '1002:Redirect the shopper to issuer_url' });
    const [row] = await rows('SELECT status, request FROM payments WHERE id = $1', [answer.body.transaction_id]);
    expect(row?.status).toBe('requires_redirect');
    expect(row?.request.person).toMatchObject({ document_type: 'CPF', email: 'ana@example.com' });
    const paid = await browser.answer(answer.body.issuer_url, { action: 'approve' });
    expect(returnedOutcome(paid.location!, shop.secret).fields.order_status).toBe('1');
  });

  it('sandbox_wallet needs shopper_email and shows it', async () => {
    const missing = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_wallet' }));
    const fine = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_wallet', shopper_email: 'Ana@Example.com' }));
    expect(missing.body.result_info).toBe('4001:shopper_email is required for sandbox_wallet');
    expect((await browser.get(fine.body.issuer_url)).body).toContain('<dt>Signed in as</dt><dd>ana@example.com</dd>');
  });
});

describe('refusals', () => {
  it.each([
    [{ payment_method: 'bogus' }, '4015:payment_method bogus is not offered: use card fields, or one of sandbox_redirect, sandbox_bank, sandbox_voucher, sandbox_wallet'],
    [{ return_url: undefined }, '4001:return_url is required'],
    [{ return_url: 'ftp://shop.example/x' }, '4002:return_url is invalid: expected an http(s) URL'],
    [{ card: '4111111111111111' }, '4002:card is invalid: expected no card with payment_method sandbox_redirect'],
    [{ amount: '0.00' }, '4003:amount is invalid: expected an amount greater than zero'],
    [{ person: { birth_date: '31-02-1990' } }, '4002:person.birth_date is invalid: expected a real past date, DD-MM-YYYY'],
    [{ person: { address_country: 'XX' } }, '4002:person.address_country is invalid: expected an ISO 3166 two-letter country code'],
  ])('%o → %s, nothing stored', async (overrides, info) => {
    const body = apm(shop.ids, overrides);
    const answer = await shop.post('/v1/authorise', body);
    expect([answer.status, answer.body.result_info, answer.signed]).toEqual([400, info, true]);
    expect(await rows('SELECT 1 FROM payments WHERE order_no = $1', [body.order_no])).toHaveLength(0);
  });

  // decisions.md §4: an APM payment when payment_method is present and names an APM; otherwise a
  // card payment. A name that is no APM beside the card group is charged as the card it carries.
  it.each(['credit_card', 'CARD', 'visa'])('charges the card of a card payment whose payment_method %s names no APM', async (name) => {
    const body = cardPayment(shop.ids, { payment_method: name });
    const answer = await shop.post('/v1/authorise', body);
    expect([answer.status, answer.body.result_info, answer.body.order_status]).toEqual([200, '0000:Success', '1']);
    expect(answer.body.issuer_url).toBeUndefined();
    expect(await rows('SELECT status FROM payments WHERE order_no = $1', [body.order_no])).toEqual([{ status: 'captured' }]);
  });

  it('keeps order_no idempotent: same fields → same payment, ten at once → one; other fields → 4009', async () => {
    const body = apm(shop.ids);
    const answers = await Promise.all(Array.from({ length: 10 }, () => shop.post('/v1/authorise', body)));
    expect(new Set(answers.map((answer) => answer.body.transaction_id)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.body.issuer_url)).size).toBe(1);
    const other = await shop.post('/v1/authorise', { ...body, amount: '31.00' });
    expect([other.status, other.body.result_info]).toEqual([400, `4009:order_no ${body.order_no} was already used with different fields`]);
    const asCard = await shop.post('/v1/authorise', cardPayment(shop.ids, { order_no: body.order_no }));
    expect(asCard.body.result_info).toMatch(/^4009:/);
    expect(await rows('SELECT 1 FROM payments WHERE order_no = $1', [body.order_no])).toHaveLength(1);
  });

  it('keeps one merchant’s payment out of another’s reach', async () => {
    const other = await gw.merchant();
    const body = apm(shop.ids);
    const mine = await shop.post('/v1/authorise', body);
    const theirs = await other.post('/v1/authorise', { ...body, ...other.ids });
    expect(theirs.body.transaction_id).not.toBe(mine.body.transaction_id);
    expect(returnedOutcome((await browser.answer(mine.body.issuer_url, { action: 'approve' })).location!, other.secret).signed).toBe(false);
  });
});

describe('unpaid APM payments expire', () => {
  it('past a voucher’s due date, "pay later" on a page left open says the payment expired, not that it still waits', async () => {
    const voucher = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_voucher', currency: 'BRL', billing_country: 'BR', person: VOUCHER_PERSON }));
    const form = await browser.form(voucher.body.issuer_url);
    clock.advance(3 * 24 * 60 * 60_000 + 60_000);
    try {
      const back = await browser.post(form!.action, [...form!.fields, ['action', 'later']]);
      expect(back.status).toBe(303);
      expect(returnedOutcome(back.location!, shop.secret).fields).toMatchObject({ order_status: '0', result_info: '2009:Shopper abandoned or let the payment expire' });
      const [row] = await rows('SELECT status, result_code FROM payments WHERE id = $1', [voucher.body.transaction_id]);
      expect(row).toEqual({ status: 'failed', result_code: '2009' });
      expect(await eventsOf(voucher.body.transaction_id)).toEqual(['payment.failed']);
    } finally {
      clock.set(new Date());
    }
  });

  it('past its deadline, before the task has run, the issuer page charges nothing: abandoned (2009), the page closed', async () => {
    const wallet = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_wallet', shopper_email: 'late@example.com' }));
    const id = wallet.body.transaction_id as string;
    const form = await browser.form(wallet.body.issuer_url);
    expect(form).toBeDefined();
    clock.advance(16 * 60_000);
    try {
      // The page left open in a tab: its form posted after the deadline, the task not run yet.
      const back = await browser.post(form!.action, [...form!.fields, ['action', 'approve']]);
      expect(back.status).toBe(303);
      expect(returnedOutcome(back.location!, shop.secret).fields).toMatchObject({ order_status: '0', result_info: '2009:Shopper abandoned or let the payment expire' });
      const [row] = await rows('SELECT status, result_code, captured_amount::int AS captured, completion_sent_at FROM payments WHERE id = $1', [id]);
      expect(row).toMatchObject({ status: 'failed', result_code: '2009', captured: 0, completion_sent_at: null });
      expect(await eventsOf(id)).toEqual(['payment.failed']);
      expect((await browser.get(wallet.body.issuer_url)).status).toBe(404);
      // Opened (not posted) past its deadline: closed too, never the choices.
      const other = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_wallet', shopper_email: 'late@example.com' }));
      clock.advance(16 * 60_000);
      const page = await browser.get(other.body.issuer_url);
      expect(page.body).not.toContain('name="action"');
      const [late] = await rows('SELECT status, result_code FROM payments WHERE id = $1', [other.body.transaction_id]);
      expect(late).toEqual({ status: 'failed', result_code: '2009' });
      expect(await eventsOf(other.body.transaction_id)).toEqual(['payment.failed']);
    } finally {
      clock.set(new Date());
    }
  });

  it('fails each method’s unpaid payment after its deadline (2009, payment.failed), and no other', async () => {
    const redirect = await shop.post('/v1/authorise', apm(shop.ids));
    const wallet = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_wallet', shopper_email: 'w@example.com' }));
    const voucher = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_voucher', currency: 'BRL', billing_country: 'BR', person: VOUCHER_PERSON }));
    const paid = await shop.post('/v1/authorise', apm(shop.ids, { payment_method: 'sandbox_wallet', shopper_email: 'w@example.com' }));
    await browser.answer(paid.body.issuer_url, { action: 'approve' });
    const status = async () =>
      Object.fromEntries(
        (await rows('SELECT id, status FROM payments WHERE id = ANY($1)', [[redirect, wallet, voucher, paid].map((a) => a.body.transaction_id)])).map((r) => [r.id, r.status]),
      );
    const step = async (ms: number) => {
      clock.advance(ms);
      await expireAbandonedPayments(gw.gateway.deps);
    };
    try {
      await step(14 * 60_000);
      expect(Object.values(await status()).sort()).toEqual(['captured', 'requires_redirect', 'requires_redirect', 'requires_redirect']);
      await step(2 * 60_000);
      expect((await status())[wallet.body.transaction_id]).toBe('failed');
      await step(15 * 60_000);
      expect((await status())[redirect.body.transaction_id]).toBe('failed');
      expect((await status())[voucher.body.transaction_id]).toBe('requires_redirect');
      await step(3 * 24 * 60 * 60_000);
      expect(await status()).toEqual({
        [redirect.body.transaction_id]: 'failed',
        [wallet.body.transaction_id]: 'failed',
        [voucher.body.transaction_id]: 'failed',
        [paid.body.transaction_id]: 'captured',
      });
    } finally {
      clock.set(new Date());
    }
    const [row] = await rows('SELECT result_code FROM payments WHERE id = $1', [voucher.body.transaction_id]);
    expect(row?.result_code).toBe('2009');
    expect(await eventsOf(voucher.body.transaction_id)).toEqual(['payment.failed']);
    expect(await eventsOf(paid.body.transaction_id)).toEqual(['payment.captured']);
  });
});
