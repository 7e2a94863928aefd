// Business time in one process and across processes: `acquiro clock advance` (run here through
// runCommand, as the server runs it for a CLI on the embedded database) moves the gateway's
// deps.clock and that of another handle on the database (another process) within a moment, wakes
// the sleeping periodic tasks, and leaves the wall clock alone.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusinessClock } from '../../src/app/clock/business-clock.ts';
import { systemClock } from '../../src/app/context.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { startWorkers } from '../../src/jobs/runner.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { until, type UntilOptions } from '../support/until.ts';

const HOUR_MS = 3_600_000;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

/** The clock and the periodic tasks follow an advance within a moment. */
const A_MOMENT: UntilOptions = { withinMs: 5_000, everyMs: 20 };

describe('the business clock', () => {
  it('follows an advance in this process and in another, and never touches the wall clock', async () => {
    const deps = gw.gateway.deps;
    const other = await gw.anotherConnection();
    const elsewhere = await BusinessClock.open(other, { watch: true, wallClock: systemClock });
    try {
      const lead = () => deps.clock.now().getTime() - deps.wallClock.now().getTime();
      expect(Math.abs(lead())).toBeLessThan(1_000);

      const run = await runCommand(['clock', 'advance', '--hours', '30'], deps);
      expect(run).toMatchObject({ exitCode: 0, stderr: '' });
      expect(run.stdout).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00\n$/);

      await until('this process follows', () => lead() >= 30 * HOUR_MS, A_MOMENT);
      await until('another process follows', () => elsewhere.leadMs >= 30 * HOUR_MS, A_MOMENT);
      expect(Math.abs(deps.wallClock.now().getTime() - Date.now())).toBeLessThan(1_000);
      expect(Math.abs(Date.parse(run.stdout.replace('+00:00\n', 'Z')) - deps.clock.now().getTime())).toBeLessThan(2_000);
    } finally {
      await elsewhere.close();
      await other.close();
    }
  });

  it('wakes sleeping periodic tasks when it moves', async () => {
    let rounds = 0;
    const workers = startWorkers(gw.gateway.deps, [{ name: 'hourly', intervalMs: HOUR_MS, run: async () => (rounds++, 0) }]);
    try {
      await until('the first round', () => rounds === 1, A_MOMENT);
      await sleep(200);
      expect(rounds).toBe(1);
      expect((await runCommand(['clock', 'advance', '--days', '1'], gw.gateway.deps)).exitCode).toBe(0);
      await until('a round at once after the advance', () => rounds === 2, A_MOMENT);
    } finally {
      await workers.stop();
    }
  });

  it('shows what it was moved to, and refuses to go back or stand still', async () => {
    const shown = await runCommand(['clock', 'show'], gw.gateway.deps);
    const at = Date.parse(shown.stdout.replace('+00:00\n', 'Z'));
    expect(at - Date.now()).toBeGreaterThan(30 * HOUR_MS + 24 * HOUR_MS - 60_000);
    for (const args of [['--days', '-2'], ['--hours', '0'], ['--days', 'soon']]) {
      const refused = await runCommand(['clock', 'advance', ...args], gw.gateway.deps);
      expect(refused.exitCode, args.join(' ')).toBe(2);
    }
    const again = Date.parse((await runCommand(['clock', 'show'], gw.gateway.deps)).stdout.replace('+00:00\n', 'Z'));
    expect(again - at).toBeLessThan(60_000);
  });

  it('stays within 100 years of the wall clock, in one step or in many, so the database can still store its times', async () => {
    // `--hours 99999999` moved it to the year 13434: every timestamp written after that was
    // refused by the database (the payouts, billing and settlement tasks failed on every round),
    // and the clock never goes back.
    const before = (await runCommand(['clock', 'show'], gw.gateway.deps)).stdout;
    const far = await runCommand(['clock', 'advance', '--hours', '99999999'], gw.gateway.deps);
    expect([far.exitCode, far.stderr]).toEqual([2, 'error: the test clock runs at most 36500 days ahead of the wall clock\n']);
    expect((await runCommand(['clock', 'advance', '--days', '36000'], gw.gateway.deps)).exitCode).toBe(0);
    const step = await runCommand(['clock', 'advance', '--days', '600'], gw.gateway.deps);
    expect([step.exitCode, step.stderr]).toEqual([1, 'error: the test clock runs at most 36500 days ahead of the wall clock: it is 36002 days ahead now\n']);
    const shown = Date.parse((await runCommand(['clock', 'show'], gw.gateway.deps)).stdout.replace('+00:00\n', 'Z'));
    expect(shown - Date.parse(before.replace('+00:00\n', 'Z'))).toBeLessThan(36_000 * 24 * HOUR_MS + 60_000);
  });
});
