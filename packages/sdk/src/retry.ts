// When the client sends a request again (docs/idempotency.md, docs/codes.md): answers that say
// nothing was done, answers and silences that leave the outcome unknown, batches with orders not
// done, and how long to wait before the next attempt.
import type { AnswerError } from './errors.js';

/** `Retry-After` in seconds (delta-seconds only: the gateway writes no dates). */
export function retryAfterOf(headers: { get(name: string): string | null } | undefined): number | undefined {
  const value = headers?.get('retry-after')?.trim();
  return value && /^[0-9]+$/.test(value) ? Number(value) : undefined;
}

/** Answers that say nothing was done and ask for the same request again. */
export function asksForRetry(error: AnswerError): boolean {
  if (error.problem !== 'refused') return false;
  return error.status === 429 || (error.status === 503 && error.code === '9503') || (error.status === 409 && error.code === '4017');
}

/** No answer, or a 5xx one: the request may or may not have been carried out. */
export function outcomeUnknown(error: AnswerError): boolean {
  return error.problem === 'network' || error.problem === 'timeout' || (error.status >= 500 && !asksForRetry(error));
}

/** A batch answered 200 in which some orders were not done because the database went away (docs/codes.md). */
export function ordersNotDone(answer: Record<string, unknown>): boolean {
  for (const list of ['capture_orders', 'review_orders', 'cancel_orders', 'refund_orders']) {
    const orders = answer[list];
    if (Array.isArray(orders) && orders.some((order) => String((order as { error_message?: unknown }).error_message ?? '').startsWith('9503:'))) return true;
  }
  return false;
}

/** Waits before attempt `attempt` + 1: what Retry-After asks, else 0.25 s, 0.5 s, 1 s … with jitter. */
export function delayMs(attempt: number, retryAfter: number | undefined): number {
  if (retryAfter !== undefined) return retryAfter * 1000;
  return Math.min(250 * 2 ** (attempt - 1), 8_000) + Math.floor(Math.random() * 100);
}

/** The longest Retry-After the client waits for itself; a longer one is the caller's to honour. */
export const MAX_RETRY_AFTER_SECONDS = 30;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
