// Per-account request budget: a fixed one-second window, counted synchronously.
// (@fastify/rate-limit 11's local store hands back its live counter object, so requests that
// reach it in the same tick all read the final count and are all refused; counting here, in the
// hook that already knows the account, avoids both that and a second lookup.)

export interface RateVerdict {
  readonly allowed: boolean;
  /** Seconds until the window resets, for Retry-After. */
  readonly retryAfter: number;
}

const WINDOW_MS = 1_000;
const SWEEP_AT = 10_000;

export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  take(key: string, limit: number, now = Date.now()): RateVerdict {
    let window = this.#windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) {
      if (this.#windows.size >= SWEEP_AT) this.#sweep(now);
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return { allowed: window.count <= limit, retryAfter: Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000)) };
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (now - window.start >= WINDOW_MS) this.#windows.delete(key);
  }
}
