// order_no is unique per account. A repeat with the same fields returns the stored
// outcome (the payment as it stands, after a capture, refund or cancel too) and charges nothing
// again, also when the copies arrive at once; different fields are refused and the original is untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { cancel, capture, refund } from '../support/lifecycle.ts';

let gw: TestGateway;
let shop: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant({ rateLimitPerSecond: 10_000 });
});
afterAll(() => gw?.close());

const effects = async (orderNo: string) => {
  const [row] = await gw.database.query<{ payments: number; journals: number; events: number; processor_refs: number }>(
    `SELECT (SELECT count(*)::int FROM payments WHERE order_no = $1) AS payments,
            (SELECT count(DISTINCT journal_id)::int FROM ledger_entries l JOIN payments p ON p.id = l.payment_id WHERE p.order_no = $1) AS journals,
            (SELECT count(*)::int FROM events e JOIN payments p ON p.id = e.payment_id WHERE p.order_no = $1) AS events,
            (SELECT count(DISTINCT connector_reference)::int FROM payments WHERE order_no = $1) AS processor_refs`,
    [orderNo],
  );
  return row!;
};

describe('same order_no, same fields', () => {
  it('returns the stored outcome and charges once', async () => {
    const body = cardPayment(shop.ids);
    const first = await shop.post('/v1/authorise', body);
    const second = await shop.post('/v1/authorise', body);
    expect(second.body).toEqual(first.body);
    expect(await effects(String(body.order_no))).toEqual({ payments: 1, journals: 1, events: 1, processor_refs: 1 });
  });

  it('returns a stored decline too, without asking the processor again', async () => {
    const body = cardPayment(shop.ids, { card: '4000000000009995' });
    const first = await shop.post('/v1/authorise', body);
    const second = await shop.post('/v1/authorise', body, { format: 'xml' });
    expect(second.body.transaction_id).toBe(first.body.transaction_id);
    expect(second.body.result_info).toBe('2002:Declined: insufficient funds');
  });

  it('treats a retry with another CVC or another body format as the same request', async () => {
    const body = cardPayment(shop.ids);
    const first = await shop.post('/v1/authorise', body, { format: 'form' });
    const second = await shop.post('/v1/authorise', { ...body, security_code: '999' }, { format: 'json' });
    expect(second.body.transaction_id).toBe(first.body.transaction_id);
  });

  it('answers a retry that leaves the CVC out (a merchant may not keep it) with the stored outcome; a new order without it is refused', async () => {
    const body = cardPayment(shop.ids);
    const first = await shop.post('/v1/authorise', body);
    expect(first.body.result_info).toBe('0000:Success');
    const { security_code: _cvc, ...withoutCvc } = body;
    for (const [retry, format] of [
      [withoutCvc, 'json'],
      [{ ...withoutCvc, security_code: '' }, 'form'],
    ] as const) {
      const again = await shop.post('/v1/authorise', retry, { format });
      expect([again.status, again.body.transaction_id, again.body.result_info]).toEqual([200, first.body.transaction_id, '0000:Success']);
    }
    expect(await effects(String(body.order_no))).toEqual({ payments: 1, journals: 1, events: 1, processor_refs: 1 });

    const changed = await shop.post('/v1/authorise', { ...withoutCvc, amount: '11.00' });
    expect([changed.status, changed.body.result_info]).toEqual([400, `4009:order_no ${body.order_no} was already used with different fields`]);
    const { security_code: _none, ...fresh } = cardPayment(shop.ids);
    const refused = await shop.post('/v1/authorise', fresh);
    expect([refused.status, refused.body.result_info]).toEqual([400, '4001:security_code is required (or token_id)']);
    expect((await effects(String(fresh.order_no))).payments).toBe(0);
  });

  it('charges once when 50 identical requests arrive at once', async () => {
    const body = cardPayment(shop.ids);
    const answers = await Promise.all(Array.from({ length: 50 }, () => shop.post('/v1/authorise', body)));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.body.transaction_id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body.result_info))).toEqual(new Set(['0000:Success']));
    expect(await effects(String(body.order_no))).toEqual({ payments: 1, journals: 1, events: 1, processor_refs: 1 });
  });
});

describe('same order_no, different fields', () => {
  it('is refused with 400 and leaves the original untouched', async () => {
    const body = cardPayment(shop.ids);
    const first = await shop.post('/v1/authorise', body);
    const [before] = await gw.database.query('SELECT * FROM payments WHERE id = $1', [first.body.transaction_id]);
    const other = await shop.post('/v1/authorise', { ...body, amount: '11.00' });
    expect([other.status, other.body.result_info]).toEqual([400, `4009:order_no ${body.order_no} was already used with different fields`]);
    expect(other.body.transaction_id).toBe('');
    const [after] = await gw.database.query('SELECT * FROM payments WHERE id = $1', [first.body.transaction_id]);
    expect(after).toEqual(before);
  });

  it('lets exactly one of 20 conflicting requests through', async () => {
    const body = cardPayment(shop.ids);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => shop.post('/v1/authorise', { ...body, amount: `${10 + i}.00` })));
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400 && a.body.result_info.startsWith('4009:'))).toHaveLength(19);
    expect((await effects(String(body.order_no))).payments).toBe(1);
  });

  it('does not mix accounts: the same order_no on another account is another order', async () => {
    const other = await gw.merchant();
    const body = cardPayment(shop.ids);
    const mine = await shop.post('/v1/authorise', body);
    const theirs = await other.post('/v1/authorise', { ...body, ...other.ids, amount: '99.00' });
    expect(theirs.body.result_info).toBe('0000:Success');
    expect(theirs.body.transaction_id).not.toBe(mine.body.transaction_id);
  });
});

describe('the event of an authorisation', () => {
  it('waits for delivery when the payment names a notify_url, and is kept without one', async () => {
    const withTarget = await shop.post('/v1/authorise', cardPayment(shop.ids, { notify_url: 'http://127.0.0.1:9/notify' }));
    const without = await shop.post('/v1/authorise', cardPayment(shop.ids));
    const rows = await gw.database.query<{ payment_id: string; delivery_status: string; notify_url: string | null }>(
      'SELECT payment_id, delivery_status, notify_url FROM events WHERE payment_id IN ($1, $2)',
      [withTarget.body.transaction_id, without.body.transaction_id],
    );
    expect(Object.fromEntries(rows.map((r) => [r.payment_id, [r.delivery_status, r.notify_url]]))).toEqual({
      [withTarget.body.transaction_id]: ['pending', 'http://127.0.0.1:9/notify'],
      [without.body.transaction_id]: ['no_target', null],
    });
  });
});

// Last: its second account's traffic would make the concurrent tests above compete for a fair share (4429).
describe('a repeat after the payment changed', () => {
  it('answers the payment as it stands now, not a copy of the first answer, and charges nothing again', async () => {
    const manual = await gw.merchant({ captureMode: 'manual', rateLimitPerSecond: 10_000 });
    const authorised = async () => {
      const body = cardPayment(manual.ids);
      const first = (await manual.post('/v1/authorise', body)).body;
      expect([first.order_status, first.payment_status, first.result_info]).toEqual(['1', '2000', '0000:Success']);
      return { body, txn: { transaction_id: first.transaction_id, order_no: String(body.order_no), currency: String(body.currency), amount: first.amount } };
    };
    const captured = await authorised();
    await capture(manual, captured.txn);
    const refunded = await authorised();
    await capture(manual, refunded.txn);
    await refund(manual, refunded.txn, refunded.txn.amount);
    const cancelled = await authorised();
    await cancel(manual, cancelled.txn);

    const standing = async ({ body, txn }: Awaited<ReturnType<typeof authorised>>) => {
      const repeat = (await manual.post('/v1/authorise', body)).body;
      expect(repeat.transaction_id).toBe(txn.transaction_id);
      expect((await effects(txn.order_no)).payments).toBe(1);
      return [repeat.order_status, repeat.payment_status, repeat.result_info];
    };
    expect(await standing(captured)).toEqual(['1', '3000', '0000:Success']);
    expect(await standing(refunded)).toEqual(['1', '3002', '0000:Success']);
    expect(await standing(cancelled)).toEqual(['0', '4000', '0000:Success']);
  });
});
