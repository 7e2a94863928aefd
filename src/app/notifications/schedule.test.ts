// The retry schedule docs/notifications.md documents.
import { describe, expect, it } from 'vitest';
import { baseDelayMs, MAX_ATTEMPTS, nextAttemptAt, retryDelayMs } from './schedule.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('the retry schedule', () => {
  it('doubles from 30 s up to 6 h, for 22 attempts in all', () => {
    const delays = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => baseDelayMs(i + 1));
    expect(delays).toEqual([
      30_000, MIN, 2 * MIN, 4 * MIN, 8 * MIN, 16 * MIN, 32 * MIN, 64 * MIN, 128 * MIN, 256 * MIN,
      ...Array(11).fill(6 * HOUR),
    ]);
    const total = delays.reduce((a, b) => a + b, 0);
    expect(total).toBe(74 * HOUR + 30 * MIN + 90_000); // 3 days 2 h 31 min 30 s
  });

  it('adds up to 10% of jitter, the same for the same event', () => {
    for (let failures = 1; failures < MAX_ATTEMPTS; failures++) {
      const delay = retryDelayMs('EV01TESTEVENT', failures);
      expect(delay).toBeGreaterThanOrEqual(baseDelayMs(failures));
      expect(delay).toBeLessThan(baseDelayMs(failures) * 1.1);
      expect(retryDelayMs('EV01TESTEVENT', failures)).toBe(delay);
    }
    const spread = new Set(Array.from({ length: 20 }, (_, i) => retryDelayMs(`EV${i}`, 5)));
    expect(spread.size).toBeGreaterThan(10);
  });

  it('stops after the last attempt', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(nextAttemptAt('EV1', MAX_ATTEMPTS - 1, now)).not.toBeNull();
    expect(nextAttemptAt('EV1', MAX_ATTEMPTS, now)).toBeNull();
  });
});
