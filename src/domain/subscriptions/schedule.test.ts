import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addIntervals, amountOfCycle, cycleWindowEnd, defaultDunning, dueAt, retriesEnd, retryTimes, type Interval, type Plan } from './schedule.ts';

const plan = (firstPaymentAt: string, overrides: Partial<Plan> = {}): Plan => ({
  interval: 'month',
  intervalCount: 1,
  firstPaymentAt: new Date(firstPaymentAt),
  billingCycles: 0,
  ...overrides,
});
const iso = (date: Date | null) => date?.toISOString() ?? null;

describe('due dates', () => {
  it('charges a subscription begun on 31 January on the last day of February, then on 31 March', () => {
    const p = plan('2026-01-31T10:15:00Z');
    expect([1, 2, 3, 4].map((n) => iso(dueAt(p, n)))).toEqual([
      '2026-01-31T10:15:00.000Z',
      '2026-02-28T10:15:00.000Z',
      '2026-03-31T10:15:00.000Z',
      '2026-04-30T10:15:00.000Z',
    ]);
    expect(iso(dueAt(plan('2028-01-31T00:00:00Z'), 2))).toBe('2028-02-29T00:00:00.000Z');
  });

  it('closes a cycle’s window when the next cycle falls due, also for the contract’s last cycle', () => {
    const p = plan('2026-01-31T10:15:00Z', { billingCycles: 2, contractEnd: '2026-03-15' });
    expect(dueAt(p, 3)).toBeNull();
    expect([1, 2].map((n) => iso(cycleWindowEnd(p, n)))).toEqual(['2026-02-28T10:15:00.000Z', '2026-03-31T10:15:00.000Z']);
  });

  it('keeps 29 February anniversaries on the last day of February', () => {
    const p = plan('2028-02-29T08:00:00Z', { interval: 'year' });
    expect([2, 4, 5].map((n) => iso(dueAt(p, n)))).toEqual(['2029-02-28T08:00:00.000Z', '2031-02-28T08:00:00.000Z', '2032-02-29T08:00:00.000Z']);
  });

  it('counts days and weeks in exact periods, and interval_count intervals per charge', () => {
    expect(iso(dueAt(plan('2026-03-28T12:00:00Z', { interval: 'day', intervalCount: 3 }), 3))).toBe('2026-04-03T12:00:00.000Z');
    expect(iso(dueAt(plan('2026-12-30T12:00:00Z', { interval: 'week', intervalCount: 2 }), 2))).toBe('2027-01-13T12:00:00.000Z');
    expect(iso(dueAt(plan('2026-08-31T12:00:00Z', { intervalCount: 6 }), 2))).toBe('2027-02-28T12:00:00.000Z');
  });

  it('stops after billing_cycle charges, the first payment included', () => {
    const p = plan('2026-01-10T00:00:00Z', { billingCycles: 3 });
    expect(dueAt(p, 3)).not.toBeNull();
    expect(dueAt(p, 4)).toBeNull();
  });

  it('takes no charge after contract_end; one due on that day is taken', () => {
    const p = plan('2026-01-10T09:00:00Z', { contractEnd: '2026-03-10' });
    expect(iso(dueAt(p, 3))).toBe('2026-03-10T09:00:00.000Z');
    expect(dueAt(p, 4)).toBeNull();
  });

  it('anchors the recurring charges on contract_start when it comes after the first recurring due date', () => {
    const later = plan('2026-01-10T09:00:00Z', { contractStart: '2026-05-31' });
    expect([2, 3, 4].map((n) => iso(dueAt(later, n)))).toEqual(['2026-05-31T09:00:00.000Z', '2026-06-30T09:00:00.000Z', '2026-07-31T09:00:00.000Z']);
    const earlier = plan('2026-01-10T09:00:00Z', { contractStart: '2026-01-20' });
    expect(iso(dueAt(earlier, 2))).toBe('2026-02-10T09:00:00.000Z');
  });

  it('never falls due past the year 9999: the contract ends with the cycle before, and its window runs to the calendar’s end', () => {
    const p = plan('9999-10-31T10:15:00Z');
    expect([2, 3].map((n) => iso(dueAt(p, n)))).toEqual(['9999-11-30T10:15:00.000Z', '9999-12-31T10:15:00.000Z']);
    expect(dueAt(p, 4)).toBeNull();
    expect(iso(cycleWindowEnd(p, 3))).toBe('9999-12-31T23:59:59.999Z');
    expect(dueAt(plan('2026-01-31T10:15:00Z', { interval: 'year', intervalCount: 8000 }), 2)).toBeNull();
  });

  it('property: over every anchor day of 2024–2031, monthly charges never skip, double or drift', () => {
    // 340 000 due dates: each is checked in plain code and only what is wrong goes to expect (a
    // million expect calls made this the suite's slowest unit test).
    const wrong: string[] = [];
    const start = Date.UTC(2024, 0, 1);
    for (let day = 0; day < 8 * 366; day++) {
      const anchor = new Date(start + day * 86_400_000 + 37_000);
      if (anchor.getUTCFullYear() > 2031) break;
      for (const count of [1, 2, 3, 12]) {
        let previous = anchor;
        for (let n = 2; n <= 30; n++) {
          const due = dueAt(plan(anchor.toISOString(), { intervalCount: count }), n)!;
          const months = (due.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + due.getUTCMonth() - anchor.getUTCMonth();
          const monthLength = new Date(Date.UTC(due.getUTCFullYear(), due.getUTCMonth() + 1, 0)).getUTCDate();
          const problems = [
            months === (n - 1) * count ? '' : `${months} months after the anchor, not ${(n - 1) * count}`,
            due.getUTCDate() === Math.min(anchor.getUTCDate(), monthLength) ? '' : 'day of month',
            due.getTime() % 86_400_000 === anchor.getTime() % 86_400_000 ? '' : 'time of day',
            due > previous ? '' : 'not after the previous one',
          ].filter(Boolean);
          if (problems.length > 0) wrong.push(`anchor ${anchor.toISOString()}, every ${count}, charge ${n}: ${due.toISOString()} (${problems.join(', ')})`);
          previous = due;
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('property: any interval, a due date is the anchor moved by (n − 1) × count intervals, strictly increasing', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom<Interval>('day', 'week', 'month', 'year'),
        fc.integer({ min: 1, max: 12 }),
        (anchor, interval, count) => {
          const p = plan(anchor.toISOString(), { interval, intervalCount: count });
          let previous = dueAt(p, 1)!;
          for (let n = 2; n <= 25; n++) {
            const due = dueAt(p, n)!;
            expect(due.getTime()).toBe(addIntervals(anchor, interval, (n - 1) * count).getTime());
            expect(due > previous).toBe(true);
            previous = due;
          }
        },
      ),
    );
  });
});

describe('amounts', () => {
  const pricing = { firstAmountMinor: 100, contractAmountMinor: 1_000, promotionCycles: 3 };
  it('takes the first payment amount for the promotion cycles, contract_amount after', () => {
    expect([1, 2, 3, 4].map((n) => amountOfCycle(pricing, n))).toEqual([100, 100, 100, 1_000]);
    for (const promotionCycles of [0, 1]) expect(amountOfCycle({ ...pricing, promotionCycles }, 2)).toBe(1_000);
  });
});

describe('dunning', () => {
  it('retries a monthly charge 1, 3 and 7 days after it fell due', () => {
    const due = new Date('2026-02-28T10:00:00Z');
    const next = new Date('2026-03-31T10:00:00Z');
    expect(retryTimes(due, next, defaultDunning('month', 1)).map(iso)).toEqual([
      '2026-03-01T10:00:00.000Z',
      '2026-03-03T10:00:00.000Z',
      '2026-03-07T10:00:00.000Z',
    ]);
  });

  it('never lets a retry reach the next cycle, whatever the interval or the policy', () => {
    fc.assert(
      fc.property(fc.constantFrom<Interval>('day', 'week', 'month', 'year'), fc.integer({ min: 1, max: 6 }), fc.array(fc.integer({ min: 1, max: 60 * 86_400_000 }), { maxLength: 6 }), (interval, count, custom) => {
        const p = plan('2026-01-31T10:00:00Z', { interval, intervalCount: count });
        const due = dueAt(p, 2)!;
        const next = dueAt(p, 3)!;
        for (const policy of [defaultDunning(interval, count), { retryOffsetsMs: custom }]) {
          for (const time of retryTimes(due, next, policy)) expect(time > due && time < next).toBe(true);
        }
        // The default keeps every retry it names.
        expect(retryTimes(due, next, defaultDunning(interval, count))).toHaveLength(3);
      }),
    );
  });

  it('ends the last cycle’s retries at its window, and never after contract_end', () => {
    const last = plan('2026-01-31T10:00:00Z', { interval: 'week', billingCycles: 2 });
    expect(dueAt(last, 3)).toBeNull();
    expect(iso(retriesEnd(last, 2))).toBe('2026-02-14T10:00:00.000Z');
    const ending = plan('2026-01-31T10:00:00Z', { contractEnd: '2026-03-02' });
    expect(dueAt(ending, 3)).toBeNull();
    expect(iso(retriesEnd(ending, 2))).toBe('2026-03-03T00:00:00.000Z');
    expect(retryTimes(dueAt(ending, 2)!, retriesEnd(ending, 2), defaultDunning('month', 1)).map(iso)).toEqual(['2026-03-01T10:00:00.000Z']);
    // A cycle with a next one: its window is the next due time.
    expect(retriesEnd(ending, 1)).toEqual(dueAt(ending, 2));
  });
});
