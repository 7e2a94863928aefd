// Velocity limits exist for bursts (card testing: many payments of one card at once), and a burst's
// payments share their claim statement (src/db/coalesce.ts), whose snapshot shows none of them:
// each must count the payments of its statement claimed before it, as if sent one after the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { hotPath } from '../../src/db/repositories/payments.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment, freshCard } from '../support/fixtures.ts';
import { startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let shop: SignedClient;

beforeAll(async () => {
  // A burst of 20 from one account, never turned away as its share of a busy gateway.
  gw = await startTestGateway({ env: { ACQUIRO_BUSY_IN_FLIGHT: '100000' } });
  shop = await gw.merchant({ rateLimitPerSecond: 10_000 });
});
afterAll(() => gw?.close());

const setRisk = async (...assignments: string[]) => {
  const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
  const result = await runCommand(['risk', 'set', ...ids, ...assignments.flatMap((a) => ['--set', a])], gw.gateway.deps);
  expect(result.exitCode).toBe(0);
  gw.gateway.server.directory.forget(); // the server's 5-second account cache, skipped for the test
};

/** Sends the bodies at once; the risk actions in the order sent, and how many claim statements carried them. */
async function burst(bodies: Record<string, unknown>[]) {
  const before = hotPath(gw.database).claim.stats.statements;
  const answers = await Promise.all(bodies.map((body) => shop.post('/v1/authorise', body)));
  return { actions: answers.map((answer) => answer.body.risk_action as string), statements: hotPath(gw.database).claim.stats.statements - before };
}
const howMany = (actions: string[], action: string) => actions.filter((a) => a === action).length;

/**
 * Each claim statement lets at most `limit` through; statements on different connections at the
 * same time do not see each other (docs/risk.md, "Bursts"). PGlite has one connection: exactly `limit`.
 */
function expectLimited(accepted: number, limit: number, statements: number) {
  expect(accepted).toBeGreaterThanOrEqual(limit);
  expect(accepted).toBeLessThanOrEqual(limit * statements);
  if (TEST_DB === 'pglite' || statements === 1) expect(accepted).toBe(limit);
}

describe('velocity of a burst', () => {
  it('counts the concurrent payments of one card: 5 of 20 pass a limit of 5, the rest are held', async () => {
    await setRisk('velocityCard.limit=5');
    const card = freshCard();
    const other = freshCard();
    const { actions, statements } = await burst([
      ...Array.from({ length: 20 }, () => cardPayment(shop.ids, { card })),
      ...Array.from({ length: 4 }, () => cardPayment(shop.ids, { card: other })),
    ]);
    const ofCard = actions.slice(0, 20);
    expectLimited(howMany(ofCard, 'accept'), 5, statements);
    expect(howMany(ofCard, 'review')).toBe(20 - howMany(ofCard, 'accept'));
    // Another card of the same burst is counted on its own.
    expect(actions.slice(20)).toEqual(Array(4).fill('accept'));
  });

  it('counts the concurrent payments of one email (each with its own card)', async () => {
    await setRisk('velocityCard.limit=20', 'velocityEmail.limit=3', 'velocityEmail.score=50');
    const email = `burst-${freshCard()}@example.com`;
    const { actions, statements } = await burst(Array.from({ length: 12 }, () => cardPayment(shop.ids, { card: freshCard(), shopper_email: email })));
    expectLimited(howMany(actions, 'accept'), 3, statements);
    expect(howMany(actions, 'review')).toBe(12 - howMany(actions, 'accept'));
  });
});
