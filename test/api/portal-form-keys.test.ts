// A transaction's money forms (refund, capture, cancel, review) each carry a one-time key drawn
// when the page renders. The same form sent twice, one after the other or ten at once, moves the
// money once and answers the first sending's outcome; its re-authentication step carries the key
// over; a page rendered anew gives a new key, so a second partial refund is made on purpose; a
// missing or malformed key is refused naming the field, nothing done; and another merchant's
// member sending the key does nothing to the merchant whose page drew it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../support/client.ts';
import type { FakeClock, TestGateway } from '../support/gateway.ts';
import { booksOf, eventTypes, expectLedgerBalanced, pay, paymentRow, type Txn } from '../support/lifecycle.ts';
import { createMember, formKeyOf, signIn, startPortalShops, type PortalClient, type TestMember } from '../support/portal.ts';

let gw: TestGateway;
let wall: FakeClock;
let shop: SignedClient;
let manual: SignedClient;
let other: SignedClient;
let operator: TestMember;
let staff: PortalClient;
let manualStaff: PortalClient;
let otherStaff: PortalClient;

beforeAll(async () => {
  ({ gw, wall, shop, manual, other, operator, staff } = await startPortalShops());
  manualStaff = await signIn(gw, await createMember(gw, manual.ids.merchant_id, 'operator'), { clock: wall });
  otherStaff = await signIn(gw, await createMember(gw, other.ids.merchant_id, 'operator'), { clock: wall });
}, 120_000);
afterAll(async () => {
  await gw?.close();
});

const pageOf = (txn: Txn) => `/portal/transactions/${txn.transaction_id}`;

/** Opens the transaction's page as a member would and reads the one-time key of its form for `action`. */
async function openForm(client: PortalClient, txn: Txn, action: string): Promise<{ path: string; form_key: string }> {
  const path = `${pageOf(txn)}/${action}`;
  const page = await client.get(pageOf(txn));
  expect(page.status).toBe(200);
  const form_key = formKeyOf(page.body, path);
  expect(form_key, `the ${action} form's key`).toMatch(/^[A-Za-z0-9_-]{22,}$/);
  return { path, form_key: form_key! };
}

/** The hidden fields of a page's form, as a browser would post them again. */
function hiddenFieldsOf(page: string): Record<string, string> {
  return Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
}

async function queried(client: SignedClient, txn: Txn): Promise<Record<string, string>> {
  const answer = await client.post('/v1/retrievalTrans', { ...client.ids, transaction_id: txn.transaction_id });
  expect(answer.status, answer.raw).toBe(200);
  return answer.body.orders_list[0];
}

async function refundsOf(txn: Txn): Promise<{ n: number; total: number }> {
  const [row] = await gw.database.query<{ n: number; total: number }>('SELECT count(*)::int AS n, coalesce(sum(amount), 0)::int AS total FROM refunds WHERE payment_id = $1', [txn.transaction_id]);
  return row!;
}

async function operationsOf(txn: Txn): Promise<{ kind: string; amount: number }[]> {
  return gw.database.query<{ kind: string; amount: number }>('SELECT kind, amount::int AS amount FROM payment_operations WHERE payment_id = $1 ORDER BY created_at', [txn.transaction_id]);
}

describe('a refund form sent more than once', () => {
  it('sent twice, refunds once and answers the first sending’s outcome both times; with its amount changed, is refused', async () => {
    const txn = await pay(shop, { amount: '40.00' });
    const { path, form_key } = await openForm(staff, txn, 'refund');
    const fields = { refund_amount: '15.00', refund_reason: 'damaged', form_key };
    const first = await staff.post(path, fields);
    const second = await staff.post(path, fields);
    expect(first.status).toBe(303);
    expect(first.location).toBe(`${pageOf(txn)}?done=refund&outcome=succeeded`);
    expect({ status: second.status, location: second.location }).toEqual({ status: 303, location: first.location });
    expect(await refundsOf(txn)).toEqual({ n: 1, total: 1500 });
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '15.00' });
    expect((await booksOf(gw, txn.transaction_id)).processor_receivable).toBe(2500);

    // The page kept and its amount changed: the form was spent by its first sending.
    const changed = await staff.post(path, { ...fields, refund_amount: '5.00' });
    expect(changed.status).toBe(409);
    expect(changed.body).toContain('This form was sent before, for a refund of 15.00 USD');
    expect(await refundsOf(txn)).toEqual({ n: 1, total: 1500 });
    await expectLedgerBalanced(gw);
  });

  it('sent 10 times at once, makes one refund', async () => {
    const txn = await pay(shop, { amount: '30.00' });
    const { path, form_key } = await openForm(staff, txn, 'refund');
    const answers = await Promise.all(Array.from({ length: 10 }, () => staff.post(path, { refund_amount: '10.00', form_key })));
    for (const answer of answers) {
      expect(answer.status).toBe(303);
      // The first is done; a twin that looked while the first was at the processor saw it pending.
      expect(answer.location).toMatch(/\?done=refund&outcome=(succeeded|pending)$/);
    }
    expect(await refundsOf(txn)).toEqual({ n: 1, total: 1000 });
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '10.00' });
    expect((await booksOf(gw, txn.transaction_id)).processor_receivable).toBe(2000);
    await expectLedgerBalanced(gw);
  });

  it('rendered twice, gives two keys and two partial refunds', async () => {
    const txn = await pay(shop, { amount: '40.00' });
    const one = await openForm(staff, txn, 'refund');
    const two = await openForm(staff, txn, 'refund');
    expect(two.form_key).not.toBe(one.form_key);
    for (const form of [one, two]) {
      expect((await staff.post(form.path, { refund_amount: '10.00', form_key: form.form_key })).location).toBe(`${pageOf(txn)}?done=refund&outcome=succeeded`);
    }
    expect(await refundsOf(txn)).toEqual({ n: 2, total: 2000 });
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '20.00' });
    expect((await booksOf(gw, txn.transaction_id)).processor_receivable).toBe(2000);
  });

  it('above the threshold, keeps its key through the password step: confirmed, resent, or sent again as first written, one refund', async () => {
    const txn = await pay(shop, { amount: '900.00' });
    wall.advance(6 * 60_000);
    const { path, form_key } = await openForm(staff, txn, 'refund');
    const fields = { refund_amount: '600.00', form_key };
    const asked = await staff.post(path, fields);
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('Confirm it is you');
    const carried = hiddenFieldsOf(asked.body);
    expect(carried).toMatchObject(fields);
    const confirm = { ...carried, _reauth_password: operator.password };
    const confirmed = await staff.post(path, confirm);
    expect(confirmed.location).toBe(`${pageOf(txn)}?done=refund&outcome=succeeded`);
    // The browser resends the confirmation (its answer lost), then the first form once more.
    for (const again of [confirm, fields]) expect((await staff.post(path, again)).location).toBe(confirmed.location);
    expect(await refundsOf(txn)).toEqual({ n: 1, total: 60000 });
    expect(await queried(shop, txn)).toMatchObject({ refunded_amount: '600.00' });
    await expectLedgerBalanced(gw);
  });
});

describe('capture, cancel and review forms sent twice', () => {
  it('a capture form: captured once, both answered done; with its amount changed, refused', async () => {
    const txn = await pay(manual, { amount: '20.00' });
    const { path, form_key } = await openForm(manualStaff, txn, 'capture');
    for (let i = 0; i < 2; i++) expect((await manualStaff.post(path, { amount: '12.00', form_key })).location).toBe(`${pageOf(txn)}?done=capture&outcome=succeeded`);
    const changed = await manualStaff.post(path, { amount: '20.00', form_key });
    expect(changed.status).toBe(409);
    expect(changed.body).toContain('This form was sent before, for a capture of 12.00 USD');
    expect(await operationsOf(txn)).toEqual([{ kind: 'capture', amount: 1200 }]);
    expect(await queried(manual, txn)).toMatchObject({ payment_status: '3000', captured_amount: '12.00' });
    await expectLedgerBalanced(gw);
  });

  it('a cancel form: voided once, both answered done', async () => {
    const txn = await pay(manual, { amount: '20.00' });
    const { path, form_key } = await openForm(manualStaff, txn, 'cancel');
    for (let i = 0; i < 2; i++) expect((await manualStaff.post(path, { form_key })).location).toBe(`${pageOf(txn)}?done=cancel&outcome=succeeded`);
    expect(await operationsOf(txn)).toEqual([{ kind: 'void', amount: 2000 }]);
    expect(await queried(manual, txn)).toMatchObject({ payment_status: '4000' });
  });

  it('a review form: approved once, both answered done; its other button after it is refused', async () => {
    const held = await pay(shop, { card: '4000000000004954', amount: '15.00' });
    const { path, form_key } = await openForm(staff, held, 'review');
    for (let i = 0; i < 2; i++) expect((await staff.post(path, { decision: 'approve', form_key })).location).toBe(`${pageOf(held)}?done=approve&outcome=succeeded`);
    const reject = await staff.post(path, { decision: 'reject', form_key });
    expect(reject.status).toBe(409);
    expect(reject.body).toContain('5011');
    expect(await operationsOf(held)).toEqual([{ kind: 'capture', amount: 1500 }]);
    expect(await queried(shop, held)).toMatchObject({ payment_status: '3000' });
  });

  it('each sent 10 times at once: captured, voided, approved once, every sending answered done', async () => {
    const toCapture = await pay(manual, { amount: '20.00' });
    const toCancel = await pay(manual, { amount: '20.00' });
    const held = await pay(shop, { card: '4000000000004954', amount: '15.00' });
    const forms = [
      [manualStaff, toCapture, 'capture', { amount: '12.00' }, 'capture'],
      [manualStaff, toCancel, 'cancel', {}, 'cancel'],
      [staff, held, 'review', { decision: 'approve' }, 'approve'],
    ] as const;
    for (const [client, txn, action, fields, done] of forms) {
      const { path, form_key } = await openForm(client, txn, action);
      const answers = await Promise.all(Array.from({ length: 10 }, () => client.post(path, { ...fields, form_key })));
      for (const answer of answers) {
        expect(answer.status, `${action}: ${answer.body}`).toBe(303);
        // A twin that looked while the first was at the processor saw it pending.
        expect(answer.location, action).toMatch(new RegExp(`\\?done=${done}&outcome=(succeeded|pending)$`));
      }
    }
    expect(await operationsOf(toCapture)).toEqual([{ kind: 'capture', amount: 1200 }]);
    expect(await operationsOf(toCancel)).toEqual([{ kind: 'void', amount: 2000 }]);
    expect(await operationsOf(held)).toEqual([{ kind: 'capture', amount: 1500 }]);
    expect(await queried(manual, toCapture)).toMatchObject({ payment_status: '3000', captured_amount: '12.00' });
    expect(await queried(manual, toCancel)).toMatchObject({ payment_status: '4000' });
    expect(await queried(shop, held)).toMatchObject({ payment_status: '3000', captured_amount: '15.00' });
    for (const [txn, type] of [[toCapture, 'payment.captured'], [toCancel, 'payment.cancelled'], [held, 'payment.captured']] as const) {
      expect((await eventTypes(gw, txn.transaction_id)).filter((t) => t === type), txn.transaction_id).toHaveLength(1);
    }
    await expectLedgerBalanced(gw);
  });

  it('a review form on a manual-capture account (an approval that claims nothing at the processor): approved once', async () => {
    const held = await pay(manual, { card: '4000000000004954', amount: '15.00' });
    const { path, form_key } = await openForm(manualStaff, held, 'review');
    for (let i = 0; i < 2; i++) expect((await manualStaff.post(path, { decision: 'approve', form_key })).location).toBe(`${pageOf(held)}?done=approve&outcome=succeeded`);
    expect((await paymentRow(gw, held.transaction_id)).status).toBe('authorised');
    expect((await eventTypes(gw, held.transaction_id)).filter((type) => type === 'payment.authorised')).toHaveLength(1);
    expect(await operationsOf(held)).toEqual([]);
  });
});

describe('form keys refused', () => {
  it('a missing or malformed key is refused naming form_key before anything (the password step too), and nothing is done', async () => {
    const captured = await pay(shop, { amount: '900.00' });
    const authorised = await pay(manual, { amount: '20.00' });
    const held = await pay(shop, { card: '4000000000004954' });
    wall.advance(6 * 60_000); // a refund above the threshold would ask for the password first
    const forms: [PortalClient, Txn, string, Record<string, string>][] = [
      [staff, captured, 'refund', { refund_amount: '600.00' }],
      [staff, captured, 'refund', { refund_amount: '5.00' }],
      [manualStaff, authorised, 'capture', { amount: '20.00' }],
      [manualStaff, authorised, 'cancel', {}],
      [staff, held, 'review', { decision: 'approve' }],
      [staff, held, 'review', { decision: 'reject' }],
    ];
    const keys: [string | undefined, string][] = [
      [undefined, 'form_key is missing'],
      ['', 'form_key is missing'],
      ['short', 'form_key is invalid'],
      ['a'.repeat(21), 'form_key is invalid'],
      ['aaaaaaaaaaaaaaaaaaaa+/==', 'form_key is invalid'],
      ['aaaaaaaaaaaaaaaaaaaaa!', 'form_key is invalid'],
      ['a'.repeat(65), 'form_key is invalid'],
    ];
    for (const [client, txn, action, fields] of forms) {
      for (const [key, words] of keys) {
        await client.get(pageOf(txn));
        const answer = await client.post(`${pageOf(txn)}/${action}`, { ...fields, ...(key === undefined ? {} : { form_key: key }) });
        expect({ action, key, status: answer.status, said: answer.body.includes(words), asked: answer.body.includes('Confirm it is you') }).toEqual({ action, key, status: 400, said: true, asked: false });
      }
    }
    expect(await refundsOf(captured)).toEqual({ n: 0, total: 0 });
    expect(await operationsOf(authorised)).toEqual([]);
    expect(await operationsOf(held)).toEqual([]);
    expect((await paymentRow(gw, captured.transaction_id)).status).toBe('captured');
    expect((await paymentRow(gw, authorised.transaction_id)).status).toBe('authorised');
    expect((await paymentRow(gw, held.transaction_id)).status).toBe('pending_review');
    const [audit] = await gw.database.query<{ n: number }>("SELECT count(*)::int AS n FROM portal_audit_log WHERE outcome = 'refused' AND detail->>'reason' LIKE 'form_key is %'");
    expect(audit!.n).toBe(forms.length * keys.length);
  });

  it('a key from merchant A’s page sent by merchant B’s member does nothing to A', async () => {
    const ours = await pay(shop, { amount: '30.00' });
    const theirs = await pay(other, { amount: '30.00' });
    const { path, form_key } = await openForm(staff, ours, 'refund');
    const mine = await staff.post(path, { refund_amount: '5.00', form_key });
    expect(mine.location).toBe(`${pageOf(ours)}?done=refund&outcome=succeeded`);

    // B's member sends A's form as it is: A's transaction is not found for B.
    await otherStaff.get(pageOf(theirs));
    for (const amount of ['5.00', '10.00']) expect((await otherStaff.post(path, { refund_amount: amount, form_key })).status).toBe(404);
    // A's key on B's own transaction: a refund of B's own, not an answer from A's.
    const onTheirs = await otherStaff.post(`${pageOf(theirs)}/refund`, { refund_amount: '10.00', form_key });
    expect(onTheirs.location).toBe(`${pageOf(theirs)}?done=refund&outcome=succeeded`);

    // A's form sent again is still answered with A's one refund.
    expect((await staff.post(path, { refund_amount: '5.00', form_key })).location).toBe(mine.location);
    expect(await refundsOf(ours)).toEqual({ n: 1, total: 500 });
    expect(await refundsOf(theirs)).toEqual({ n: 1, total: 1000 });
    expect(await queried(shop, ours)).toMatchObject({ refunded_amount: '5.00' });
    expect(await queried(other, theirs)).toMatchObject({ refunded_amount: '10.00' });
    await expectLedgerBalanced(gw);
  });
});
