// The gateway's budgets. Each is a small class behind a narrow interface (take / check+fail /
// admit+done) over this process's memory; what must hold across processes is held by dividing
// it: each gateway enforces its part of an account's rate limit (the limit divided by the
// gateways alive, src/app/processes/presence.ts), so no request writes to the database.
//
// - RateLimiter: requests per second per account, a token bucket (`limit` at once, refilled at
//   `limit` per second), counted synchronously (@fastify/rate-limit 11's local store hands back
//   its live counter object, so requests that reach it in the same tick all read the final count).
// - FailureLimiter: failed authentications (unknown account, wrong signature) per client address
//   (an IPv6 client per /64: src/domain/ip.ts, budgetKeyOf), a token bucket: `limit` failures at once, refilled at `limit` per minute. An empty bucket
//   refuses the address's requests before their body is read or any account looked up. The
//   portal's sign-in keeps one of its own for failed passwords (src/web/portal/auth-routes.ts),
//   taken before each password is checked and given back when it was right (take / giveBack).
// - FairShare: while the gateway is busy (at least `busy` requests received and not answered), the
//   requests it takes on are shared equally among the accounts competing for it now: one
//   account's flood is refused with 429 before its handlers run, instead of queueing everyone
//   else behind it. Each account's share is counted over about the last second, decayed, and
//   compared only with accounts still sending (a request in flight, or one admitted or answered in
//   the last quarter second, or just before a request not identified yet arrived): an account
//   that bursts right after another stopped is not refused for the other's past (a fixed
//   per-second window did that). An account alone is never limited.

import { budgetKeyOf } from '../../domain/ip.ts';

/**
 * One gateway's part of a limit held across the `gateways` alive (at least 1 each): a balancer that
 * spreads requests evenly gives the account, or the address, `limit` in all.
 */
export function gatewayShare(limit: number, gateways: number): number {
  return Math.max(1, limit / gateways);
}

export interface RateVerdict {
  readonly allowed: boolean;
  /** Seconds until a request would be allowed again, for Retry-After. */
  readonly retryAfter: number;
}

const WINDOW_MS = 1_000;
const SWEEP_AT = 10_000;

export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /**
   * One request of `key` against `limit` per second: a token bucket holding `limit` tokens,
   * refilled continuously at `limit` per second. Unlike a fixed window, no burst at a window's
   * edge doubles the limit, and the limit may change (processes come and go) between calls.
   */
  take(key: string, limit: number, now = performance.now()): RateVerdict {
    const bucket = this.#buckets.get(key);
    const tokens = bucket ? Math.min(limit, bucket.tokens + ((now - bucket.at) * limit) / WINDOW_MS) : limit;
    if (!bucket && this.#buckets.size >= SWEEP_AT) this.#sweep(now, limit);
    const allowed = tokens >= 1;
    this.#buckets.set(key, { tokens: allowed ? tokens - 1 : tokens, at: now });
    return { allowed, retryAfter: allowed ? 0 : Math.max(1, Math.ceil(((1 - tokens) * WINDOW_MS) / limit / 1000)) };
  }

  /** Forgets buckets idle long enough to be full again at any limit of at least `limit`. */
  #sweep(now: number, limit: number): void {
    for (const [key, bucket] of this.#buckets) if (bucket.tokens + ((now - bucket.at) * limit) / WINDOW_MS >= limit) this.#buckets.delete(key);
  }
}

const REFILL_MS = 60_000;

export class FailureLimiter {
  readonly #limit: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /**
   * `limit()` failed authentications per address at once, and per minute after that. Asked on
   * each call: with several gateways each holds its part of the budget (as for the rate limit).
   */
  constructor(limit: number | (() => number)) {
    this.#limit = typeof limit === 'number' ? () => limit : limit;
  }

  // Each method counts `ip` by budgetKeyOf: an IPv6 client by its /64, which it holds whole.

  /** Whether the address may try to authenticate now (nothing is counted). */
  check(ip: string, now = Date.now()): RateVerdict {
    const address = budgetKeyOf(ip);
    const limit = this.#limit();
    const tokens = this.#tokens(address, now, limit);
    return { allowed: tokens >= 1, retryAfter: this.#retryAfter(tokens, limit) };
  }

  /** Counts a failure; not allowed when the address had no failure left (answer 429, not 401/404). */
  fail(ip: string, now = Date.now()): RateVerdict {
    const address = budgetKeyOf(ip);
    const limit = this.#limit();
    const tokens = this.#tokens(address, now, limit);
    const left = Math.max(0, tokens - 1);
    if (this.#buckets.size >= SWEEP_AT && !this.#buckets.has(address)) this.#sweep(now, limit);
    this.#buckets.set(address, { tokens: left, at: now });
    return { allowed: tokens >= 1, retryAfter: this.#retryAfter(left, limit) };
  }

  /**
   * Takes one failure from the address's budget before an attempt whose outcome is not known yet
   * (a password still to hash), so that attempts in flight at once are counted as they arrive, not
   * as they end; not allowed, and nothing taken, when none is left. giveBack returns it if the
   * attempt succeeds.
   */
  take(ip: string, now = Date.now()): RateVerdict {
    const address = budgetKeyOf(ip);
    const limit = this.#limit();
    const tokens = this.#tokens(address, now, limit);
    if (tokens < 1) return { allowed: false, retryAfter: this.#retryAfter(tokens, limit) };
    if (this.#buckets.size >= SWEEP_AT && !this.#buckets.has(address)) this.#sweep(now, limit);
    this.#buckets.set(address, { tokens: tokens - 1, at: now });
    return { allowed: true, retryAfter: 0 };
  }

  /** Returns what take() took: the attempt succeeded, and successes never count. */
  giveBack(ip: string, now = Date.now()): void {
    const address = budgetKeyOf(ip);
    const limit = this.#limit();
    this.#buckets.set(address, { tokens: Math.min(limit, this.#tokens(address, now, limit) + 1), at: now });
  }

  #tokens(address: string, now: number, limit: number): number {
    const bucket = this.#buckets.get(address);
    if (!bucket) return limit;
    return Math.min(limit, bucket.tokens + ((now - bucket.at) * limit) / REFILL_MS);
  }

  #retryAfter(tokens: number, limit: number): number {
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil(((1 - tokens) * REFILL_MS) / limit / 1000));
  }

  /** Forgets addresses whose bucket is full again. */
  #sweep(now: number, limit: number): void {
    for (const [address] of this.#buckets) if (this.#tokens(address, now, limit) >= limit) this.#buckets.delete(address);
  }
}

/**
 * An account still competes for the gateway when it has a request in flight, or had one admitted
 * or answered this recently (a client that sends its next request on each answer is between two),
 * or this long before the oldest request whose account is not known yet arrived: a busy gateway
 * takes a while (most of a second on a loaded machine) to read a request and find its account,
 * and the account's next request may be that one. Without this, a flood's requests were all
 * admitted whenever the other account's next request took more than a quarter second to get
 * there.
 */
const COMPETING_MS = 250;
/** How far back a request not identified yet keeps accounts competing (a slow upload takes long). */
const WAITING_MS = 5_000;
/** The time constant of each account's admitted-requests count: about the last second's. */
const DECAY_MS = 1_000;
const FLOOR = 5;

/** A request received and not yet answered (`identified` once its account is known, `depart` when answered). */
export interface Arrival {
  readonly at: number;
}

interface Usage {
  /** Requests admitted, decayed exponentially: about those of the last DECAY_MS. */
  count: number;
  at: number;
  inFlight: number;
  /** When a request of the account was last admitted or answered. */
  active: number;
}

export class FairShare {
  readonly #busy: number;
  #pending = 0;
  /** Requests received whose account is not known yet, oldest first. */
  readonly #waiting = new Set<Arrival>();
  readonly #usage = new Map<string, Usage>();

  /** The gateway is busy from `busy` requests received and not yet answered. */
  constructor(busy: number) {
    this.#busy = busy;
  }

  /** A request arrived (before its body is read: its account is not known yet). */
  arrive(now = performance.now()): Arrival {
    this.#pending += 1;
    const arrival = { at: now };
    this.#waiting.add(arrival);
    return arrival;
  }

  /** The request's account is known (or it will not be admitted): it no longer waits. */
  identified(arrival: Arrival): void {
    this.#waiting.delete(arrival);
  }

  /** A request was answered or abandoned. */
  depart(arrival: Arrival): void {
    this.#pending = Math.max(0, this.#pending - 1);
    this.#waiting.delete(arrival);
  }

  /**
   * Whether the gateway takes on one more request of `account` now. While it is busy, an account
   * that has had more than the average of the accounts competing with it now (and more than
   * FLOOR) waits its turn. Only accounts still sending count: one that stopped a moment ago no
   * longer holds anyone back, and an account alone is never refused. Every admission must be
   * followed by `done(account)` when its request is answered.
   */
  admit(account: string, now = performance.now()): boolean {
    const mine = this.#usage.get(account) ?? { count: 0, at: now, inFlight: 0, active: now };
    const count = decayed(mine, now);
    if (this.#pending >= this.#busy && count >= FLOOR) {
      // Accounts answered after this moment may have their next request among those waiting.
      const since = Math.min(now, Math.max(this.#oldestWaiting() ?? now, now - WAITING_MS)) - COMPETING_MS;
      let others = 0;
      let total = 0;
      for (const [id, usage] of this.#usage) {
        if (id === account || (usage.inFlight === 0 && usage.active <= since)) continue;
        others += 1;
        total += decayed(usage, now);
      }
      if (others > 0 && count > total / others) return false;
    }
    if (!this.#usage.has(account) && this.#usage.size >= SWEEP_AT) this.#sweep(now);
    this.#usage.set(account, { count: count + 1, at: now, inFlight: mine.inFlight + 1, active: now });
    return true;
  }

  /** An admitted request of `account` was answered or abandoned. */
  done(account: string, now = performance.now()): void {
    const usage = this.#usage.get(account);
    if (!usage) return;
    usage.inFlight = Math.max(0, usage.inFlight - 1);
    usage.active = now;
  }

  #oldestWaiting(): number | undefined {
    for (const arrival of this.#waiting) return arrival.at; // a Set iterates in insertion order: arrival order
    return undefined;
  }

  #sweep(now: number): void {
    for (const [id, usage] of this.#usage) if (usage.inFlight === 0 && now - usage.active > 10 * DECAY_MS) this.#usage.delete(id);
  }
}

function decayed(usage: Usage, now: number): number {
  return usage.count * Math.exp(-(now - usage.at) / DECAY_MS);
}
