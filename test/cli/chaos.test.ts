// The short chaos run (`npm run chaos` is the long one): 2 gateways and 2 workers as real
// processes on PostgreSQL under the actors' mixed load, a random one SIGKILLed and restarted at
// random moments, the test clock moved a day at a time for daily subscriptions and chargebacks;
// afterwards no double charge, capture, refund or subscription cycle, no acknowledged write lost,
// every due cycle charged, each chargeback recorded once, the ledger check clean, and nothing
// left waiting on the processor. bench/chaos, docs/reliability.md.
import { describe, expect, it } from 'vitest';
import { describeFigures, runChaos } from '../../bench/chaos/chaos.ts';
import { TEST_DB } from '../support/gateway.ts';
import { takeFleetLock } from '../support/processes.ts';

// Real processes on a PostgreSQL schema of the run's own: once, in the PostgreSQL project.
describe.runIf(TEST_DB === 'postgres')('chaos', () => {
  it('loses and doubles nothing while processes are killed', async () => {
    const release = await takeFleetLock();
    const figures = await runChaos({ loadMs: 12_000, quietMs: 4_000, minKills: 5, meanKillGapMs: 1_200, lanes: 4, drainMs: 0 }).finally(release);
    const text = describeFigures(figures);
    expect(figures.anomalies, text).toEqual([]);
    expect(figures.checksFire, 'the checks find a forged acknowledgement and refunds without keys').toBe(true);
    expect(figures.kills.gateways + figures.kills.workers, text).toBeGreaterThanOrEqual(5);
    expect(figures.acknowledged.payments, text).toBeGreaterThan(10);
    expect(figures.acknowledged.refunds, text).toBeGreaterThan(0);
    expect(figures.cycles.charged, 'subscription cycles charged while the clock moved').toBeGreaterThan(0);
    expect(figures.disputes.opened, 'chargebacks recorded while the clock moved').toBeGreaterThan(0);
    console.log(text);
  });
});
