// The ledger through its commands: `acquiro ledger check` passes on books the operations wrote and
// fails (exit 1, naming the problem) on books that do not add up; `acquiro ledger balance`
// derives an account's balances from the entries alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { cancel, capture, pay, refund } from '../support/lifecycle.ts';

let gw: TestGateway;
let auto: SignedClient;
let manual: SignedClient;

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const ids = (client: SignedClient) => ['--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id];

beforeAll(async () => {
  gw = await startTestGateway();
  auto = await gw.merchant({ feeBps: 250 });
  manual = await gw.merchant({ captureMode: 'manual' });
  // Every kind of movement: capture with fee, refunds, partial capture, cancel, a hold, a review void.
  const sold = await pay(auto, { amount: '20.00' });
  await refund(auto, sold, '5.00');
  await pay(auto, { currency: 'EUR', amount: '7.00' });
  const partial = await pay(manual, { amount: '10.00' });
  await capture(manual, partial, { amount: '6.00' });
  await cancel(manual, await pay(manual));
  await pay(manual, { amount: '3.00' });
  await pay(manual, { card: '4000000000004954', amount: '4.00' });
});
afterAll(() => gw?.close());

describe('acquiro ledger balance', () => {
  it("derives each currency's balance from the entries: captures less fees and refunds", async () => {
    const result = await acquiro('ledger', 'balance', ...ids(auto), '--json');
    expect(result.exitCode).toBe(0);
    // USD: 20.00 captured - 0.50 fee - 5.00 refunded; EUR: 7.00 - 0.18 fee (2.5% of 7.00 = 0.175, half up).
    expect(JSON.parse(result.stdout)).toEqual({
      account_id: auto.ids.account_id,
      balances: [
        { currency: 'EUR', balance: '6.82', held: '0.00', receivable: '7.00', fees: '0.18' },
        { currency: 'USD', balance: '14.50', held: '0.00', receivable: '15.00', fees: '0.50' },
      ],
    });
  });

  it('shows holds that are not captured yet', async () => {
    const result = await acquiro('ledger', 'balance', ...ids(manual));
    expect(result.stdout).toMatch(/^currency\s+balance\s+held\s+receivable\s+fees\nUSD\s+6\.00\s+7\.00\s+6\.00\s+0\.00$/m);
  });

  it('refuses an account of another merchant', async () => {
    const result = await acquiro('ledger', 'balance', '--merchant-id', auto.ids.merchant_id, '--account-id', manual.ids.account_id);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`no account ${manual.ids.account_id} under merchant ${auto.ids.merchant_id}`);
  });
});

describe('acquiro ledger check', () => {
  it('passes on the books the operations wrote', async () => {
    const text = await acquiro('ledger', 'check');
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/^ok: \d+ journals balance, 6 payments match their books, \d+ balances match their entries, \d+ payouts match their books\n$/);
    const json = await acquiro('ledger', 'check', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, payments: 6, violations: [] });
  });

  // These break the books on purpose and mend them again, so that each fails alone.
  it.each([
    [
      'an unbalanced journal',
      `UPDATE ledger_entries SET amount = amount + 1 WHERE kind = 'refund' AND book = 'merchant_balance'`,
      `UPDATE ledger_entries SET amount = amount - 1 WHERE kind = 'refund' AND book = 'merchant_balance'`,
      'journal_unbalanced',
    ],
    [
      'a captured amount the books do not show',
      `UPDATE payments SET captured_amount = captured_amount - 1 WHERE status = 'partially_refunded'`,
      `UPDATE payments SET captured_amount = captured_amount + 1 WHERE status = 'partially_refunded'`,
      'captured',
    ],
    ['a refund the payment does not count', `UPDATE refunds SET status = 'pending'`, `UPDATE refunds SET status = 'succeeded'`, 'refunded'],
    [
      'a hold left on a failed payment',
      `UPDATE payments SET status = 'failed' WHERE status = 'authorised' AND amount = 300`,
      `UPDATE payments SET status = 'authorised' WHERE status = 'failed' AND amount = 300`,
      'hold',
    ],
    ['refunds above the capture', `UPDATE refunds SET amount = amount * 100`, `UPDATE refunds SET amount = amount / 100`, 'over_refund'],
    [
      'a reservation the refunds do not add up to',
      `UPDATE payments SET refund_reserved = captured_amount WHERE status = 'partially_refunded'`,
      `UPDATE payments p SET refund_reserved = (SELECT coalesce(sum(amount), 0) FROM refunds r WHERE r.payment_id = p.id AND r.status <> 'failed')`,
      'reserved',
    ],
    [
      // Balanced, in a merchant's account, and so settled and paid out like any capture, but of
      // no payment: no payment's books counted it, and the check passed.
      'captured money of no payment',
      `INSERT INTO ledger_entries (journal_id, account_id, book, kind, currency, amount, booked_at)
       SELECT 'TORPHAN:capture', account_id, book, 'capture', currency, amount, now()
         FROM (SELECT account_id, currency FROM payments LIMIT 1) p, (VALUES ('processor_receivable', 500), ('merchant_balance', -500)) AS e(book, amount)`,
      `DELETE FROM ledger_entries WHERE journal_id = 'TORPHAN:capture'`,
      'journal_orphan',
    ],
  ])('fails with exit code 1 on %s', async (_name, breakIt, mendIt, problem) => {
    await gw.database.query(breakIt);
    try {
      const result = await acquiro('ledger', 'check', '--json');
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/^error: the ledger check found violations/);
      expect(JSON.parse(result.stdout).violations.map((v: { problem: string }) => v.problem)).toContain(problem);
    } finally {
      await gw.database.query(mendIt);
    }
    expect((await acquiro('ledger', 'check')).exitCode).toBe(0);
  });
});
