// Subscriptions and payouts in the portal over HTTP: lists, a subscription's charges and a
// payout's detail, cancelling each through the operators' use cases (seen in their rows and the
// balance), roles refused, another merchant's ids not found, and a disabled account's cancels
// refused as the API refuses the account (4410).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { balanceOf, payoutBody, topUp } from '../support/payouts.ts';
import { createMember, signIn, type PortalClient } from '../support/portal.ts';
import { chargesOf, eventsOf, heldSubscription, runBilling, subscribe, subscribing, subscriptionOf } from '../support/subscriptions.ts';

let gw: TestGateway;
let shop: SignedClient;
let other: SignedClient;
let admin: PortalClient;
let operator: PortalClient;
let viewer: PortalClient;
let wall: FakeClock;
const business = new FakeClock('2026-11-22T10:15:00Z');

beforeAll(async () => {
  wall = new FakeClock(new Date());
  gw = await startTestGateway({ clock: business, wallClock: wall });
  shop = await gw.merchant();
  other = await gw.merchant();
  for (const client of [shop, other]) await topUp(gw, client, 'USD', '1000.00');
  admin = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'admin'), { clock: wall });
  operator = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'operator'), { clock: wall });
  viewer = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'viewer'), { clock: wall });
}, 120_000);
afterAll(() => gw?.close());
const mainOf = (page: string) => /<main[^>]*>([\s\S]*?)<\/main>/.exec(page)?.[1]?.replace(/\s+/g, ' ').trim() ?? page.slice(0, 300);
// A test that moves business time puts it back: payout dates are judged on it.
afterEach(() => business.set('2026-11-22T10:15:00Z'));

describe('portal subscriptions', () => {
  it('lists them, shows one with its charges, and an operator cancels it', async () => {
    const { recurringId, transactionId } = await subscribe(shop, subscribing(shop, { contract_name: '<b>Gold</b>' }));
    const list = await viewer.get('/portal/subscriptions');
    expect(list.body).toContain(recurringId);
    expect(list.body).toContain('&lt;b&gt;Gold&lt;/b&gt;');
    const path = `/portal/subscriptions/${shop.ids.account_id}/${recurringId}`;
    const page = await operator.get(path);
    expect(page.status).toBe(200);
    expect(page.body).toContain(transactionId);
    expect((await viewer.post(`${path}/cancel`)).status).toBe(403);
    const done = await operator.post(`${path}/cancel`);
    expect(done.location).toBe(`${path}?done=cancel`);
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).status).toBe('Inactived');
    // A repeat is answered like /v1/cancelsubscription's repeat: already cancelled, nothing changes.
    await operator.get(path);
    expect((await operator.post(`${path}/cancel`)).status).toBe(303);
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).status).toBe('Inactived');
  });

  it('offers the cancel of an Unpaid subscription too, as /v1/cancelsubscription takes it, and an operator ends it for good', async () => {
    business.set('2026-11-22T10:15:00Z');
    // The dunning card: every recurring charge declined, and after the last retry the subscription is Unpaid.
    const { recurringId } = await subscribe(shop, subscribing(shop, {}, { card: '4000000000000341' }));
    business.set('2027-01-05T00:00:00Z');
    await runBilling(gw.gateway.deps);
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).status).toBe('Unpaid');
    const path = `/portal/subscriptions/${shop.ids.account_id}/${recurringId}`;
    const page = await operator.get(path);
    expect(page.body).toContain(`action="${path}/cancel"`);
    expect((await viewer.get(path)).body).not.toContain(`action="${path}/cancel"`);
    expect((await operator.post(`${path}/cancel`)).location).toBe(`${path}?done=cancel`);
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).status).toBe('Inactived');
    expect((await operator.get(path)).body).not.toContain(`action="${path}/cancel"`);
  });

  it('states the promotion: the payment’s amount for the first charges, then contract_amount', async () => {
    const { recurringId } = await subscribe(shop, subscribing(shop, { contract_amount: '9.90', promotion_cycle: '3' }, { amount: '4.90' }));
    const page = await viewer.get(`/portal/subscriptions/${shop.ids.account_id}/${recurringId}`);
    expect(page.body).toContain('<dt>Amount</dt><dd>4.90 USD for the first 3 charges, then 9.90 USD every 1 month</dd>');
    const plain = await subscribe(shop, subscribing(shop, { contract_amount: '9.90' }, { amount: '4.90' }));
    expect((await viewer.get(`/portal/subscriptions/${shop.ids.account_id}/${plain.recurringId}`)).body).toContain('<dt>Amount</dt><dd>9.90 USD every 1 month</dd>');
    const same = await subscribe(shop, subscribing(shop, { contract_amount: '9.90', promotion_cycle: '3' }, { amount: '9.90' }));
    expect((await viewer.get(`/portal/subscriptions/${shop.ids.account_id}/${same.recurringId}`)).body).toContain('<dt>Amount</dt><dd>9.90 USD every 1 month</dd>');
  });

  it('shows as the next charge, while a charge is held for review, the due time of the cycle it collects, as recurring_deduction_time says', async () => {
    business.set('2026-11-22T10:15:00Z');
    const recurringId = await heldSubscription(shop);
    business.set('2026-12-22T10:15:00Z');
    await runBilling(gw.gateway.deps);
    expect((await chargesOf(gw.gateway.deps, recurringId)).map((charge) => charge.status)).toEqual(['pending']);
    await gw.database.query('INSERT INTO account_ips (account_id, cidr) VALUES ($1, $2)', [shop.ids.account_id, '127.0.0.1/32']);
    const first = await shop.post('/v1/retrievalTrans', { ...shop.ids, transaction_id: (await subscriptionOf(gw.gateway.deps, recurringId)).first_payment_id }, { format: 'form' });
    expect(first.body.orders_list[0].recurring_deduction_time).toBe('2026-12-22 10:15:00');
    const page = await viewer.get(`/portal/subscriptions/${shop.ids.account_id}/${recurringId}`);
    expect(page.body).toContain('<dt>Next charge</dt><dd>2026-12-22T10:15:00.000Z</dd>');
    const shown = await runCommand(['subscriptions', 'show', '--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id, '--recurring-id', recurringId, '--json'], gw.gateway.deps);
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'Active', next_charge_at: '2026-12-22T10:15:00.000Z' });
  });

  it('pages an account’s subscriptions, 50 a page, newest first, so that none is out of reach (the list stopped at 200)', async () => {
    // Contracts of one charge: Completed at once, nothing for the other tests' billing rounds to charge.
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(Array.from({ length: 10 }, () => subscribe(shop, subscribing(shop, { billing_cycle: '1' }))));
    }
    const all = (await gw.database.query<{ id: string }>('SELECT id FROM subscriptions WHERE account_id = $1', [shop.ids.account_id])).map((row) => row.id);
    expect(all.length).toBeGreaterThan(50);
    const seen: string[] = [];
    let path = '/portal/subscriptions';
    for (let pages = 0; path && pages < 20; pages++) {
      const page = await viewer.get(path);
      expect(page.status).toBe(200);
      const rows = [...page.body.matchAll(/<td><a href="\/portal\/subscriptions\/[^/"]+\/(RC[0-9A-Z]{26})">/g)].map((match) => match[1]!);
      expect(rows.length).toBeLessThanOrEqual(50);
      seen.push(...rows);
      const next = /<a rel="next" href="([^"]+)"/.exec(page.body);
      path = next ? next[1]!.replaceAll('&amp;', '&') : '';
    }
    expect(seen.toSorted()).toEqual(all.toSorted());
  });

  it('pages a subscription’s charge attempts, newest first, so that a long daily contract’s page stays short', async () => {
    business.set('2026-11-22T10:15:00Z');
    const { recurringId } = await subscribe(shop, subscribing(shop, { interval: 'day' }));
    business.set('2027-01-21T10:15:00Z');
    await runBilling(gw.gateway.deps);
    const newestFirst = (await chargesOf(gw.gateway.deps, recurringId)).toReversed();
    expect(newestFirst).toHaveLength(60);
    const path = `/portal/subscriptions/${shop.ids.account_id}/${recurringId}`;
    const pages: { cycle: number; attempt: number }[][] = [];
    let next = path;
    for (let n = 0; next && n < 10; n++) {
      const page = await viewer.get(next);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<dt>Paid cycles</dt><dd>61</dd>');
      pages.push([...page.body.matchAll(/<tr><td class="num">(\d+)<\/td><td class="num">(\d+)<\/td>/g)].map((m) => ({ cycle: Number(m[1]), attempt: Number(m[2]) })));
      if (n > 0) expect(page.body).toContain(`<a rel="prev" href="${path}?page=${n}">`);
      const link = /<a rel="next" href="([^"]+)"/.exec(page.body);
      next = link ? link[1]!.replaceAll('&amp;', '&') : '';
    }
    expect(pages.map((rows) => rows.length)).toEqual([50, 10]);
    expect(pages.flat()).toEqual(newestFirst.map(({ cycle, attempt }) => ({ cycle, attempt })));
  });

  it('10 concurrent cancels of one subscription end it once: one subscription.cancelled, each answered as its repeat', async () => {
    const { recurringId } = await subscribe(shop, subscribing(shop));
    const path = `/portal/subscriptions/${shop.ids.account_id}/${recurringId}`;
    await operator.get(path);
    const answers = await Promise.all(Array.from({ length: 10 }, () => operator.post(`${path}/cancel`)));
    for (const answer of answers) expect([answer.status, answer.location]).toEqual([303, `${path}?done=cancel`]);
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).status).toBe('Inactived');
    expect(await eventsOf(gw.gateway.deps, 'subscription.cancelled', recurringId)).toHaveLength(1);
  });

  it('another merchant’s subscription is not found, and stays active', async () => {
    const { recurringId } = await subscribe(other, subscribing(other));
    for (const account of [other.ids.account_id, shop.ids.account_id]) {
      const path = `/portal/subscriptions/${account}/${recurringId}`;
      expect((await operator.get(path)).status).toBe(404);
      await operator.get('/portal/subscriptions');
      expect((await operator.post(`${path}/cancel`)).status).toBe(404);
    }
    // The same answer as for a subscription that does not exist, under either account id (the id asked for aside).
    const nobody = 'RC00000000000000000000000000';
    for (const account of [other.ids.account_id, shop.ids.account_id]) {
      const answers = [];
      for (const id of [recurringId, nobody]) {
        const path = `/portal/subscriptions/${account}/${id}`;
        const page = await operator.get(path);
        await operator.get('/portal/subscriptions');
        const cancelled = await operator.post(`${path}/cancel`);
        answers.push([page.status, mainOf(page.body).replace(id, '…'), cancelled.status, mainOf(cancelled.body).replace(id, '…')]);
      }
      expect(answers[0], account).toEqual(answers[1]);
    }
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).status).toBe('Active');
  });
});

describe('portal payouts', () => {
  it('lists them, shows one, and an admin cancels a scheduled one: the reservation returns', async () => {
    const created = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-11-30' }));
    expect(created.body).toMatchObject({ status: 'SCHEDULED' });
    const id = created.body.transaction_id as string;
    expect((await viewer.get('/portal/payouts')).body).toContain(id);
    const path = `/portal/payouts/${shop.ids.account_id}/${id}`;
    const page = await viewer.get(path);
    expect(page.body).toContain('SCHEDULED');
    expect(page.body).not.toContain('Cancel payout');
    expect((await operator.post(`${path}/cancel`)).status).toBe(403);
    await admin.get(path);
    const done = await admin.post(`${path}/cancel`);
    expect(done.location).toBe(`${path}?done=cancel`);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '1000.00', reserved: '0.00' });
    await admin.get(path);
    const again = await admin.post(`${path}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toContain('5060');
    await expectLedgerBalanced(gw);
  });

  it('pages an account’s payouts, 50 a page, newest first, so that none is out of reach (the list stopped at 200)', async () => {
    const many = await gw.merchant();
    await topUp(gw, many, 'USD', '1000.00');
    const reader = await signIn(gw, await createMember(gw, many.ids.merchant_id, 'viewer'), { clock: wall });
    for (let batch = 0; batch < 6; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => many.post('/v1/payout', payoutBody(many, { payment_amount: '1.00', payment_date: '2026-11-30' }))));
      for (const answer of answers) expect(answer.body).toMatchObject({ status: 'SCHEDULED' });
    }
    const newestFirst = (
      await gw.database.query<{ id: string }>('SELECT id FROM payouts WHERE account_id = $1 ORDER BY created_at DESC, id DESC', [many.ids.account_id])
    ).map((row) => row.id);
    expect(newestFirst).toHaveLength(60);
    const seen: string[] = [];
    let path = '/portal/payouts';
    let pages = 0;
    for (; path && pages < 20; pages++) {
      const page = await reader.get(path);
      expect(page.status).toBe(200);
      const rows = [...page.body.matchAll(/<td><a href="\/portal\/payouts\/[^/"]+\/(PO[0-9A-Z]{26})">/g)].map((match) => match[1]!);
      expect(rows.length).toBeLessThanOrEqual(50);
      seen.push(...rows);
      if (pages > 0) expect(page.body).toContain('rel="prev"');
      const next = /<a rel="next" href="([^"]+)"/.exec(page.body);
      path = next ? next[1]!.replaceAll('&amp;', '&') : '';
    }
    expect(pages).toBe(2);
    expect(seen).toEqual(newestFirst);
  });

  it('lists what the balance pays (fee included) and what the beneficiary receives (less the fee when it pays it), as the answer says', async () => {
    const payer = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-11-30' }));
    const beneficiary = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-11-30', fee_paid_by: 'BENEFICIARY' }));
    expect([payer.body.amount_payer_pays, payer.body.amount_beneficiary_receives]).toEqual([10_150, 10_000]);
    expect([beneficiary.body.amount_payer_pays, beneficiary.body.amount_beneficiary_receives]).toEqual([10_000, 9_850]);
    const list = (await viewer.get('/portal/payouts')).body;
    const rowOf = (id: string) => list.slice(list.indexOf(`>${id}</a>`), list.indexOf('</tr>', list.indexOf(`>${id}</a>`)));
    expect(rowOf(payer.body.transaction_id)).toMatch(/101\.50 USD<\/td><td class="num">100\.00 USD/);
    expect(rowOf(beneficiary.body.transaction_id)).toMatch(/100\.00 USD<\/td><td class="num">98\.50 USD/);
    for (const created of [payer, beneficiary]) await runCommand(['payouts', 'cancel', '--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id, '--transaction-id', created.body.transaction_id], gw.gateway.deps);
  });

  it('10 concurrent cancels of one scheduled payout: one cancels it, the reservation returns once, the rest are refused 5060', async () => {
    const before = await balanceOf(gw, shop, 'USD');
    const created = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-11-30' }));
    expect(created.body).toMatchObject({ status: 'SCHEDULED' });
    const id = created.body.transaction_id as string;
    const path = `/portal/payouts/${shop.ids.account_id}/${id}`;
    await admin.get(path);
    const answers = await Promise.all(Array.from({ length: 10 }, () => admin.post(`${path}/cancel`)));
    expect(answers.filter((a) => a.status === 303).map((a) => a.location)).toEqual([`${path}?done=cancel`]);
    for (const refused of answers.filter((a) => a.status !== 303)) {
      expect(refused.status).toBe(409);
      expect(refused.body).toContain('5060');
    }
    expect(await balanceOf(gw, shop, 'USD')).toEqual(before);
    const events = await gw.database.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'payout.cancelled' AND payload->>'transaction_id' = $1", [id]);
    expect(events[0]!.n).toBe(1);
    await expectLedgerBalanced(gw);
  });

  it('another merchant’s payout is not found, and stays scheduled', async () => {
    const created = await other.post('/v1/payout', payoutBody(other, { payment_date: '2026-11-30' }));
    const id = created.body.transaction_id as string;
    for (const account of [other.ids.account_id, shop.ids.account_id]) {
      const path = `/portal/payouts/${account}/${id}`;
      expect((await admin.get(path)).status).toBe(404);
      await admin.get('/portal/payouts');
      expect((await admin.post(`${path}/cancel`)).status).toBe(404);
    }
    expect((await admin.get('/portal/payouts')).body).not.toContain(id);
    // The same answer as for a payout that does not exist, under either account id (the id asked for aside).
    const nobody = 'PO0000000000000000000000000';
    for (const account of [other.ids.account_id, shop.ids.account_id]) {
      const answers = [];
      for (const payout of [id, nobody]) {
        const path = `/portal/payouts/${account}/${payout}`;
        const page = await admin.get(path);
        await admin.get('/portal/payouts');
        const cancelled = await admin.post(`${path}/cancel`);
        answers.push([page.status, mainOf(page.body).replace(payout, '…'), cancelled.status, mainOf(cancelled.body).replace(payout, '…')]);
      }
      expect(answers[0], account).toEqual(answers[1]);
    }
    const [row] = await gw.database.query<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [id]);
    expect(row!.status).toBe('SCHEDULED');
  });
});

describe('portal cancels on a disabled account', () => {
  it('refuses a subscription’s and a payout’s cancel with 403 4410, audited, and nothing changes', async () => {
    const frozen = await gw.merchant();
    await topUp(gw, frozen, 'USD', '1000.00');
    const frozenAdmin = await signIn(gw, await createMember(gw, frozen.ids.merchant_id, 'admin'), { clock: wall });
    const { recurringId } = await subscribe(frozen, subscribing(frozen));
    const created = await frozen.post('/v1/payout', payoutBody(frozen, { payment_date: '2026-11-30' }));
    expect(created.body).toMatchObject({ status: 'SCHEDULED' });
    const payoutId = created.body.transaction_id as string;
    const reserved = await balanceOf(gw, frozen, 'USD');
    const disabled = await runCommand(['merchants', 'disable', '--merchant-id', frozen.ids.merchant_id, '--account-id', frozen.ids.account_id], gw.gateway.deps);
    expect(disabled.exitCode).toBe(0);

    for (const path of [`/portal/subscriptions/${frozen.ids.account_id}/${recurringId}`, `/portal/payouts/${frozen.ids.account_id}/${payoutId}`]) {
      await frozenAdmin.get(path);
      const answer = await frozenAdmin.post(`${path}/cancel`);
      expect(answer.status, path).toBe(403);
      expect(answer.body, path).toContain('4410:Merchant or account disabled');
    }
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).status).toBe('Active');
    const [payout] = await gw.database.query<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [payoutId]);
    expect(payout!.status).toBe('SCHEDULED');
    expect(await balanceOf(gw, frozen, 'USD')).toEqual(reserved);
    const audit = await gw.database.query<{ action: string; outcome: string; detail: unknown }>(
      "SELECT action, outcome, detail FROM portal_audit_log WHERE merchant_id = $1 AND action IN ('subscriptions.cancel', 'payouts.cancel') ORDER BY seq",
      [frozen.ids.merchant_id],
    );
    expect(audit).toEqual([
      { action: 'subscriptions.cancel', outcome: 'refused', detail: { reason: '4410:Merchant or account disabled' } },
      { action: 'payouts.cancel', outcome: 'refused', detail: { reason: '4410:Merchant or account disabled' } },
    ]);
  });

  it('marks the payouts a disable holds, on the list and the payout, and not once enabled', async () => {
    const frozen = await gw.merchant();
    await topUp(gw, frozen, 'USD', '1000.00');
    const viewer = await signIn(gw, await createMember(gw, frozen.ids.merchant_id, 'viewer'), { clock: wall });
    const created = await frozen.post('/v1/payout', payoutBody(frozen, { payment_date: '2026-11-30' }));
    const payoutId = created.body.transaction_id as string;
    const detail = `/portal/payouts/${frozen.ids.account_id}/${payoutId}`;
    const ids = ['--merchant-id', frozen.ids.merchant_id, '--account-id', frozen.ids.account_id];
    expect((await viewer.get('/portal/payouts')).body).not.toContain('held');
    expect((await runCommand(['merchants', 'disable', ...ids], gw.gateway.deps)).exitCode).toBe(0);
    const list = (await viewer.get('/portal/payouts')).body;
    expect(list).toMatch(new RegExp(`${payoutId}</a></td><td>SCHEDULED <span class="status status-held">held</span>`));
    expect((await viewer.get(detail)).body).toContain('is held: the account or its merchant is disabled');
    expect((await runCommand(['merchants', 'enable', ...ids], gw.gateway.deps)).exitCode).toBe(0);
    expect((await viewer.get('/portal/payouts')).body).not.toContain('held');
    expect((await viewer.get(detail)).body).not.toContain('is held');
  });
});
