// Concurrent authorisations share their claim and outcome statements (src/db/coalesce.ts,
// src/db/repositories/payment-batches.ts): each payment still gets its own row, risk facts,
// journal, event and answer, exactly as when sent alone; twins and other merchants' orders keep
// their meaning; a batch the database refuses is sent again one payment at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotPath } from '../../src/db/repositories/payments.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment, freshCard, orderNo } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { refuseEventsBy, type OutboxRefusal } from '../support/outbox-refusal.ts';

let gw: TestGateway;
let merchant: SignedClient;
let other: SignedClient;
let refusal: OutboxRefusal;

beforeAll(async () => {
  gw = await startTestGateway({ env: { ACQUIRO_BUSY_IN_FLIGHT: '100000' } });
  merchant = await gw.merchant({ rateLimitPerSecond: 10_000 });
  other = await gw.merchant({ rateLimitPerSecond: 10_000 });
  refusal = await refuseEventsBy(gw.database, 'type');
});
afterAll(() => gw?.close());

const counts = () => {
  const { claim, outcome } = hotPath(gw.database);
  return { claims: { ...claim.stats }, outcomes: { ...outcome.stats } };
};
const since = (before: ReturnType<typeof counts>) => {
  const now = counts();
  const minus = (a: typeof now.claims, b: typeof now.claims) => ({
    requests: a.requests - b.requests,
    statements: a.statements - b.statements,
    fallbacks: a.fallbacks - b.fallbacks,
    empty: a.empty - b.empty,
  });
  return { claims: minus(now.claims, before.claims), outcomes: minus(now.outcomes, before.outcomes) };
};

/** Each payment of `account` whose order is listed, with how many events and ledger entries it has. */
async function writtenFor(accountId: string, orderNos: readonly string[]) {
  return gw.database.query<{ id: string; status: string; captured_amount: string; version: number; events: number; entries: number }>(
    `SELECT p.id, p.status, p.captured_amount, p.version,
       (SELECT count(*)::int FROM events e WHERE e.payment_id = p.id) AS events,
       (SELECT count(*)::int FROM ledger_entries l WHERE l.payment_id = p.id) AS entries
     FROM payments p WHERE p.account_id = $1 AND p.order_no = ANY($2::text[]) ORDER BY p.id`,
    [accountId, orderNos],
  );
}

describe('coalesced authorisations', () => {
  it('30 concurrent payments share statements, and each is written once, whole', async () => {
    const before = counts();
    const bodies = Array.from({ length: 30 }, () => cardPayment(merchant.ids, { card: freshCard() }));
    const answers = await Promise.all(bodies.map((body) => merchant.post('/v1/authorise', body)));
    expect(answers.map((a) => a.body.order_status)).toEqual(Array(30).fill('1'));
    const moved = since(before);
    expect(moved.claims.requests).toBe(30);
    expect(moved.claims.statements).toBeLessThan(30);
    // Written once each: no payment's outcome was missed by its batch (and re-read and re-decided).
    expect(moved.claims.empty).toBe(0);
    expect(moved.outcomes.empty).toBe(0);
    expect(moved.outcomes.requests).toBe(30);
    expect(moved.outcomes.statements).toBeLessThan(30);
    const rows = await writtenFor(merchant.ids.account_id, bodies.map((body) => String(body.order_no)));
    expect(rows.map((row) => row.id).sort()).toEqual(answers.map((a) => a.body.transaction_id).sort());
    expect(rows).toHaveLength(30);
    for (const row of rows) expect(row).toMatchObject({ status: 'captured', captured_amount: expect.anything(), version: 1, events: 1 });
    expect(new Set(rows.map((row) => row.entries)).size).toBe(1);
    await expectLedgerBalanced(gw);
  });

  it('answers each payment of a batch as it would alone: approved, declined and blocked side by side', async () => {
    const blockedCard = freshCard();
    // The blocked card's fingerprint is the gateway's to compute: a first payment records it.
    const first = await merchant.post('/v1/authorise', cardPayment(merchant.ids, { card: blockedCard }));
    await gw.database.query(
      `INSERT INTO risk_blocklist (account_id, kind, value) SELECT account_id, 'card', card_fingerprint FROM payments WHERE id = $1`,
      [first.body.transaction_id],
    );
    const before = counts();
    const bodies = [
      ...Array.from({ length: 6 }, () => cardPayment(merchant.ids, { card: freshCard() })),
      cardPayment(merchant.ids, { card: '4000000000000002' }),
      cardPayment(merchant.ids, { card: blockedCard }),
    ];
    const answers = await Promise.all(bodies.map((body) => merchant.post('/v1/authorise', body)));
    expect(since(before).claims.statements).toBeLessThan(bodies.length);
    expect(answers.slice(0, 6).map((a) => a.body.order_status)).toEqual(Array(6).fill('1'));
    expect(answers[6]!.body).toMatchObject({ order_status: '0', result_info: '2001:Declined' });
    expect(answers[7]!.body).toMatchObject({ order_status: '0', risk_action: 'reject' });
    expect(answers[7]!.body.risk_reasons).toContainEqual({ name: 'blocklist', status: 'hit' });
  });

  it('twins in one turn: one payment, and every twin answers it', async () => {
    const body = cardPayment(merchant.ids, { card: freshCard() });
    const answers = await Promise.all(Array.from({ length: 10 }, () => merchant.post('/v1/authorise', body)));
    const ids = new Set(answers.map((a) => a.body.transaction_id));
    expect(ids.size).toBe(1);
    expect(answers.every((a) => a.body.order_status === '1')).toBe(true);
    const [row] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE account_id = $1 AND order_no = $2`, [
      merchant.ids.account_id,
      body.order_no,
    ]);
    expect(row?.n).toBe(1);
  });

  it("one order number on two merchants in one batch: two payments, each on its own merchant's account", async () => {
    const shared = orderNo('SHARED');
    const [mine, theirs] = await Promise.all([
      merchant.post('/v1/authorise', cardPayment(merchant.ids, { order_no: shared, card: freshCard() })),
      other.post('/v1/authorise', cardPayment(other.ids, { order_no: shared, card: freshCard() })),
    ]);
    expect(mine.body.order_status).toBe('1');
    expect(theirs.body.order_status).toBe('1');
    const rows = await gw.database.query<{ account_id: string }>(`SELECT account_id FROM payments WHERE order_no = $1 ORDER BY account_id`, [shared]);
    expect(rows.map((row) => row.account_id).sort()).toEqual([merchant.ids.account_id, other.ids.account_id].sort());
  });

  it('a batch the database refuses is sent again one payment at a time: only the refused payment fails', async () => {
    // The refused one is held for review: approved by the processor at once, as the others are, so
    // its outcome goes in their statement (a decline's answer waits for the sandbox to remember it).
    await refusal.refuse('payment.review');
    try {
      const before = counts();
      const bodies = [...Array.from({ length: 5 }, () => cardPayment(merchant.ids, { card: freshCard() })), cardPayment(merchant.ids, { card: '4000000000004954' })];
      const answers = await Promise.all(bodies.map((body) => merchant.post('/v1/authorise', body)));
      expect(answers.slice(0, 5).map((a) => a.body.order_status)).toEqual(Array(5).fill('1'));
      expect(answers[5]!.status).toBeGreaterThanOrEqual(500);
      expect(since(before).outcomes.fallbacks).toBeGreaterThanOrEqual(1);
      // The refused payment kept its claim, waiting for the sweeper: no half-written outcome.
      const [left] = await writtenFor(merchant.ids.account_id, [String(bodies[5]!.order_no)]);
      expect(left).toMatchObject({ status: 'processing', events: 0, entries: 0 });
    } finally {
      await refusal.clear();
    }
    await expectLedgerBalanced(gw);
  });
});
