// The chaos run's load: a list of actors, each one kind of merchant behaviour. An actor sends
// signed requests through `ctx.call` (which retries a request whose connection was cut, on the
// other gateway, as a merchant's server would: the same body, the same Idempotency-Key) and
// writes what the gateway acknowledged into the book, which the checks compare with the database
// afterwards. A new operation joins the run by adding an actor to ACTORS, and its invariants to
// checks.ts.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../src/app/context.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { cardPayment } from '../../test/support/fixtures.ts';
import { ACH_BENEFICIARY } from '../../test/support/payouts.ts';
import type { MerchantKeys } from '../../test/support/signed-fetch.ts';

/** An answer the gateway gave (HTTP status and parsed body), after any retries. */
export interface Answered {
  readonly status: number;
  readonly body: Record<string, any>;
}

/** The merchants of a run: one capturing automatically, one capturing by hand. */
export interface Merchants {
  readonly auto: MerchantKeys;
  readonly manual: MerchantKeys;
}

/** What clients were told, to compare with what the database says afterwards. */
export class Book {
  /** order_no → transaction_id of every payment answered as a success (order_status 1). */
  readonly payments = new Map<string, string>();
  /** transaction_ids whose capture was answered capture_status 1. */
  readonly captures = new Set<string>();
  /** refund_reference_ids answered refund_status 1, with their transaction. */
  readonly refunds = new Map<string, string>();
  /** request_id → transaction_id of every payout answered PROCESSING or COMPLETED. */
  readonly payouts = new Map<string, string>();
  /** transaction_id → every distinct Idempotency-Key a refund of it was sent with. */
  readonly refundKeys = new Map<string, Set<string>>();
  /** Anything a client saw that must never happen (a 500, a hang, two answers to one request that disagree). */
  readonly anomalies: string[] = [];
  /** recurring_id → order_no of every subscription whose first payment was answered as a success. */
  readonly subscriptions = new Map<string, string>();
  /** Days the test clock was moved forward (`acquiro clock advance`). */
  clockDays = 0;
  /** Keys answered 409 (4017): a first request still running after 15 s (one that died is taken over). */
  stuckKeys = 0;

  keyFor(transactionId: string, key: string): void {
    const keys = this.refundKeys.get(transactionId) ?? new Set<string>();
    keys.add(key);
    this.refundKeys.set(transactionId, keys);
  }
}

export interface ActorContext {
  /** The run's own process (as an operator's CLI would be): `runCommand` for what is no HTTP request. */
  readonly deps: Deps;
  /** How long the load runs (at least): for actors that spread something over the run. */
  readonly loadMs: number;
  readonly merchants: Merchants;
  readonly book: Book;
  /**
   * Sends `fields` signed by `merchant` to `path` until a gateway answers (a cut connection or a
   * 503 is sent again, to the other gateway); undefined if none did within the run's patience.
   * `gateway` pins the first attempt to one gateway (0 or 1).
   */
  call(merchant: MerchantKeys, path: string, fields: Record<string, unknown>, options?: { key?: string; gateway?: number }): Promise<Answered | undefined>;
}

export interface Actor {
  readonly name: string;
  /** How often it is picked, relative to the others. */
  readonly weight: number;
  /** Set-up before the load, in the run's own process (funding a balance, say). */
  prepare?(deps: Deps, merchants: Merchants): Promise<void>;
  act(ctx: ActorContext): Promise<void>;
}

const APPROVED = '4111111111111111';
const DECLINED = '4000000000000002';
/** The processor's answer gets lost: the payment stays pending until a sweeper asks. */
const LOST_ANSWER = '4000000000000259';
/** Disputed a day after capture (business time); the second card's dispute is also reversed the day after. */
const DISPUTED = ['4000000000000267', '4000000000002685'] as const;

const isPaid = (answer: Answered | undefined) => answer?.status === 200 && answer.body.order_status === '1';

/** Pays and, when acknowledged as a success, books it; answers the order and its transaction. */
async function pay(ctx: ActorContext, merchant: MerchantKeys, card = APPROVED, amount = '40.00') {
  const body = cardPayment({ merchant_id: merchant.merchant_id, account_id: merchant.account_id }, { card, amount });
  const answer = await ctx.call(merchant, '/v1/authorise', body);
  if (!isPaid(answer)) return undefined;
  const txn = { transaction_id: String(answer!.body.transaction_id), order_no: String(body.order_no), currency: 'USD', amount };
  ctx.book.payments.set(txn.order_no, txn.transaction_id);
  return txn;
}

/** A refund of `refund_amount` sent with one Idempotency-Key, twice at once (one to each gateway): one refund. */
async function refundTwice(ctx: ActorContext, merchant: MerchantKeys, txn: NonNullable<Awaited<ReturnType<typeof pay>>>, refund_amount: string) {
  const key = `rf-${randomUUID()}`;
  ctx.book.keyFor(txn.transaction_id, key);
  const order = { ...txn, refund_amount };
  const answers = await Promise.all([0, 1].map((gateway) => ctx.call(merchant, '/v1/refund', { refund_orders: [order] }, { key, gateway })));
  const ids = new Set<string>();
  for (const answer of answers) {
    const entry = answer?.status === 200 ? answer.body.refund_orders?.[0] : undefined;
    if (answer?.status === 409) ctx.book.stuckKeys += 1;
    if (entry?.refund_status === '1') {
      ctx.book.refunds.set(String(entry.refund_reference_id), txn.transaction_id);
      ids.add(String(entry.refund_reference_id));
    }
  }
  if (ids.size > 1) ctx.book.anomalies.push(`one Idempotency-Key answered with two refunds: ${[...ids].join(', ')}`);
}

/**
 * Subscription cycles need business time to pass, and `acquiro clock advance` moves it for every
 * process and every merchant on the database, not for one subscription. One thing on that clock
 * would disturb the other actors: an authorisation not captured within 7 days is voided (the
 * manual-capture merchant's, whose capture a killed gateway left undone, would turn from an
 * acknowledged success into a cancelled payment). (Idempotency-Keys are kept 7 days of wall time,
 * which the clock does not move.) So the subscriptions are daily, on the auto-capture merchant
 * (each charge captured at once: no hold to expire), and the clock moves one day (one cycle) at a
 * time, at most 6 days in a run: under that limit. The steps are spread evenly over
 * the load, so that cycles fall due (and workers are killed while charging them) all through it.
 */
const MAX_CLOCK_DAYS = 6;
let lastClockStep = 0;

/** Moves business time a day on, unless the last step was under a seventh of the load ago or the run has taken its 6. */
async function stepClock(ctx: ActorContext): Promise<void> {
  const gap = ctx.loadMs / (MAX_CLOCK_DAYS + 1);
  if (ctx.book.clockDays >= MAX_CLOCK_DAYS || Date.now() - lastClockStep < gap) return;
  lastClockStep = Date.now();
  ctx.book.clockDays += 1;
  const moved = await runCommand(['clock', 'advance', '--days', '1'], ctx.deps);
  if (moved.exitCode !== 0) ctx.book.anomalies.push(`acquiro clock advance: exit ${moved.exitCode}: ${moved.stderr}`);
}

/** Daily subscriptions on the auto-capture merchant, and the clock moved a cycle on now and then (why: above). */
export const SUBSCRIPTION_ACTOR: Actor = {
  name: 'subscription',
  weight: 1,
  async act(ctx) {
    const merchant = ctx.merchants.auto;
    const body = cardPayment(
      { merchant_id: merchant.merchant_id, account_id: merchant.account_id },
      { amount: '10.00', subscription: { contract_name: 'Chaos daily', contract_amount: '10.00', interval: 'day' } },
    );
    const answer = await ctx.call(merchant, '/v1/authorise', body);
    if (isPaid(answer)) {
      ctx.book.payments.set(String(body.order_no), String(answer!.body.transaction_id));
      if (answer!.body.recurring_id) ctx.book.subscriptions.set(String(answer!.body.recurring_id), String(body.order_no));
      else ctx.book.anomalies.push(`subscription payment ${String(body.order_no)} answered without a recurring_id`);
    }
    await stepClock(ctx);
  },
};

export const ACTORS: readonly Actor[] = [
  {
    // Approved, declined and lost answers, on the merchant that captures automatically.
    name: 'payment',
    weight: 4,
    async act(ctx) {
      const roll = Math.random();
      await pay(ctx, ctx.merchants.auto, roll < 0.8 ? APPROVED : roll < 0.9 ? DECLINED : LOST_ANSWER);
    },
  },
  {
    // One payment sent to both gateways at once: one payment, and both answers name it.
    name: 'twin payments',
    weight: 2,
    async act(ctx) {
      const merchant = ctx.merchants.auto;
      const body = cardPayment({ merchant_id: merchant.merchant_id, account_id: merchant.account_id }, { amount: '25.00' });
      const answers = await Promise.all([0, 1].map((gateway) => ctx.call(merchant, '/v1/authorise', body, { gateway })));
      const ids = new Set(answers.filter((a) => a?.status === 200 && a.body.transaction_id).map((a) => String(a!.body.transaction_id)));
      if (ids.size > 1) ctx.book.anomalies.push(`twin payments of ${String(body.order_no)} answered with ${[...ids].join(' and ')}`);
      const paid = answers.find(isPaid);
      if (paid) ctx.book.payments.set(String(body.order_no), String(paid.body.transaction_id));
    },
  },
  {
    // Authorise, capture with an Idempotency-Key (sent twice at once), then refund a part.
    name: 'capture and refund',
    weight: 2,
    async act(ctx) {
      const merchant = ctx.merchants.manual;
      const txn = await pay(ctx, merchant);
      if (!txn) return;
      const key = `cp-${randomUUID()}`;
      const answers = await Promise.all([0, 1].map((gateway) => ctx.call(merchant, '/v1/capture', { capture_orders: [txn] }, { key, gateway })));
      if (answers.some((a) => a?.status === 409)) ctx.book.stuckKeys += 1;
      if (!answers.some((a) => a?.status === 200 && a.body.capture_orders?.[0]?.capture_status === '1')) return;
      ctx.book.captures.add(txn.transaction_id);
      await refundTwice(ctx, merchant, txn, '10.00');
    },
  },
  {
    // Two partial refunds of one payment, each with a key of its own, each sent twice at once.
    name: 'refunds',
    weight: 2,
    async act(ctx) {
      const merchant = ctx.merchants.auto;
      const txn = await pay(ctx, merchant);
      if (!txn) return;
      await Promise.all([refundTwice(ctx, merchant, txn, '4.00'), refundTwice(ctx, merchant, txn, '6.00')]);
    },
  },
  {
    // A payout from a funded balance, sent to both gateways at once with one request_id: one payout.
    name: 'payout',
    weight: 1,
    async prepare(deps, merchants) {
      const account = ['--merchant-id', merchants.auto.merchant_id, '--account-id', merchants.auto.account_id];
      const funded = await runCommand(['balance', 'topup', ...account, '--currency', 'USD', '--amount', '1000000.00'], deps);
      if (funded.exitCode !== 0) throw new Error(`balance topup failed: ${funded.stderr}`);
    },
    async act(ctx) {
      const merchant = ctx.merchants.auto;
      const body = {
        request_id: randomUUID(),
        payment_currency: 'USD',
        payment_amount: '5.00',
        payment_method: 'LOCAL',
        reason: 'Chaos',
        reference: 'CHAOS',
        beneficiary: ACH_BENEFICIARY,
      };
      const answers = await Promise.all([0, 1].map((gateway) => ctx.call(merchant, '/v1/payout', body, { gateway })));
      const ids = new Set(answers.filter((a) => a?.status === 200 && a.body.transaction_id).map((a) => String(a!.body.transaction_id)));
      if (ids.size > 1) ctx.book.anomalies.push(`one payout request_id answered as ${[...ids].join(' and ')}`);
      const accepted = answers.find((a) => a?.status === 200 && ['PROCESSING', 'COMPLETED'].includes(String(a.body.status)));
      if (accepted) ctx.book.payouts.set(body.request_id, String(accepted.body.transaction_id));
    },
  },
  {
    // A payment the shopper's bank disputes a day later: the workers' dispute polls, killed like
    // the rest, record it once (the clock moves a day at a time with the subscriptions).
    name: 'disputed payment',
    weight: 1,
    async act(ctx) {
      await pay(ctx, ctx.merchants.auto, DISPUTED[Math.random() < 0.5 ? 0 : 1]);
    },
  },
  SUBSCRIPTION_ACTOR,
];

/** An actor picked at random by weight. */
export function pickActor(actors: readonly Actor[]): Actor {
  let roll = Math.random() * actors.reduce((sum, actor) => sum + actor.weight, 0);
  for (const actor of actors) {
    roll -= actor.weight;
    if (roll < 0) return actor;
  }
  return actors[actors.length - 1]!;
}
