// Property: whatever sequence of captures, cancels, reviews and refunds merchants send, some of
// them at the same time, the ledger balances, each payment's books match its row, refunds never
// exceed what was captured, and the answers told the truth (what they report as done is exactly
// what the payment shows).
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatAmount } from '../../src/domain/money.ts';
import { PAYMENT_MACHINE, type PaymentStatus } from '../../src/domain/payment.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';
import { batch, expectLedgerBalanced, orderOf, pay, paymentRow, type Txn } from '../support/lifecycle.ts';

let gw: TestGateway;
let auto: SignedClient;
let manual: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway();
  auto = await gw.merchant({ feeBps: 175, rateLimitPerSecond: 10_000 });
  manual = await gw.merchant({ captureMode: 'manual', feeBps: 30, rateLimitPerSecond: 10_000 });
});
afterAll(() => gw?.close());

interface Step {
  readonly op: 'capture' | 'cancel' | 'refund' | 'review';
  /** Which of the run's payments. */
  readonly target: number;
  /** Percent of the payment's amount to capture or refund. */
  readonly percent: number;
  readonly approve: boolean;
  /** Runs at the same time as the step before it. */
  readonly together: boolean;
}

const step = fc.record({
  op: fc.constantFrom('capture', 'cancel', 'refund', 'review'),
  target: fc.nat({ max: 3 }),
  percent: fc.integer({ min: 1, max: 110 }),
  approve: fc.boolean(),
  together: fc.boolean(),
}) satisfies fc.Arbitrary<Step>;

interface Subject {
  readonly client: SignedClient;
  readonly txn: Txn;
  readonly minor: number;
  readonly auto: boolean;
  captured: number;
  refunded: number;
}

async function subjects(amounts: readonly number[]): Promise<Subject[]> {
  const kinds = [
    { client: manual, card: '4111111111111111' },
    { client: auto, card: '4111111111111111' },
    { client: auto, card: '4000000000004954' },
    { client: manual, card: '4000000000004954' },
  ];
  return Promise.all(
    kinds.map(async ({ client, card }, i) => {
      const minor = amounts[i]!;
      const txn = await pay(client, { card, amount: formatAmount(minor, 'USD') });
      const row = await paymentRow(gw, txn.transaction_id);
      return { client, txn, minor, auto: client === auto, captured: row.captured, refunded: 0 };
    }),
  );
}

/** Whether the state machine can take a payment from `from` to `to` in any number of moves. */
function reachable(from: PaymentStatus, to: PaymentStatus): boolean {
  const seen = new Set<PaymentStatus>([from]);
  const queue = [from];
  while (queue.length > 0) {
    const state = queue.shift()!;
    if (state === to) return true;
    for (const next of PAYMENT_MACHINE.states) {
      if (PAYMENT_MACHINE.canMove(state, next) && !seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}

const statusOf = async (id: string) =>
  (await gw.database.query<{ status: PaymentStatus }>('SELECT status FROM payments WHERE id = $1', [id]))[0]!.status;

/** Sends one step and updates the model from what the answer says was done. */
async function send(subject: Subject, s: Step): Promise<void> {
  const part = formatAmount(Math.max(1, Math.floor((subject.minor * s.percent) / 100)), 'USD');
  switch (s.op) {
    case 'capture': {
      const entry = (await batch(subject.client, 'capture_orders', [orderOf(subject.txn, { amount: part })])).body.capture_orders[0];
      if (entry.capture_status === '1') subject.captured = Number(part.replace('.', ''));
      return expect(['0', '1']).toContain(entry.capture_status);
    }
    case 'cancel': {
      const entry = (await batch(subject.client, 'cancel_orders', [orderOf(subject.txn)])).body.cancel_orders[0];
      return expect(['0', '1']).toContain(entry.cancel_status);
    }
    case 'review': {
      const entry = (await batch(subject.client, 'review_orders', [orderOf(subject.txn, { review_flag: s.approve ? '1' : '0' })])).body.review_orders[0];
      if (entry.review_status === '1' && s.approve && subject.auto) subject.captured = subject.minor;
      return expect(['0', '1']).toContain(entry.review_status);
    }
    case 'refund': {
      const entry = (await batch(subject.client, 'refund_orders', [orderOf(subject.txn, { refund_amount: part })])).body.refund_orders[0];
      if (entry.refund_status === '1') subject.refunded += Number(part.replace('.', ''));
      return expect(['0', '1']).toContain(entry.refund_status);
    }
  }
}

it('keeps the ledger balanced and refunds within captures, whatever the merchants send', { timeout: 300_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 50_000 }), { minLength: 4, maxLength: 4 }), fc.array(step, { minLength: 1, maxLength: 12 }), async (amounts, steps) => {
      const run = await subjects(amounts);
      // Consecutive steps marked `together` are sent at once.
      const groups: Step[][] = [];
      for (const s of steps) {
        if (s.together && groups.length > 0) groups[groups.length - 1]!.push(s);
        else groups.push([s]);
      }
      // Every status a payment shows after a group was reached by moves the state table allows.
      const seen = await Promise.all(run.map((subject) => statusOf(subject.txn.transaction_id)));
      for (const group of groups) {
        await Promise.all(group.map((s) => send(run[s.target]!, s)));
        for (const [i, subject] of run.entries()) {
          const now = await statusOf(subject.txn.transaction_id);
          expect(reachable(seen[i]!, now), `${seen[i]} → ${now}`).toBe(true);
          seen[i] = now;
        }
      }
      for (const subject of run) {
        const row = await paymentRow(gw, subject.txn.transaction_id);
        expect(row.refunded).toBeLessThanOrEqual(row.captured);
        expect(row.captured).toBeLessThanOrEqual(subject.minor);
        expect({ captured: row.captured, refunded: row.refunded }).toEqual({ captured: subject.captured, refunded: subject.refunded });
      }
      await expectLedgerBalanced(gw);
    }),
    { numRuns: TEST_DB === 'postgres' ? 60 : 30 },
  );
});
