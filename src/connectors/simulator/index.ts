// The sandbox processor. It decides by test card (cards.ts) and answers at once (where a test
// card or refund trigger makes it wait, it honours the call's abort signal); an APM answers
// with its issuer page (apm.ts), a challenge card with the ACS page (acs.ts). The adapter
// keeps no state; what it remembers is what a real processor would remember too, by each
// charge's idempotency key, from any process and after a restart (memory.ts: a table of its own):
// a decline, and the outcome of an authorisation whose answer "got lost" (the timeout card), so a
// repeat of the key gets that answer again instead of a new charge, and a later status query finds
// it; the answer of every 3-D Secure or APM completion (the gateway may never have heard it; until
// it comes, the payment as unfinished); and the dispute cards' captures, for their disputes and
// their status (disputes.ts). Each key is a charge of its own, with its own reference.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { err, ok, type AuthoriseOutcome, type AuthoriseRequest, type Connector, type ConnectorError, type OperationOutcome, type Result } from '../port.ts';
import { LOST_ANSWER_BANK, OFFLINE_BANK, SANDBOX_BANKS, SANDBOX_METHODS } from './apm.ts';
import { behaviourOf } from './cards.ts';
import { sandboxCardFacts } from './risk.ts';
import { simulatedPayouts } from './payouts.ts';
import { refundDelayMs, simulateRefund, simulateRefundStatus } from './refunds.ts';
import { lostAnswersIn } from './memory.ts';
import { DISPUTE_SUFFIX, DISPUTE_WON_SUFFIX, disputesIn, isDisputed, pollDisputes } from './disputes.ts';
import type { Database } from '../../db/client.ts';

export interface SimulatorOptions {
  /** Public base URL of the gateway: challenge and APM pages of the sandbox are served there. */
  readonly baseUrl: string;
  /** The gateway's clock: a stored card is declined as expired once its expiry month is over on it. */
  readonly now?: () => Date;
  /** Where the lost answers are remembered; in this process's memory without one. */
  readonly database?: Database | undefined;
  /** How long a slow card's merchant-initiated charge, capture or void, or a `sandbox_slow` refund, takes to reach the processor (ACQUIRO_SANDBOX_CARD_DELAY). */
  readonly slowCardDelayMs?: number | undefined;
}

export function createSimulator(options: SimulatorOptions): Connector {
  const lost = lostAnswersIn(options.database);
  const disputed = disputesIn(options.database);
  const now = () => options.now?.() ?? new Date();
  // A charge's reference, from its idempotency key (an authorisation's answers), or the payment's
  // transaction id (its captures, voids and refunds, which name the payment).
  const reference = (key: string) => `sim_${key}`;
  /** The idempotency key of the charge a reference names (keys hold no `_`; suffixes start with one). */
  const keyOfReference = (ref: string | undefined) => (ref?.startsWith('sim_') ? ref.slice('sim_'.length).split('_')[0] : undefined);
  // A payment whose completion's approval is lost on its way to the gateway (the lost-answer card
  // and bank) says so in its reference, the one thing a completion request carries back.
  const LOST_SUFFIX = '_lost';
  const losesCompletion = (ref: string) => ref.endsWith(LOST_SUFFIX);
  // A payment whose capture and void are slow to reach the processor (the slow-settle card) says
  // so in its reference, the one thing of the payment a capture or a void carries.
  const SLOW_SUFFIX = '_slow';
  const SLOW_SETTLE_MS = 10_000;
  /** False when the core's deadline aborted a slow payment's capture or void before it arrived (never received). */
  const settles = async (request: { reference: string; signal?: AbortSignal | undefined }) =>
    !request.reference.endsWith(SLOW_SUFFIX) || (await arrives(options.slowCardDelayMs ?? SLOW_SETTLE_MS, request.signal));
  // The shopper's session on the issuer's page: an unguessable token in the URL only the shopper
  // is sent to (the gateway keeps that URL and checks the token on every visit and answer).
  const session = () => randomBytes(24).toString('base64url');

  /**
   * An approval answered at once. It names no time (the port reads it as the time it arrived), so
   * that it is the same answer whenever the same key is sent again; an approval remembered to be
   * told later (`remembered`) says when it was given.
   */
  function approve(request: AuthoriseRequest, threeDS?: string): AuthoriseOutcome & { status: 'approved' } {
    return approval(request.idempotencyKey, request.capture, threeDS);
  }
  function approval(key: string, captured: boolean, threeDS?: string): AuthoriseOutcome & { status: 'approved' } {
    return {
      status: 'approved',
      reference: reference(key),
      captured,
      authCode: key.replace(/[^0-9A-Za-z]/g, '').slice(-6),
      // The card network's id of this charge, which a later merchant-initiated charge quotes.
      networkTransactionId: `simnt_${key}`,
      ...(threeDS ? { threeDS } : {}),
    };
  }
  /** On the gateway's clock, as the sandbox's other dates: a status answer given later says it. */
  const remembered = (outcome: AuthoriseOutcome & { status: 'approved' }): AuthoriseOutcome => ({ ...outcome, authorisedAt: now() });

  /**
   * Idempotency, as a real acquirer honours it: a key it has answered gets that charge's answer as
   * it knows it now (a decline stays declined, a lost approval is approved), whatever card the
   * repeat carries, and no new charge. A new key is a new charge.
   */
  async function authorise(request: AuthoriseRequest): Promise<Result<AuthoriseOutcome>> {
    const answered = await lost.recall(request.idempotencyKey);
    if (answered) return ok(answered);
    return charge(request);
  }

  /** A decline, remembered under its key before it is given. */
  async function decline(request: AuthoriseRequest, outcome: AuthoriseOutcome & { status: 'declined' }): Promise<Result<AuthoriseOutcome>> {
    await lost.remember(request.idempotencyKey, outcome);
    return ok(outcome);
  }

  async function charge(request: AuthoriseRequest): Promise<Result<AuthoriseOutcome>> {
    const key = request.idempotencyKey;
    if (request.paymentMethod) {
      if (request.methodData?.bank_code === OFFLINE_BANK) {
        return decline(request, { status: 'declined', reason: 'processor_error', reference: reference(key), message: 'the bank is offline' });
      }
      const lostAnswer = request.methodData?.bank_code === LOST_ANSWER_BANK ? LOST_SUFFIX : '';
      return awaitingShopper(key, {
        status: 'action_required',
        action: 'redirect',
        reference: `${reference(key)}${lostAnswer}`,
        url: `${options.baseUrl}/sandbox/apm/${request.paymentId}/${session()}`,
      });
    }
    if (!request.card) return err({ kind: 'unsupported', message: 'neither card nor payment method' });
    const behaviour = behaviourOf(request.card.pan);
    // A stored card charged by the merchant (a subscription) after its expiry, on the clock.
    if (request.initiator === 'merchant' && options.now && isExpired(request.card, options.now())) {
      return decline(request, { status: 'declined', reason: 'expired_card', reference: reference(key) });
    }
    const external = request.authentication?.cavv ? `external: eci ${request.authentication.eci ?? ''}`.trim() : undefined;
    // What an approval without a challenge reports of 3-D Secure.
    const frictionless = external ?? (request.requestThreeDS ? 'frictionless: authenticated' : undefined);
    switch (behaviour.kind) {
      case 'approve':
        return ok(approve(request, frictionless));
      case 'decline':
        return decline(request, { status: 'declined', reason: behaviour.reason, reference: reference(key) });
      case 'slow_later':
        // The request is on its way: a worker stopped meanwhile leaves the processor without it.
        if (request.initiator === 'merchant' && !(await arrives(options.slowCardDelayMs ?? behaviour.delayMs, request.signal))) return tooLate;
        return ok(approve(request, frictionless));
      case 'slow_settle':
        return ok({ ...approve(request, frictionless), reference: `${reference(key)}${SLOW_SUFFIX}` });
      case 'dispute': {
        // The reference says it is a dispute card's payment, so a later capture knows without the card.
        const approved = { ...approve(request, frictionless), reference: `${reference(key)}${behaviour.won ? DISPUTE_WON_SUFFIX : DISPUTE_SUFFIX}` };
        if (request.capture) await disputed.captured(request.paymentId, approved.reference, request.amount, now());
        return ok(approved);
      }
      case 'approve_first':
        if (request.initiator === 'merchant') return decline(request, { status: 'declined', reason: behaviour.later, reference: reference(key) });
        return ok(approve(request, frictionless));
      case 'challenge':
        if (external) return ok(approve(request, external));
        // A merchant-initiated charge of the stored card (a subscription's) is out of 3-D Secure's
        // scope: no shopper is there to answer a challenge, and the first payment was authenticated.
        if (request.initiator === 'merchant') return ok(approve(request));
        return awaitingShopper(key, {
          status: 'action_required',
          action: 'authenticate',
          reference: `${reference(key)}${behaviour.completionLost ? LOST_SUFFIX : ''}`,
          url: `${options.baseUrl}/sandbox/acs/${request.paymentId}/${session()}`,
        });
      case 'timeout':
        // Remembered before the answer is lost: a crash in between leaves no charge unknown to us.
        await lost.remember(key, remembered(approve(request)));
        return err({ kind: 'timeout', message: 'the sandbox processor did not answer in time' });
    }
  }

  /** Past the last day of the card's expiry month. */
  function isExpired(card: { expiryMonth: number; expiryYear: number }, now: Date): boolean {
    return now.getTime() >= Date.UTC(card.expiryYear, card.expiryMonth, 1);
  }

  /**
   * A payment sent to the shopper (a challenge, an issuer's page) is known to the processor as
   * unfinished until its completion comes: asked about it then (the gateway marked a completion
   * as sent and died before sending it, and asks at the payment's deadline), the processor says
   * the shopper never finished, so the payment fails as abandoned instead of waiting for ever.
   * The completion's own answer replaces this one (completed, below).
   */
  async function awaitingShopper(key: string, outcome: AuthoriseOutcome & { status: 'action_required' }): Promise<Result<AuthoriseOutcome>> {
    await lost.remember(key, { status: 'declined', reason: 'abandoned', reference: outcome.reference, message: 'the shopper never completed this payment' });
    return ok(outcome);
  }

  /**
   * A completion's answer, remembered before it is given (the gateway may die before recording
   * it, and asks later); the lost-answer card's and bank's approval never reaches the gateway.
   */
  async function completed(key: string, outcome: AuthoriseOutcome): Promise<Result<AuthoriseOutcome>> {
    await lost.remember(key, outcome);
    if (outcome.status === 'approved' && losesCompletion(outcome.reference)) return tooLate;
    return ok(outcome);
  }

  const succeeded = (ref: string): Result<OperationOutcome> => ok({ status: 'succeeded', reference: ref });

  /**
   * Waits `ms` for a request on its way to the processor; false when the core's deadline aborted
   * the call first (the processor never received it: a later call with the same id is the first).
   */
  async function arrives(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    await sleep(ms, undefined, signal ? { signal } : {}).catch(() => {});
    return !signal?.aborted;
  }
  const tooLate = err<ConnectorError>({ kind: 'timeout', message: 'the sandbox processor did not answer in time' });

  return {
    name: 'simulator',
    // The sandbox settles two days after capture and lets an uncaptured hold go after seven, on
    // the injected clock: `FakeClock.advance` (tests) moves both.
    schedule: { settlementDays: 2, authorisationExpiryDays: 7 },
    // As many calls at once as a refund batch's wave holds (src/http/batch/run.ts, WAVE_SIZE):
    // the sandbox answers at once and the bench measures the wave whole.
    maxCallsInFlight: 50,
    authorise,
    capture: async (request) => {
      if (!(await settles(request))) return tooLate;
      if (isDisputed(request.reference)) await disputed.captured(request.paymentId, request.reference, request.amount, now());
      return succeeded(`${reference(request.paymentId)}_cp_${request.operationId}`);
    },
    cancel: async (request) => ((await settles(request)) ? succeeded(`${reference(request.paymentId)}_void`) : tooLate),
    refund: async (request) => {
      const delay = refundDelayMs(request, options.slowCardDelayMs);
      if (delay > 0 && !(await arrives(delay, request.signal))) return tooLate;
      return ok(simulateRefund(request, `${reference(request.paymentId)}_rf_${request.refundId}`));
    },
    paymentStatus: async (request) => {
      // A processor finds a charge by the reference it gave, when it is asked with one: another
      // charge's reference (an earlier attempt's) is answered about that charge, not this key's.
      const outcome = await lost.recall(keyOfReference(request.reference) ?? request.idempotencyKey);
      if (outcome) return ok(outcome);
      // A dispute card's sale is remembered for its dispute, so its status says what the dispute
      // feed will say: charged (asked by the sweeper when the gateway died before recording it).
      const disputedSale = await disputed.capturedReference(request.paymentId);
      if (disputedSale) return ok(remembered({ ...approval(request.idempotencyKey, true), reference: disputedSale }));
      if (request.reference) return err({ kind: 'unsupported', message: 'the sandbox answers status only for lost answers and dispute cards’ sales' });
      return ok({ status: 'declined', reason: 'processor_error', message: 'the processor has no record of this payment' });
    },
    refundStatus: async (request) => ok(simulateRefundStatus(request.reference)),
    paymentMethods: () => SANDBOX_METHODS,
    banks: (method) => (SANDBOX_METHODS.find((m) => m.name === method)?.needs.bankCode ? SANDBOX_BANKS : []),
    cardFacts: sandboxCardFacts,
    // The sandbox ACS page tells the simulator the cardholder's result; it approves only an authenticated one.
    completeAuthentication: async (request) => {
      const threeDS = typeof request.result.threeDS === 'string' ? request.result.threeDS : '';
      if (request.result.authenticated !== true) return completed(request.idempotencyKey, { status: 'declined', reason: 'authentication_failed', reference: request.reference, threeDS });
      return completed(request.idempotencyKey, { status: 'approved', reference: request.reference, captured: request.capture, threeDS, authorisedAt: now() });
    },
    // The sandbox issuer page's answer: approve, decline, or leave.
    completeRedirect: async (request) => {
      const answer = request.result.answer;
      if (answer === 'approve') return completed(request.idempotencyKey, { status: 'approved', reference: request.reference, captured: request.capture, authorisedAt: now() });
      return completed(request.idempotencyKey, { status: 'declined', reason: answer === 'decline' ? 'generic' : 'abandoned', reference: request.reference });
    },
    payouts: simulatedPayouts,
    // The dispute cards' disputes, on the injected clock (disputes.ts).
    disputes: async (request) => ok(await pollDisputes(disputed, request.cursor, now())),
  };
}
