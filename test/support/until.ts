// Waiting in tests for something another part of the system does in its own time (a worker's
// round, a notification, a process's write), by asking again and again: one loop for every test,
// so each says only what it waits for and how long that may take.
import { setTimeout as sleep } from 'node:timers/promises';

export interface UntilOptions {
  /** How long to keep asking (120 s by default: a process's work on a loaded 2-core machine). */
  readonly withinMs?: number;
  /** The pause between two asks (250 ms by default). */
  readonly everyMs?: number;
  /**
   * Why what is awaited can no longer come (a server that exited), or undefined while it still
   * can: the wait then fails at once instead of at its deadline.
   */
  readonly abandonIf?: () => string | undefined;
  /** More for the failure's message, read when the wait fails (a server's output). */
  readonly detail?: () => string;
}

/**
 * What `probe` answers once it answers something other than undefined or false: a value, or true
 * for a probe that answers whether it happened. Asked at once, then every `everyMs` until
 * `withinMs` has passed; throws an error naming `what` after that, or when `abandonIf` gives a reason.
 */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, options: UntilOptions = {}): Promise<T> {
  const { withinMs = 120_000, everyMs = 250, abandonIf, detail } = options;
  const started = Date.now();
  const failure = (why: string) => new Error(`${what}: ${why}${detail ? `\n${detail()}` : ''}`);
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer;
    const abandoned = abandonIf?.();
    if (abandoned !== undefined) throw failure(`given up after ${(Date.now() - started) / 1000} s: ${abandoned}`);
    if (Date.now() - started > withinMs) throw failure(`not within ${withinMs / 1000} s`);
    await sleep(everyMs);
  }
}
