// Runs the periodic tasks of src/jobs/tasks.ts inside a process (`npm start` by default, or
// `acquiro worker`). Each task claims its own work with row locks, so several workers on one
// PostgreSQL share it without doing any item twice at once.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from '../app/context.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

export interface PeriodicTask {
  readonly name: string;
  /** Pause between rounds that found nothing to do. */
  readonly intervalMs: number;
  /** One round of work; answers how many items it handled. A full round is followed at once by another. */
  run(deps: Deps): Promise<number>;
  /** Work a round left running (notification attempts): awaited when the workers stop, before the database closes. */
  drain?(deps: Deps): Promise<void>;
}

export interface Workers {
  stop(): Promise<void>;
}

const MAX_ERROR_BACKOFF_MS = 30_000;
/** While the database is away the tasks look again this often at most, so they resume soon after it returns. */
const MAX_UNAVAILABLE_BACKOFF_MS = 2_000;

export function startWorkers(deps: Deps, tasks: readonly PeriodicTask[]): Workers {
  const stopping = new AbortController();
  // A jump of business time (the sandbox's test clock) wakes every sleeping task: whatever fell
  // due is taken at once, not after the task's interval.
  let woken = new AbortController();
  const unsubscribe = deps.clock.onAdvance?.(() => {
    woken.abort();
    woken = new AbortController();
  });
  const loops = tasks.map(async (task) => {
    let failures = 0;
    while (!stopping.signal.aborted) {
      let handled = 0;
      let ceiling = MAX_ERROR_BACKOFF_MS;
      try {
        handled = await task.run(deps);
        failures = 0;
      } catch (error) {
        failures += 1;
        if (isDatabaseUnavailable(error)) {
          ceiling = MAX_UNAVAILABLE_BACKOFF_MS;
          // The process stays up and tries again; one short line, not a stack per round.
          if (failures === 1) deps.log.warn({ task: task.name }, 'database unavailable: the task waits for it');
        } else deps.log.error({ err: error, task: task.name }, 'periodic task failed');
      }
      if (handled > 0 && failures === 0) continue;
      const pause = failures > 0 ? Math.min(ceiling, task.intervalMs * 2 ** failures) : task.intervalMs;
      await sleep(pause, undefined, { signal: AbortSignal.any([stopping.signal, woken.signal]) }).catch(() => {});
    }
  });
  return {
    async stop() {
      unsubscribe?.();
      stopping.abort();
      await Promise.all(loops);
      await Promise.all(tasks.map((task) => task.drain?.(deps)));
    },
  };
}
