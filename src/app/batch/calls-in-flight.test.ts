import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { ok, type Result } from '../../connectors/port.ts';
import { callConnector, callSlots, mapBounded } from './calls-in-flight.ts';

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

describe('callConnector', () => {
  // A 0.1 s connector timeout.
  const config = loadConfig({ ACQUIRO_CONNECTOR_TIMEOUT: '0.1' });

  it('answers timeout at the deadline and aborts the call; alone, a call takes no slot', async () => {
    let aborted = false;
    const started = performance.now();
    const result = await callConnector({ config }, (signal) => {
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise<Result<number>>(() => {});
    });
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(aborted).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("holds a slot past the deadline until the connector's promise settles; a call that waits a timeout for one is not sent", async () => {
    const deps = { config, calls: callSlots(1) };
    let finish: (() => void) | undefined;
    // Ignores the signal: its promise settles only when the test says.
    const stubborn = await callConnector(deps, () => new Promise<Result<string>>((resolve) => (finish = () => resolve(ok('late')))));
    expect(stubborn).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    let sent = 0;
    const waited = await callConnector(deps, async () => ok(++sent));
    expect(waited).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    expect(sent).toBe(0);
    // Once the stubborn call settles, its slot serves the next call at once, and a waiting one is handed it.
    const waiting = callConnector(deps, async () => ok(++sent));
    finish!();
    expect(await waiting).toEqual({ ok: true, value: 1 });
    expect(await callConnector(deps, async () => ok(++sent))).toEqual({ ok: true, value: 2 });
  });

  it('gives a slot back at the deadline when the connector honours the signal', async () => {
    const deps = { config, calls: callSlots(1) };
    const honouring = (signal: AbortSignal) => new Promise<Result<number>>((resolve) => signal.addEventListener('abort', () => resolve(ok(0))));
    expect(await callConnector(deps, honouring)).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(await callConnector(deps, async () => ok(1))).toEqual({ ok: true, value: 1 });
  });
});
