// The gateway's budgets, kept in this process's memory. Each is a small class behind a narrow
// interface (take / admit / release), so that a later store shared by several processes (a table,
// a cache server) can stand in for the Map without the hooks changing.
//
// - RateLimiter: requests per second per account (a fixed one-second window, counted
//   synchronously; @fastify/rate-limit 11's local store hands back its live counter object, so
//   requests that reach it in the same tick all read the final count and are all refused).
// - FailureLimiter: failed authentications (unknown account, wrong signature) per client address,
//   a token bucket: `limit` failures at once, refilled at `limit` per minute. An empty bucket
//   refuses the address's requests before their body is read or any account looked up.
// - FairShare: while the gateway is busy (at least `busy` requests received and not answered), the
//   requests it takes on are shared equally among the accounts sending them, per second: one
//   account's flood is refused with 429 before its handlers run, instead of queueing everyone
//   else behind it. An account alone is never limited by it: there is nobody to be fair to.
//   (Counting requests in flight per account would not do: on the embedded database a handler
//   runs to its end without yielding, so an account never has more than one in flight, while
//   its other requests wait, unattributed, in front of everyone else's.)

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

const REFILL_MS = 60_000;

export class FailureLimiter {
  readonly #limit: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /** `limit` failed authentications per address at once, and per minute after that. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Whether the address may try to authenticate now (nothing is counted). */
  check(address: string, now = Date.now()): RateVerdict {
    const tokens = this.#tokens(address, now);
    return { allowed: tokens >= 1, retryAfter: this.#retryAfter(tokens) };
  }

  /** Counts a failure; not allowed when the address had no failure left (answer 429, not 401/404). */
  fail(address: string, now = Date.now()): RateVerdict {
    const tokens = this.#tokens(address, now);
    const left = Math.max(0, tokens - 1);
    if (this.#buckets.size >= SWEEP_AT && !this.#buckets.has(address)) this.#sweep(now);
    this.#buckets.set(address, { tokens: left, at: now });
    return { allowed: tokens >= 1, retryAfter: this.#retryAfter(left) };
  }

  #tokens(address: string, now: number): number {
    const bucket = this.#buckets.get(address);
    if (!bucket) return this.#limit;
    return Math.min(this.#limit, bucket.tokens + ((now - bucket.at) * this.#limit) / REFILL_MS);
  }

  #retryAfter(tokens: number): number {
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil(((1 - tokens) * REFILL_MS) / this.#limit / 1000));
  }

  /** Forgets addresses whose bucket is full again. */
  #sweep(now: number): void {
    for (const [address] of this.#buckets) if (this.#tokens(address, now) >= this.#limit) this.#buckets.delete(address);
  }
}

export class FairShare {
  readonly #busy: number;
  #pending = 0;
  #window = { start: 0, total: 0, perAccount: new Map<string, number>() };

  /** The gateway is busy from `busy` requests received and not yet answered. */
  constructor(busy: number) {
    this.#busy = busy;
  }

  /** A request arrived (before its body is read: its account is not known yet). */
  arrive(): void {
    this.#pending += 1;
  }

  /** A request was answered or abandoned. */
  depart(): void {
    this.#pending = Math.max(0, this.#pending - 1);
  }

  /**
   * Whether the gateway takes on one more request of `account` now. While it is busy, the
   * requests it takes on in each second are shared among the accounts sending them: an account
   * that has had more than the others' average (and more than FLOOR) is refused; one alone never is.
   */
  admit(account: string, now = Date.now()): boolean {
    if (this.#pending < this.#busy) return true;
    if (now - this.#window.start >= WINDOW_MS) this.#window = { start: now, total: 0, perAccount: new Map() };
    const window = this.#window;
    const mine = window.perAccount.get(account) ?? 0;
    const others = window.perAccount.size - (mine === 0 ? 0 : 1);
    // Past the floor, an account that has had more than the others' average this second waits its turn.
    if (others > 0 && mine >= FLOOR && mine > (window.total - mine) / others) return false;
    window.perAccount.set(account, mine + 1);
    window.total += 1;
    return true;
  }
}

const FLOOR = 5;
