// Staff act on a transaction from its page: refund (full, partial; above the threshold only
// after re-authenticating), cancel, capture, review, replay a notification. Each goes through the
// API's use case: the API's query answer and the ledger show it, refusals carry the API's code,
// concurrent identical actions have one effect, a viewer is refused, another merchant's
// transaction is not found, and a disabled account's transactions are refused as the API refuses them.
// An approval of a hold the gateway is about to release (its authorisation expired, or a recurring
// charge's cycle window closed) is refused as the API refuses it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import type { FakeClock, TestGateway } from '../support/gateway.ts';
import { booksOf, eventTypes, expectLedgerBalanced, orderOf, pay, type Txn } from '../support/lifecycle.ts';
import { anyFormKey, createMember, formKeyOf, signIn, startPortalShops, type PortalClient, type TestMember } from '../support/portal.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { chargesOf, heldSubscription, runBilling } from '../support/subscriptions.ts';

let gw: TestGateway;
let wall: FakeClock;
let shop: SignedClient;
let manual: SignedClient;
let other: SignedClient;
let operator: TestMember;
let staff: PortalClient;
let viewer: PortalClient;
let receiver: Receiver;

beforeAll(async () => {
  ({ gw, wall, shop, manual, other, operator, staff } = await startPortalShops());
  receiver = await startReceiver();
  viewer = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'viewer'), { clock: wall });
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

async function queried(client: SignedClient, txn: Txn): Promise<Record<string, string>> {
  const answer = await client.post('/v1/retrievalTrans', { ...client.ids, transaction_id: txn.transaction_id });
  expect(answer.status, answer.raw).toBe(200);
  return answer.body.orders_list[0];
}

/**
 * Opens the transaction's page (for a fresh CSRF token and form key) and posts the action's form;
 * a well-formed key of no page when the page has no such form (the state or the role refuses it).
 */
async function act(client: PortalClient, txn: Txn, action: string, fields: Record<string, string> = {}) {
  const path = `/portal/transactions/${txn.transaction_id}/${action}`;
  const page = await client.get(`/portal/transactions/${txn.transaction_id}`);
  return client.post(path, { form_key: formKeyOf(page.body, path) ?? anyFormKey(), ...fields });
}

/** The action's form posted as a JSON body (CSRF token and form key included), as a script could. */
async function postJson(client: PortalClient, txn: Txn, action: string, fields: Record<string, unknown>) {
  const path = `/portal/transactions/${txn.transaction_id}/${action}`;
  const page = await client.get(`/portal/transactions/${txn.transaction_id}`);
  const response = await gw.gateway.server.app.inject({
    method: 'POST',
    url: path,
    headers: { cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '), 'content-type': 'application/json' },
    payload: JSON.stringify({ _csrf: client.csrf, form_key: formKeyOf(page.body, path), ...fields }),
  });
  return { status: response.statusCode, body: response.body };
}

/** Every action a transaction's page offers, with fields that would do it; `eventId` is one of its notifications. */
const everyAction = (eventId: string) =>
  [
    ['refund', { refund_amount: '1.00', form_key: anyFormKey() }],
    ['cancel', { form_key: anyFormKey() }],
    ['capture', { amount: '1.00', form_key: anyFormKey() }],
    ['review', { decision: 'approve', form_key: anyFormKey() }],
    [`notifications/${eventId}/replay`, {}],
  ] as const;

describe('portal refund', () => {
  it('refunds part, then the rest: the API query and the ledger show it', async () => {
    const txn = await pay(shop, { amount: '40.00' });
    const first = await act(staff, txn, 'refund', { refund_amount: '15.00', refund_reason: 'damaged' });
    expect(first.status).toBe(303);
    expect(first.location).toBe(`/portal/transactions/${txn.transaction_id}?done=refund&outcome=succeeded`);
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '15.00' });
    const page = await staff.follow(first);
    expect(page.body).toContain('The refund is done.');
    expect(page.body).toContain('15.00 USD: succeeded (damaged)');
    await act(staff, txn, 'refund', { refund_amount: '25.00' });
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '40.00' });
    expect((await booksOf(gw, txn.transaction_id)).merchant_balance ?? 0).toBeGreaterThanOrEqual(0);
    const [refunds] = await gw.database.query<{ n: number; total: number }>('SELECT count(*)::int AS n, sum(amount)::int AS total FROM refunds WHERE payment_id = $1', [txn.transaction_id]);
    expect(refunds).toEqual({ n: 2, total: 4000 });
    const [audit] = await gw.database.query<{ n: number }>("SELECT count(*)::int AS n FROM portal_audit_log WHERE action = 'transactions.refund' AND target = $1 AND outcome = 'ok'", [txn.transaction_id]);
    expect(audit!.n).toBe(2);
    await expectLedgerBalanced(gw);
  });

  it('refuses more than is left with the API code, naming the field, and stores nothing', async () => {
    const txn = await pay(shop, { amount: '10.00' });
    const answer = await act(staff, txn, 'refund', { refund_amount: '10.01' });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('5010:refund_amount 10.01 exceeds');
    const bad = await act(staff, txn, 'refund', { refund_amount: '1.234' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('4003:refund_amount is invalid');
    const [row] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1', [txn.transaction_id]);
    expect(row!.n).toBe(0);
  });


  it('masks a card number typed into the refund reason, as the API does: stored, shown, answered and logged masked', async () => {
    const card = '5555 5555 5555 4444';
    const txn = await pay(shop, { amount: '10.00' });
    const answer = await act(staff, txn, 'refund', { refund_amount: '1.00', refund_reason: `typo ${card}` });
    expect(answer.status).toBe(303);
    const [row] = await gw.database.query<{ reason: string }>('SELECT reason FROM refunds WHERE payment_id = $1', [txn.transaction_id]);
    expect(row!.reason).toBe('typo 555555******4444');
    const page = await staff.follow(answer);
    expect(page.body).toContain('(typo 555555******4444)');
    expect(page.body).not.toContain(card);
    expect(gw.logs.text).not.toContain(card);
  });
  it('20 concurrent full refunds from 20 renders of the page (20 form keys) refund once', async () => {
    const txn = await pay(shop, { amount: '30.00' });
    const path = `/portal/transactions/${txn.transaction_id}/refund`;
    const keys: string[] = [];
    for (let i = 0; i < 20; i++) keys.push(formKeyOf((await staff.get(`/portal/transactions/${txn.transaction_id}`)).body, path)!);
    expect(new Set(keys).size).toBe(20);
    const answers = await Promise.all(keys.map((form_key) => staff.post(path, { refund_amount: '30.00', form_key })));
    expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
    const [row] = await gw.database.query<{ n: number }>("SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1 AND status <> 'failed'", [txn.transaction_id]);
    expect(row!.n).toBe(1);
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '30.00' });
    await expectLedgerBalanced(gw);
  });

  it('above the threshold, asks for the password again once the sign-in is no longer fresh', async () => {
    const txn = await pay(shop, { amount: '900.00' });
    wall.advance(6 * 60_000);
    const asked = await act(staff, txn, 'refund', { refund_amount: '600.00' });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('Confirm it is you');
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '0.00' });
    const form_key = /name="form_key" value="([^"]+)"/.exec(asked.body)![1]!;
    const wrong = await staff.post(`/portal/transactions/${txn.transaction_id}/refund`, { refund_amount: '600.00', form_key, _reauth_password: 'not it' });
    expect(wrong.status).toBe(403);
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '0.00' });
    const confirmed = await staff.post(`/portal/transactions/${txn.transaction_id}/refund`, { refund_amount: '600.00', form_key, _reauth_password: operator.password });
    expect(confirmed.status).toBe(303);
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '600.00' });
    // At or below the threshold no password is asked, fresh or not.
    wall.advance(6 * 60_000);
    expect((await act(staff, txn, 'refund', { refund_amount: '300.00' })).status).toBe(303);
  });
});

describe('portal cancel, capture and review', () => {
  it('cancels an authorisation: the API says cancelled and the hold is released', async () => {
    const txn = await pay(manual, { amount: '20.00' });
    const answer = await act(staff2(), txn, 'cancel');
    expect(answer.status).toBe(303);
    expect(await queried(manual, txn)).toMatchObject({ payment_status: '4000' });
    expect(await booksOf(gw, txn.transaction_id)).toEqual({});
    const again = await act(staff2(), txn, 'cancel');
    expect(again.status).toBe(409);
    expect(again.body).toContain('5007');
  });

  it('captures part of an authorisation', async () => {
    const txn = await pay(manual, { amount: '20.00' });
    expect((await act(staff2(), txn, 'capture', { amount: '12.00' })).status).toBe(303);
    expect(await queried(manual, txn)).toMatchObject({ payment_status: '3000', captured_amount: '12.00' });
    await expectLedgerBalanced(gw);
  });

  it('approves and rejects payments held for review', async () => {
    const held = await pay(shop, { card: '4000000000004954' });
    const rejected = await pay(shop, { card: '4000000000004954' });
    expect((await act(staff, held, 'review', { decision: 'approve' })).location).toContain('done=approve&outcome=succeeded');
    expect((await act(staff, rejected, 'review', { decision: 'reject' })).location).toContain('done=reject&outcome=succeeded');
    expect(await queried(shop, held)).toMatchObject({ payment_status: '3000' });
    expect(await queried(shop, rejected)).toMatchObject({ payment_status: '4000' });
    expect((await act(staff, held, 'review', { decision: 'maybe' })).status).toBe(400);
  });

  it('10 concurrent captures, cancels or approvals from 10 renders of the page (10 form keys) each take effect once; the rest are refused with the API code', async () => {
    const toCapture = await pay(manual, { amount: '20.00' });
    const toCancel = await pay(manual, { amount: '20.00' });
    const held = await pay(shop, { card: '4000000000004954', amount: '15.00' });
    const cases = [
      [staff2(), toCapture, 'capture', { amount: '20.00' }, 'payment.captured'],
      [staff2(), toCancel, 'cancel', {}, 'payment.cancelled'],
      [staff, held, 'review', { decision: 'approve' }, 'payment.captured'],
    ] as const;
    for (const [client, txn, action, fields, event] of cases) {
      const path = `/portal/transactions/${txn.transaction_id}/${action}`;
      const keys: string[] = [];
      for (let i = 0; i < 10; i++) keys.push(formKeyOf((await client.get(`/portal/transactions/${txn.transaction_id}`)).body, path)!);
      expect(new Set(keys).size, action).toBe(10);
      const answers = await Promise.all(keys.map((form_key) => client.post(path, { ...fields, form_key })));
      expect(answers.filter((a) => a.status === 303), action).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status !== 303)) {
        expect(refused.status, action).toBe(409);
        expect(refused.body, action).toMatch(/50(05|07|11|12):/);
      }
      expect((await eventTypes(gw, txn.transaction_id)).filter((type) => type === event), action).toHaveLength(1);
    }
    const operations = async (txn: Txn) =>
      gw.database.query<{ kind: string; amount: number }>('SELECT kind, amount::int AS amount FROM payment_operations WHERE payment_id = $1', [txn.transaction_id]);
    expect(await operations(toCapture)).toEqual([{ kind: 'capture', amount: 2000 }]);
    expect(await operations(toCancel)).toEqual([{ kind: 'void', amount: 2000 }]);
    expect(await operations(held)).toEqual([{ kind: 'capture', amount: 1500 }]);
    expect(await queried(manual, toCapture)).toMatchObject({ payment_status: '3000', captured_amount: '20.00' });
    expect(await queried(manual, toCancel)).toMatchObject({ payment_status: '4000' });
    await expectLedgerBalanced(gw);
  });

  it('refuses a capture amount that is not an amount, or above the authorisation, naming amount; nothing captured', async () => {
    const txn = await pay(manual, { amount: '20.00' });
    for (const [amount, code] of [['1.234', '4003'], ['ten', '4003'], ['-1.00', '4003'], ['0', '4003'], ['0.00', '4003'], ['', '4003'], ['20.01', '5006']]) {
      const answer = await act(staff2(), txn, 'capture', { amount: amount! });
      expect(answer.status, amount).toBe(400);
      expect(answer.body, amount).toMatch(new RegExp(`${code}:amount `));
    }
    // Not one text value (a list or a group in bracket notation, a JSON number): refused naming it,
    // never read as no amount, which captures the whole authorisation.
    const notText = [
      await act(staff2(), txn, 'capture', { amount: ['5.00', '6.00'] as unknown as string }),
      await act(staff2(), txn, 'capture', { amount: { value: '5.00' } as unknown as string }),
      await postJson(staff2(), txn, 'capture', { amount: 5 }),
    ];
    for (const answer of notText) {
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('amount is invalid: expected one text value');
    }
    expect(await queried(manual, txn)).toMatchObject({ payment_status: '2000', captured_amount: '0.00' });
    const [row] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_operations WHERE payment_id = $1', [txn.transaction_id]);
    expect(row!.n).toBe(0);
    const review = await act(staff, await pay(shop, { card: '4000000000004954' }), 'review', { decision: 'maybe' });
    expect(review.status).toBe(400);
    expect(review.body).toContain('decision');
  });

  it('refuses to capture or approve a hold past its authorisation expiry before the expiry round has run, with the API code (5007)', async () => {
    const authorised = await pay(manual, { amount: '20.00' });
    const held = await pay(shop, { card: '4000000000004954' });
    // Business time, as `acquiro clock advance` moves it; staff sessions keep the wall clock.
    const lead = () => gw.gateway.deps.clock.now().getTime() - Date.now();
    expect((await runCommand(['clock', 'advance', '--days', '8'], gw.gateway.deps)).exitCode).toBe(0);
    await expect.poll(lead).toBeGreaterThan(7 * 86_400_000);
    for (const [client, txn, action, fields] of [
      [staff2(), authorised, 'capture', { amount: '20.00' }],
      [staff, held, 'review', { decision: 'approve' }],
    ] as const) {
      const answer = await act(client, txn, action, fields);
      expect(answer.status, action).toBe(409);
      expect(answer.body, action).toContain('5007');
    }
    expect(await queried(manual, authorised)).toMatchObject({ payment_status: '2000', captured_amount: '0.00' });
    expect(await queried(shop, held)).toMatchObject({ payment_status: '1003', captured_amount: '0.00' });
  });

  it('refuses to approve a recurring charge after its cycle’s window closed, before billing has run, with the API code (5007); billing then releases it (3003)', async () => {
    const deps = gw.gateway.deps;
    const lead = () => deps.clock.now().getTime() - Date.now();
    const advanceOneDay = async () => {
      const before = lead();
      expect((await runCommand(['clock', 'advance', '--days', '1'], deps)).exitCode).toBe(0);
      await expect.poll(lead).toBeGreaterThan(before + 86_000_000);
    };
    // A daily plan: cycle 2 falls due a day on and is held; its window closes a day later, when
    // cycle 3 falls due, days before the hold's authorisation expiry.
    const recurringId = await heldSubscription(shop, { interval: 'day' });
    await advanceOneDay();
    await runBilling(deps);
    const [charge] = await chargesOf(deps, recurringId);
    expect(charge).toMatchObject({ cycle: 2, status: 'pending' });
    const held: Txn = { transaction_id: charge!.payment_id!, order_no: charge!.order_no, currency: 'USD', amount: '10.00' };
    await advanceOneDay();
    const answer = await act(staff, held, 'review', { decision: 'approve' });
    expect(answer.status).toBe(409);
    expect(answer.body).toContain('5007');
    expect(await queried(shop, held)).toMatchObject({ payment_status: '1003', captured_amount: '0.00' });
    // The billing task an hour later on the wall clock (the attempt's re-check is due).
    await runBilling({ ...deps, wallClock: { now: () => new Date(wall.now().getTime() + 3_600_000) } });
    expect((await chargesOf(deps, recurringId)).map((c) => [c.cycle, c.status, c.result_code])).toEqual([[2, 'failed', '3003']]);
    expect(await queried(shop, held)).toMatchObject({ payment_status: '4000', captured_amount: '0.00' });
  });
});

let manualStaff: PortalClient | undefined;
function staff2(): PortalClient {
  return manualStaff!;
}
beforeAll(async () => {
  manualStaff = await signIn(gw, await createMember(gw, manual.ids.merchant_id, 'operator'), { clock: wall });
});

describe('portal notification replay', () => {
  it('sends a transaction’s notification again and lists the attempt', async () => {
    const txn = await pay(shop, { notify_url: receiver.url });
    const [event] = await gw.database.query<{ id: string }>('SELECT id FROM events WHERE payment_id = $1', [txn.transaction_id]);
    const answer = await staff.post(`/portal/transactions/${txn.transaction_id}/notifications/${event!.id}/replay`, {});
    expect(answer.location).toContain('done=replay&outcome=succeeded');
    expect(receiver.received.some((r) => r.body.notify_id === event!.id)).toBe(true);
    const page = await staff.follow(answer);
    expect(page.body).toContain('Notification attempt 1 (replay)');
  });
});

describe('portal actions refused', () => {
  it('a viewer sees no action forms and is refused each action; nothing changes', async () => {
    const txn = await pay(shop, { amount: '10.00' });
    const page = await viewer.get(`/portal/transactions/${txn.transaction_id}`);
    expect(page.body).not.toContain('/refund"');
    const [event] = await gw.database.query<{ id: string }>('SELECT id FROM events WHERE payment_id = $1', [txn.transaction_id]);
    for (const [action, fields] of everyAction(event!.id)) {
      const answer = await viewer.post(`/portal/transactions/${txn.transaction_id}/${action}`, fields);
      expect(answer.status, action).toBe(403);
    }
    expect(await queried(shop, txn)).toMatchObject({ payment_status: '3000', refunded_amount: '0.00' });
  });

  it('another merchant’s transaction is not found on its page or by any action', async () => {
    const theirs = await pay(other, { amount: '10.00' });
    const [event] = await gw.database.query<{ id: string }>('SELECT id FROM events WHERE payment_id = $1', [theirs.transaction_id]);
    const missing = await staff.get('/portal/transactions/T0000000000000000000000000');
    const page = await staff.get(`/portal/transactions/${theirs.transaction_id}`);
    expect(page.status).toBe(404);
    expect(missing.status).toBe(404);
    for (const body of [page.body, missing.body]) expect(body).toContain('There is no such transaction.');
    expect(page.body).not.toContain(theirs.order_no);
    for (const [action, fields] of everyAction(event!.id)) {
      const answer = await staff.post(`/portal/transactions/${theirs.transaction_id}/${action}`, fields);
      expect(answer.status, action).toBe(404);
    }
    // Their notification, under one of our transactions: not found either.
    const ours = await pay(shop);
    expect((await staff.post(`/portal/transactions/${ours.transaction_id}/notifications/${event!.id}/replay`, {})).status).toBe(404);
    expect(await queried(other, theirs)).toMatchObject({ payment_status: '3000', refunded_amount: '0.00' });
  });
});

describe('portal actions on a disabled account', () => {
  it('are refused as the API refuses the account (4410), and nothing moves', async () => {
    const frozen = await gw.merchant({ captureMode: 'manual' });
    const frozenStaff = await signIn(gw, await createMember(gw, frozen.ids.merchant_id, 'operator'), { clock: wall });
    const toCapture = await pay(frozen, { amount: '20.00' });
    const toCancel = await pay(frozen, { amount: '20.00' });
    const toRefund = await pay(frozen, { amount: '20.00' });
    expect((await act(frozenStaff, toRefund, 'capture')).status).toBe(303);
    const disabled = await runCommand(['merchants', 'disable', '--merchant-id', frozen.ids.merchant_id, '--account-id', frozen.ids.account_id], gw.gateway.deps);
    expect(disabled.exitCode).toBe(0);
    // The API refuses the account from its next request (a capture of the captured payment moves nothing either way).
    const apiRefuses = async () => (await frozen.post('/v1/capture', { ...frozen.ids, capture_orders: [orderOf(toRefund)] })).status === 403;
    await vi.waitFor(async () => expect(await apiRefuses()).toBe(true), { timeout: 2_000, interval: 20 });
    for (const [txn, action, fields] of [
      [toCapture, 'capture', {}],
      [toCancel, 'cancel', {}],
      [toRefund, 'refund', { refund_amount: '1.00' }],
    ] as const) {
      const answer = await act(frozenStaff, txn, action, fields);
      expect(answer.status, action).toBe(403);
      expect(answer.body, action).toContain('4410:');
    }
    const rows = await gw.database.query<{ id: string; status: string; captured_amount: number; refunded_amount: number }>(
      'SELECT id, status, captured_amount::int AS captured_amount, refunded_amount::int AS refunded_amount FROM payments WHERE merchant_id = $1 ORDER BY id',
      [frozen.ids.merchant_id],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.captured_amount, r.refunded_amount]]))).toEqual({
      [toCapture.transaction_id]: ['authorised', 0, 0],
      [toCancel.transaction_id]: ['authorised', 0, 0],
      [toRefund.transaction_id]: ['captured', 2000, 0],
    });
    const [refunds] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE p.merchant_id = $1', [frozen.ids.merchant_id]);
    expect(refunds!.n).toBe(0);
  });
});
