import { describe, expect, it } from 'vitest';
import { mapBounded } from './calls-in-flight.ts';

describe('mapBounded', () => {
  it('works on at most `limit` items at once, each next one as soon as one ends, and answers in order', async () => {
    let now = 0;
    let most = 0;
    const started: number[] = [];
    const results = await mapBounded([30, 5, 5, 5, 5], 2, async (ms, index) => {
      started.push(index);
      most = Math.max(most, ++now);
      await new Promise((resolve) => setTimeout(resolve, ms));
      now -= 1;
      return index * 10;
    });
    expect(results).toEqual([0, 10, 20, 30, 40]);
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('takes a limit below one as one, and an empty list as nothing to do', async () => {
    let now = 0;
    let most = 0;
    await mapBounded([1, 2, 3], 0, async () => {
      most = Math.max(most, ++now);
      await Promise.resolve();
      now -= 1;
    });
    expect(most).toBe(1);
    expect(await mapBounded([], 5, async () => 1)).toEqual([]);
  });
});
