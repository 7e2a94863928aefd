// A refund batch runs in waves (src/http/batch/run.ts): the first order of every transaction
// together, then the second of those that have one, and so on. A wave's claims are one statement,
// committed before the processor hears of any of them; its processor calls run at once (as many
// as the connector accepts), outside any transaction; its answers are recorded in one unit of
// work. These tests tell that story through /v1/refund: what the processor sees, a connector that
// accepts only a few calls at once, a record step that fails for one refund or all, orders on one
// payment among others, waves that name the same payments in other orders, and another
// merchant's transaction in the middle of a wave.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settlePendingRefunds } from '../../src/app/refund/record-refund.ts';
import { claimRefunds, type RefundClaim } from '../../src/db/repositories/refunds.ts';
import { startsFrom } from '../../src/domain/lifecycle.ts';
import { newId } from '../../src/domain/ids.ts';
import type { SignedClient } from '../support/client.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { refuseEventsBy, type OutboxRefusal } from '../support/outbox-refusal.ts';
import { batch, booksOf, eventTypes, expectLedgerBalanced, orderOf, pay, paymentRow, scriptedProcessor, heldAnswer, type Txn } from '../support/lifecycle.ts';

// `capped`: the same processor, accepting 4 calls at once.
const processor = scriptedProcessor({ capped: 4 });
let gw: TestGateway;
let shop: SignedClient;
let other: SignedClient;
let cappedShop: SignedClient;
let outbox: OutboxRefusal;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors });
  shop = await gw.merchant();
  other = await gw.merchant();
  cappedShop = await gw.merchant({ connector: 'capped' });
  // The outbox refuses the events of the payments listed (a record step failing mid-way).
  outbox = await refuseEventsBy(gw.database, 'payment_id');
});
afterAll(() => gw?.close());
beforeEach(() => {
  delete processor.script.refund;
});
afterEach(() => outbox.clear());

const later = (ms = 600_000) => depsLater(gw, ms);
const refuseEventsOf = (txn: Txn) => outbox.refuse(txn.transaction_id);
const statuses = (answer: { body: Record<string, any> }) => (answer.body.refund_orders as Record<string, string>[]).map((e) => e.refund_status);
const payments = (n: number, client = shop) => Promise.all(Array.from({ length: n }, () => pay(client)));

describe('one wave', () => {
  it('claims every order before the processor hears of any, then asks about all of them at once', async () => {
    const txns = await payments(10);
    const ids = txns.map((t) => t.transaction_id);
    let inFlight = 0;
    let most = 0;
    const pendingWhenAsked: number[] = [];
    processor.script.refund = async () => {
      const [row] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM refunds WHERE payment_id = ANY ($1::text[]) AND status = 'pending'`, [ids]);
      pendingWhenAsked.push(row!.n);
      inFlight += 1;
      most = Math.max(most, inFlight);
      // Wait for the others (or give up after a while): the calls overlap only if they were made at once.
      for (let i = 0; i < 100 && most < txns.length; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      inFlight -= 1;
      return { ok: true, value: { status: 'succeeded', reference: 'scripted' } };
    };
    const answer = await batch(shop, 'refund_orders', txns.map((txn) => orderOf(txn, { refund_amount: '1.00' })));
    expect(statuses(answer)).toEqual(txns.map(() => '1'));
    expect(pendingWhenAsked).toEqual(txns.map(() => txns.length));
    expect(most).toBe(txns.length);
    for (const txn of txns) expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 100 });
    await expectLedgerBalanced(gw);
  });

  it('answers each order with its own outcome: refunded, declined, pending, refused before the processor', async () => {
    const [a, b, c, d] = await payments(4);
    const answer = await batch(shop, 'refund_orders', [
      orderOf(a!, { refund_amount: '2.00' }),
      orderOf(b!, { refund_amount: '2.00', refund_reason: 'sandbox_decline' }),
      orderOf(c!, { refund_amount: '2.00', refund_reason: 'sandbox_settle_later' }),
      orderOf(d!, { refund_amount: '10.01' }),
      orderOf(d!, { refund_amount: '3.00' }),
    ]);
    expect((answer.body.refund_orders as Record<string, string>[]).map((e) => [e.refund_status, (e.refund_message ?? '').slice(0, 6)])).toEqual([
      ['1', 'V0000:'],
      ['0', 'V5013:'],
      ['2', 'V1000:'],
      ['0', 'V5010:'],
      ['1', 'V0000:'],
    ]);
    expect(await eventTypes(gw, b!.transaction_id)).toEqual(['payment.captured', 'refund.failed']);
    expect(await paymentRow(gw, c!.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });
    expect(await paymentRow(gw, d!.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 300 });
    await expectLedgerBalanced(gw);
  });

  it("refuses another merchant's transaction in the middle of a wave like one that does not exist, and refunds the rest", async () => {
    const mine = await payments(3);
    const [theirs] = await payments(1, other);
    const answer = await batch(shop, 'refund_orders', [
      orderOf(mine[0]!, { refund_amount: '1.00' }),
      orderOf(theirs!, { refund_amount: '1.00' }),
      orderOf(mine[1]!, { refund_amount: '1.00' }),
      orderOf(mine[2]!, { refund_amount: '1.00' }),
    ]);
    expect(statuses(answer)).toEqual(['1', '0', '1', '1']);
    expect(answer.body.refund_orders[1].refund_message).toBe('V5001:no transaction with this transaction_id and order_no');
    expect(await paymentRow(gw, theirs!.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });
    const [row] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1`, [theirs!.transaction_id]);
    expect(row!.n).toBe(0);
  });
});

describe('a connector that accepts few calls at once', () => {
  it('a wave of 50 orders has at most that many calls in flight, every refund made; later turns are checked later', async () => {
    // Ten at a time: fifty authorisations at once would meet the account's fair share of a busy gateway.
    const txns: Txn[] = [];
    for (let i = 0; i < 5; i++) txns.push(...(await payments(10, cappedShop)));
    const timed = heldAnswer(4, 20);
    // While the first calls run, all 50 refunds are claimed: how far apart are their first checks?
    let spread: Promise<{ ms: number }[]> | undefined;
    processor.script.refund = () => {
      spread ??= gw.database.query<{ ms: number }>(
        `SELECT (extract(epoch FROM max(next_check_at) - min(next_check_at)) * 1000)::int AS ms FROM refunds WHERE account_id = $1 AND status = 'pending'`,
        [cappedShop.ids.account_id],
      );
      return timed.answer();
    };
    const answer = await batch(cappedShop, 'refund_orders', txns.map((txn) => orderOf(txn, { refund_amount: '1.00' })));
    expect(statuses(answer)).toEqual(txns.map(() => '1'));
    expect(timed.count.most).toBe(4);
    // 50 calls 4 at a time: 13 turns, the last one's first check 12 call timeouts after the first's.
    const [{ ms }] = (await spread!) as [{ ms: number }];
    expect(ms).toBeGreaterThanOrEqual(12 * gw.config.processor.callTimeoutMs);
    expect(ms).toBeLessThan(12 * gw.config.processor.callTimeoutMs + 5_000);
    const [row] = await gw.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM payments WHERE id = ANY ($1::text[]) AND status = 'partially_refunded' AND refunded_amount = 100`,
      [txns.map((t) => t.transaction_id)],
    );
    expect(row!.n).toBe(50);
    await expectLedgerBalanced(gw);
  });
});

describe('an account routed to another connector since', () => {
  it("takes its payments' turns on the connector they were taken on: later turns are checked later", async () => {
    const moved = await gw.merchant({ connector: 'capped' });
    const txns = await payments(12, moved);
    // Routed to the simulator (50 at once): these payments' refunds still go to `capped` (4 at once).
    const routed = await runCommand(['accounts', 'connector', 'set', '--merchant-id', moved.ids.merchant_id, '--account-id', moved.ids.account_id, '--connector', 'simulator'], gw.gateway.deps);
    expect(routed.exitCode, routed.stderr).toBe(0);
    gw.gateway.server.directory.forget();
    const timed = heldAnswer(4, 20);
    let spread: Promise<{ ms: number }[]> | undefined;
    processor.script.refund = () => {
      spread ??= gw.database.query<{ ms: number }>(
        `SELECT (extract(epoch FROM max(next_check_at) - min(next_check_at)) * 1000)::int AS ms FROM refunds WHERE account_id = $1 AND status = 'pending'`,
        [moved.ids.account_id],
      );
      return timed.answer();
    };
    const answer = await batch(moved, 'refund_orders', txns.map((txn) => orderOf(txn, { refund_amount: '1.00' })));
    expect(statuses(answer)).toEqual(txns.map(() => '1'));
    expect(timed.count.most).toBe(4);
    // 12 calls 4 at a time: 3 turns, the last one's first check 2 call timeouts after the first's.
    const [{ ms }] = (await spread!) as [{ ms: number }];
    expect(ms).toBeGreaterThanOrEqual(2 * gw.config.processor.callTimeoutMs);
    await expectLedgerBalanced(gw);
  });
});

describe('orders on one payment among others', () => {
  it('runs them wave after wave in the order sent, each seeing the one before', async () => {
    const [a, b, c] = await payments(3);
    const answer = await batch(shop, 'refund_orders', [
      orderOf(a!, { refund_amount: '7.00' }),
      orderOf(b!, { refund_amount: '10.00' }),
      orderOf(a!, { refund_amount: '4.00' }),
      orderOf(c!, { refund_amount: '1.00' }),
      orderOf(a!, { refund_amount: '3.00' }),
      orderOf(b!, { refund_amount: '0.01' }),
    ]);
    expect((answer.body.refund_orders as Record<string, string>[]).map((e) => [e.transaction_id, e.refund_status, (e.error_message ?? '').slice(0, 5)])).toEqual([
      [a!.transaction_id, '1', ''],
      [b!.transaction_id, '1', ''],
      [a!.transaction_id, '0', '5010:'],
      [c!.transaction_id, '1', ''],
      [a!.transaction_id, '1', ''],
      [b!.transaction_id, '0', '5010:'],
    ]);
    expect(await paymentRow(gw, a!.transaction_id)).toMatchObject({ status: 'refunded', refunded: 1000 });
    expect(await paymentRow(gw, b!.transaction_id)).toMatchObject({ status: 'refunded', refunded: 1000 });
    await expectLedgerBalanced(gw);
  });
});

describe('a record step that fails', () => {
  it('for one refund of the wave: the others are recorded, that one is answered pending and settled once by the sweeper', async () => {
    const txns = await payments(5);
    const refused = txns[2]!;
    await refuseEventsOf(refused);
    const answer = await batch(shop, 'refund_orders', txns.map((txn) => orderOf(txn, { refund_amount: '4.00' })));
    expect(statuses(answer)).toEqual(['1', '1', '2', '1', '1']);
    expect(answer.body.refund_orders[2]).toMatchObject({ refund_message: 'V1000:Pending: awaiting the processor', refund_reference_id: expect.stringMatching(/^RF/) });
    const booksBefore = await booksOf(gw, refused.transaction_id);
    expect(await paymentRow(gw, refused.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });
    expect(await eventTypes(gw, refused.transaction_id)).toEqual(['payment.captured']);
    expect(gw.logs.text).toContain('recording refunds failed');

    await outbox.clear();
    await settlePendingRefunds(later());
    await settlePendingRefunds(later(1_200_000));
    expect(await paymentRow(gw, refused.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 400 });
    expect(await eventTypes(gw, refused.transaction_id)).toEqual(['payment.captured', 'refund.succeeded']);
    expect(await booksOf(gw, refused.transaction_id)).not.toEqual(booksBefore);
    for (const txn of txns) expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ refunded: 400 });
    const [refunds] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1`, [refused.transaction_id]);
    expect(refunds!.n).toBe(1);
    await expectLedgerBalanced(gw);
  });

  it('for every refund of the wave: all answered pending, nothing refunded, each settled once by the sweeper', async () => {
    const txns = await payments(3);
    for (const txn of txns) await refuseEventsOf(txn);
    const answer = await batch(shop, 'refund_orders', txns.map((txn) => orderOf(txn, { refund_amount: '2.50' })));
    expect(statuses(answer)).toEqual(['2', '2', '2']);
    for (const txn of txns) expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });

    await outbox.clear();
    await settlePendingRefunds(later());
    await settlePendingRefunds(later(1_200_000));
    for (const txn of txns) {
      expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 250 });
      expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'refund.succeeded']);
    }
    await expectLedgerBalanced(gw);
  });
});

describe('waves racing', () => {
  it('batches naming the same payments in opposite orders, at once: no deadlock, never more than captured', async () => {
    const txns = await payments(12);
    const forwards = txns.map((txn) => orderOf(txn, { refund_amount: '3.00' }));
    const backwards = [...forwards].reverse();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => batch(shop, 'refund_orders', i % 2 === 0 ? forwards : backwards)));
    for (const answer of answers) expect(answer.status).toBe(200);
    const entries = answers.flatMap((a) => a.body.refund_orders as Record<string, string>[]);
    // 10.00 captured, 3.00 a refund: three refunds of each payment succeed, the others are told why.
    for (const txn of txns) {
      const mine = entries.filter((e) => e.transaction_id === txn.transaction_id);
      expect(mine.filter((e) => e.refund_status === '1')).toHaveLength(3);
      expect(mine.filter((e) => e.refund_status !== '1').every((e) => e.refund_message?.startsWith('V5010:'))).toBe(true);
      expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 900 });
    }
    expect(gw.logs.text).not.toMatch(/deadlock|batch order failed/);
    await expectLedgerBalanced(gw);
  });
});

describe('claims under request keys (a keyed request taken over) racing', () => {
  it('two waves claiming the same orders under the same keys at once: one refund per key, reserved once', async () => {
    const txns = await payments(4);
    const claimsOf = (): RefundClaim[] =>
      txns.map((txn, i) => ({
        id: newId('RF'),
        accountId: shop.ids.account_id,
        transactionId: txn.transaction_id,
        orderNo: txn.order_no,
        currency: 'USD',
        amount: 1000,
        refundAmount: 100,
        reason: null,
        refundableFrom: startsFrom('refund'),
        nextCheckAt: new Date(Date.now() + 60_000),
        createdAt: new Date(),
        requestKey: `race-key:${i}`,
      }));
    const [first, second] = await Promise.all([claimRefunds(gw.database, claimsOf()), claimRefunds(gw.database, claimsOf())]);
    txns.forEach((_, i) => expect([first![i], second![i]].filter(Boolean)).toHaveLength(1));
    for (const txn of txns) {
      const [row] = await gw.database.query<{ reserved: number; n: number }>(
        `SELECT p.refund_reserved::int AS reserved, (SELECT count(*)::int FROM refunds r WHERE r.payment_id = p.id) AS n FROM payments p WHERE p.id = $1`,
        [txn.transaction_id],
      );
      expect(row).toEqual({ reserved: 100, n: 1 });
    }
  });
});

describe('a key clash whose retry fails for one order', () => {
  // The wave's claim meets another request's refund under one of its keys (refunds_request_key),
  // so each order is claimed again on its own; one of those single claims then fails. Both are
  // made to happen by a trigger on this test's own schema, on the refunds of the payments listed:
  // the first insert of one raises the clash, every later one another error.
  beforeAll(async () => {
    await gw.database.query('CREATE SEQUENCE clash_once');
    await gw.database.query('CREATE TABLE failing_claims (payment_id text PRIMARY KEY)');
    await gw.database.query(`CREATE FUNCTION fail_claims() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF EXISTS (SELECT 1 FROM failing_claims WHERE payment_id = NEW.payment_id) THEN
          IF nextval('clash_once') = 1 THEN
            RAISE EXCEPTION 'duplicate key value violates unique constraint "refunds_request_key"'
              USING ERRCODE = 'unique_violation', CONSTRAINT = 'refunds_request_key';
          END IF;
          RAISE EXCEPTION 'the claim of % failed', NEW.payment_id;
        END IF;
        RETURN NEW;
      END $fn$`);
    await gw.database.query('CREATE TRIGGER fail_claims BEFORE INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION fail_claims()');
  });

  it('answers each order as it stands: the others refunded, that one alone refused, nothing reserved for it', async () => {
    const txns = await payments(3);
    const doomed = txns[1]!;
    await gw.database.query('INSERT INTO failing_claims (payment_id) VALUES ($1)', [doomed.transaction_id]);
    const answer = await shop.post(
      '/v1/refund',
      { ...shop.ids, refund_orders: txns.map((txn) => orderOf(txn, { refund_amount: '1.00' })) },
      { headers: { 'idempotency-key': `clash-${doomed.transaction_id}` } },
    );
    expect(answer.status).toBe(200);
    expect((answer.body.refund_orders as Record<string, string>[]).map((e) => [e.refund_status, e.error_message])).toEqual([
      ['1', ''],
      ['0', '9999:Internal error'],
      ['1', ''],
    ]);
    expect(gw.logs.text).toContain('claiming a refund failed');
    expect((await paymentRow(gw, txns[0]!.transaction_id)).refunded).toBe(100);
    expect((await paymentRow(gw, txns[2]!.transaction_id)).refunded).toBe(100);
    expect(await paymentRow(gw, doomed.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });
    const [reserved] = await gw.database.query<{ n: number }>('SELECT refund_reserved::int AS n FROM payments WHERE id = $1', [doomed.transaction_id]);
    expect(reserved!.n).toBe(0);
    await expectLedgerBalanced(gw);
  });
});
