// Unknown outcome = pending, never success. The timeout test card leaves the payment processing;
// the resolve-unknown-payments task asks the processor again later and records its answer, with
// the risk decision recorded with the pending answer, or, when the gateway died before recording
// any, holding for review an approval the processor did not capture.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveUnknownPayments, UNKNOWN_AFTER_MS } from '../../src/app/payments/resolve-unknown.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { createDeps } from '../../src/deps.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { capture, eventTypes, review, type Txn } from '../support/lifecycle.ts';

let gw: TestGateway;
let shop: SignedClient;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
});
afterAll(() => gw?.close());

const stateOf = async (id: string) =>
  (await gw.database.query<Record<string, any>>(
    `SELECT status, result_code, captured_amount::int AS captured,
            (SELECT count(*)::int FROM ledger_entries WHERE payment_id = p.id) AS entries,
            (SELECT count(*)::int FROM events WHERE payment_id = p.id) AS events
       FROM payments p WHERE id = $1`,
    [id],
  ))[0];

describe('a processor that does not answer', () => {
  it('answers pending, books nothing, then records the late answer once', async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: '4000000000000259' }));
    expect(answer.body).toMatchObject({ order_status: '2', result_info: '1000:Pending: awaiting the processor' });
    const id = answer.body.transaction_id;
    expect(await stateOf(id)).toEqual({ status: 'processing', result_code: '1000', captured: 0, entries: 0, events: 0 });

    // Too early: a request may still be talking to the processor.
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBe(0);
    clock.advance(UNKNOWN_AFTER_MS + 1_000);
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
    expect(await stateOf(id)).toEqual({ status: 'captured', result_code: '0000', captured: 1000, entries: 2, events: 1 });

    // Asking again changes nothing.
    await resolveUnknownPayments(gw.gateway.deps);
    expect(await stateOf(id)).toMatchObject({ entries: 2, events: 1 });
  });

  it('answers a retry of the pending order with its stored state, without waiting', async () => {
    const body = cardPayment(shop.ids, { card: '4000000000000259' });
    const first = await shop.post('/v1/authorise', body);
    const started = Date.now();
    const again = await shop.post('/v1/authorise', body);
    expect(again.body.transaction_id).toBe(first.body.transaction_id);
    expect(again.body.order_status).toBe('2');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('finds the lost answer after a restart: the sandbox processor remembers it in its own table', async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: '4000000000000259' }));
    const id = answer.body.transaction_id;
    expect(await gw.database.query('SELECT idempotency_key FROM simulator_lost_answers WHERE idempotency_key = $1', [id])).toEqual([{ idempotency_key: id }]);
    // Another process (a new simulator, nothing in its memory) asks about it.
    const restarted = await createDeps({ config: gw.config, database: gw.database, clock, log: gw.gateway.deps.log });
    clock.advance(UNKNOWN_AFTER_MS + 1_000);
    expect(await resolveUnknownPayments(restarted)).toBeGreaterThanOrEqual(1);
    expect(await stateOf(id)).toMatchObject({ status: 'captured', result_code: '0000', captured: 1000 });
  });
});

describe('a gateway that dies between the processor’s approval and its record', () => {
  // The outcome's write never lands, as when the process that asked is killed (or its database
  // goes away) after the processor approved: the payments of the listed orders refuse every
  // update, so the claim stays as it was written, no risk decision on it. The timeout card's
  // approval is remembered by the sandbox processor for the sweeper's question.
  let refuse: (orderNo: string) => Promise<unknown>;
  let clear: () => Promise<unknown>;
  beforeAll(async () => {
    await gw.database.query('CREATE TABLE unrecorded_orders (order_no text PRIMARY KEY)');
    await gw.database.query(`CREATE FUNCTION refuse_unrecorded() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF EXISTS (SELECT 1 FROM unrecorded_orders WHERE order_no = OLD.order_no) THEN
          RAISE EXCEPTION 'the gateway died before recording %', OLD.order_no;
        END IF;
        RETURN NEW;
      END $fn$`);
    await gw.database.query('CREATE TRIGGER refuse_unrecorded BEFORE UPDATE ON payments FOR EACH ROW EXECUTE FUNCTION refuse_unrecorded()');
    refuse = (orderNo) => gw.database.query('INSERT INTO unrecorded_orders (order_no) VALUES ($1)', [orderNo]);
    clear = () => gw.database.query('DELETE FROM unrecorded_orders');
  });

  /** A payment of 10.00 the processor approves and the gateway never records: its transaction id. */
  async function approvedUnrecorded(client: SignedClient): Promise<{ id: string; txn: Txn }> {
    const body = cardPayment(client.ids, { card: '4000000000000259' });
    await refuse(String(body.order_no));
    try {
      const answer = await client.post('/v1/authorise', body);
      expect(answer.body.order_status).not.toBe('1');
    } finally {
      await clear();
    }
    const [row] = await gw.database.query<{ id: string; status: string; result_code: string | null; risk_action: string | null }>(
      'SELECT id, status, result_code, risk_action FROM payments WHERE order_no = $1 AND account_id = $2',
      [body.order_no, client.ids.account_id],
    );
    expect(row).toMatchObject({ status: 'processing', result_code: null, risk_action: null });
    return { id: row!.id, txn: { transaction_id: row!.id, order_no: String(body.order_no), currency: 'USD', amount: '10.00' } };
  }

  /** A merchant whose risk settings hold a payment above 5.00 for review. */
  async function holdingAbove5(settings: { captureMode?: 'manual' } = {}): Promise<SignedClient> {
    const client = await gw.merchant(settings);
    const set = await runCommand(['risk', 'set', '--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id, '--set', 'amountLimits.USD.review=5.00'], gw.gateway.deps);
    expect(set.exitCode, set.stderr).toBe(0);
    gw.gateway.server.directory.forget();
    return client;
  }

  const sweep = async () => {
    clock.advance(UNKNOWN_AFTER_MS + 1_000);
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
  };

  it('a lost answer alone keeps the decision: recorded with the pending answer, the approval is held', async () => {
    const manual = await holdingAbove5({ captureMode: 'manual' });
    const answer = await manual.post('/v1/authorise', cardPayment(manual.ids, { card: '4000000000000259' }));
    expect(answer.body).toMatchObject({ order_status: '2', risk_action: 'review' });
    await sweep();
    expect(await stateOf(answer.body.transaction_id)).toMatchObject({ status: 'pending_review', result_code: '1003' });
  });

  it('holds for review the approval of a payment risk held, on a manual-capture account: never captured unreviewed', async () => {
    const manual = await holdingAbove5({ captureMode: 'manual' });
    const { id, txn } = await approvedUnrecorded(manual);
    await sweep();
    expect(await stateOf(id)).toEqual({ status: 'pending_review', result_code: '1003', captured: 0, entries: 2, events: 1 });
    expect(await eventTypes(gw, id)).toEqual(['payment.review']);
    expect((await capture(manual, txn)).capture_status).not.toBe('1');
    expect(await stateOf(id)).toMatchObject({ status: 'pending_review', captured: 0 });

    // Approved by review, it is an authorisation like any other.
    expect((await review(manual, txn, '1')).review_status).toBe('1');
    expect((await capture(manual, txn)).capture_status).toBe('1');
    expect(await stateOf(id)).toMatchObject({ status: 'captured', captured: 1000 });
  });

  it('holds it on an auto-capture account too, where the processor was asked no capture', async () => {
    const auto = await holdingAbove5();
    const { id } = await approvedUnrecorded(auto);
    await sweep();
    expect(await stateOf(id)).toEqual({ status: 'pending_review', result_code: '1003', captured: 0, entries: 2, events: 1 });
  });

  it('holds an uncaptured approval whose decision was never recorded even where risk would have accepted it: the decision is not guessed', async () => {
    const manual = await gw.merchant({ captureMode: 'manual' });
    const { id } = await approvedUnrecorded(manual);
    await sweep();
    expect(await stateOf(id)).toMatchObject({ status: 'pending_review', result_code: '1003' });
    const [risk] = await gw.database.query('SELECT risk_score, risk_action, risk_reasons FROM payments WHERE id = $1', [id]);
    expect(risk).toEqual({ risk_score: 50, risk_action: 'review', risk_reasons: [{ name: 'decision_unrecorded', status: 'hit' }] });
  });

  it('records an approval the processor captured as captured: the gateway asks a capture only of a payment risk accepted', async () => {
    const { id } = await approvedUnrecorded(shop);
    await sweep();
    expect(await stateOf(id)).toEqual({ status: 'captured', result_code: '0000', captured: 1000, entries: 2, events: 1 });
  });
});
