// The seam between the gateway core and a processor. A connector is stateless: it turns our
// request into the processor's, sends it, and turns the answer into ours. The core persists.
// Failures are values, never exceptions, and never HTTP errors; an answer the connector cannot
// read as a clear success or failure is `pending`, never success. Every call runs under the
// core's deadline (withDeadline) and carries its abort signal (`Deadlined`).
import type { Money } from '../domain/money.ts';

export type Result<T, E = ConnectorError> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/** Could not get an answer, or got one that does not say what happened. The outcome is unknown. */
export interface ConnectorError {
  readonly kind: 'timeout' | 'network' | 'unavailable' | 'unreadable' | 'unsupported';
  readonly message: string;
}

export type DeclineReason =
  | 'generic'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'invalid_card'
  | 'lost_or_stolen'
  | 'authentication_failed'
  | 'processor_error'
  | 'abandoned';

export interface CardDetails {
  readonly pan: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  /** Absent when a stored card is charged. */
  readonly securityCode?: string;
  readonly holderName?: string;
}

/** 3-D Secure data from an external server (the merchant's own MPI). */
export interface ExternalAuthentication {
  readonly eci?: string;
  readonly cavv?: string;
  readonly xid?: string;
  readonly dsTransId?: string;
}

/** Who starts a charge: the shopper at checkout, or the merchant alone (a recurring charge: no CVC). */
export type Initiator = 'shopper' | 'merchant';

/** A card stored for later charges (credential-on-file), as the card networks require it flagged. */
export interface StoredCredential {
  /** `first`: the shopper's payment that stores the card; `subsequent`: a later charge of it. */
  readonly usage: 'first' | 'subsequent';
  /** The network's id of the first payment, which every merchant-initiated charge quotes. */
  readonly networkTransactionId?: string;
}

/**
 * What every request to a connector carries: the signal aborted at the core's deadline for the
 * call (ACQUIRO_CONNECTOR_TIMEOUT). A connector hands it to its own network call, so an overrun
 * ends there too; the core has stopped waiting by then, and the outcome is unknown (pending).
 */
export interface Deadlined {
  readonly signal?: AbortSignal;
  /**
   * The credentials (the acquirer's API keys) stored for the account the call is for, opened from
   * the vault by the core: `acquiro accounts connector set --credentials-file` (docs/connectors.md,
   * Credentials). Empty when the account stores none, or when the call is for a payment taken on
   * another connector than the account's current one (an account re-routed since): a connector
   * never gets another connector's keys. The core always sends them; never log them.
   */
  readonly credentials?: Credentials;
}

/** An account's credentials with its connector: names to values, as the operator stored them. */
export type Credentials = Readonly<Record<string, string>>;

export interface AuthoriseRequest extends Deadlined {
  /** Our transaction id (the payment's, whichever of its attempts this is). */
  readonly paymentId: string;
  /**
   * The processor's idempotency key for this attempt: a repeat of it must get this attempt's
   * answer, never a new charge. The transaction id for a payment's only attempt; each card attempt
   * of a hosted page has its own (`<transaction id>-<n>` from the second on), since each is a
   * charge of its own. The same attempt's status query and completion carry the same key.
   */
  readonly idempotencyKey: string;
  /** The shopper when absent. */
  readonly initiator?: Initiator;
  readonly storedCredential?: StoredCredential;
  readonly orderNo: string;
  readonly amount: Money;
  /** Authorise and capture in one step (sale). */
  readonly capture: boolean;
  readonly card?: CardDetails;
  /** APM name for alternative payment methods. */
  readonly paymentMethod?: string;
  readonly methodData?: Readonly<Record<string, unknown>>;
  /** `open3d` asked for 3-D Secure. */
  readonly requestThreeDS?: boolean;
  readonly authentication?: ExternalAuthentication;
  readonly shopper: { readonly email?: string; readonly ip?: string; readonly country?: string };
  /** Where the processor sends the shopper back after a redirect or challenge. */
  readonly returnUrl?: string;
}

export type AuthoriseOutcome =
  | {
      readonly status: 'approved';
      readonly reference: string;
      readonly captured: boolean;
      readonly authCode?: string;
      readonly threeDS?: string;
      /** The card network's id of this payment, quoted by later merchant-initiated charges of a stored card. */
      readonly networkTransactionId?: string;
      /**
       * When the processor gave the authorisation, where it says. A status answer or a completion
       * learned late (a lost answer, asked about at the payment's deadline) may come long after it,
       * and the hold's expiry counts from it (held_since). Absent: when the answer arrived.
       */
      readonly authorisedAt?: Date;
    }
  | { readonly status: 'declined'; readonly reason: DeclineReason; readonly reference?: string; readonly message?: string; readonly threeDS?: string }
  | { readonly status: 'action_required'; readonly action: 'authenticate' | 'redirect'; readonly reference: string; readonly url: string }
  | { readonly status: 'pending'; readonly reference?: string };

export interface CaptureRequest extends Deadlined {
  readonly paymentId: string;
  readonly reference: string;
  readonly amount: Money;
  readonly operationId: string;
}

export interface RefundRequest extends Deadlined {
  readonly paymentId: string;
  readonly reference: string;
  readonly refundId: string;
  readonly amount: Money;
  readonly reason?: string;
}

export interface CancelRequest extends Deadlined {
  readonly paymentId: string;
  readonly reference: string;
  readonly amount: Money;
}

export interface PaymentStatusRequest extends Deadlined {
  readonly paymentId: string;
  /** The idempotency key the attempt asked about was sent with (AuthoriseRequest.idempotencyKey). */
  readonly idempotencyKey: string;
  readonly reference?: string;
}

export interface RefundStatusRequest extends Deadlined {
  readonly refundId: string;
  readonly reference: string;
}

export type OperationOutcome =
  | { readonly status: 'succeeded'; readonly reference: string }
  | { readonly status: 'pending'; readonly reference: string }
  | { readonly status: 'failed'; readonly reason: string; readonly reference?: string };

/**
 * What the acquirer reports about a dispute (chargeback) of a captured payment: `opened` (the
 * shopper's bank took the amount back) or `reversed` (the merchant won: the amount comes back).
 */
export interface DisputeReport {
  /** The acquirer's id of the dispute: with the connector and the stage, what makes a report the same one again. */
  readonly disputeId: string;
  /** The payment's reference at the processor (the `reference` its authorisation answered). */
  readonly paymentReference: string;
  readonly stage: 'opened' | 'reversed';
  readonly amount: Money;
  /** The card network's reason code (Visa's `10.4`: fraud, card absent). */
  readonly reasonCode: string;
  readonly reason?: string;
  /** When the acquirer says it happened. */
  readonly at: Date;
}

/**
 * Asks for the dispute reports of one feed after `cursor` (null: from the first the acquirer
 * keeps). `credentials`: the merchant connection's, when the connector's disputes come by
 * credentials (`disputesBy`); empty for a connector's one feed.
 */
export interface DisputesRequest extends Deadlined {
  /** What the connector answered last time for this feed, kept by the core; opaque to it. */
  readonly cursor: string | null;
  readonly signal: AbortSignal;
}

export interface DisputeReports {
  /** In the order they happened: an `opened` before the `reversed` of the same dispute. */
  readonly reports: readonly DisputeReport[];
  /** Where the next poll starts: stored by the core with the reports, in one transaction. */
  readonly cursor: string;
}

/** Person fields an APM may require (the `person` object of the APM request). */
export type PersonField = 'document_type' | 'document_number' | 'email';
export type ApmType = 'redirect' | 'bank_redirect' | 'voucher' | 'wallet';

/** An alternative payment method a connector offers; each connector states its own. */
export interface ApmMethod {
  readonly name: string;
  readonly type: ApmType;
  readonly label: string;
  /** ISO 4217 codes it takes; undefined: any. */
  readonly currencies?: readonly string[];
  /** Billing countries it serves; undefined: any. */
  readonly countries?: readonly string[];
  readonly needs: {
    readonly bankCode?: boolean;
    readonly person?: readonly PersonField[];
    readonly shopperEmail?: boolean;
  };
  /** Minutes an unpaid payment waits for the shopper before it fails as abandoned (2009). */
  readonly ttlMinutes: number;
}

export interface Bank {
  readonly code: string;
  readonly name: string;
}

/** What the connector's acquirer knows of a card before it is charged (its BIN tables). */
export interface CardFacts {
  /** ISO 3166 alpha-2 country of the issuer, when known. */
  readonly issuerCountry?: string;
  /** A verdict the acquirer attaches to this card, scored by the risk rules (the sandbox's risk test cards). */
  readonly verdict?: { readonly name: string; readonly score: number };
  /** A documented test card: velocity is not counted, so its meaning survives repeated test traffic. */
  readonly testCard?: boolean;
}

/** A payment waiting for a third party (the issuer's ACS, an APM provider) to finish. */
export interface CompletionRequest extends Deadlined {
  readonly paymentId: string;
  /** The idempotency key the completed attempt's authorisation was sent with. */
  readonly idempotencyKey: string;
  readonly reference: string;
  readonly amount: Money;
  readonly capture: boolean;
}

/** What the third party said, as the connector's own page or callback received it. */
export type AuthenticationResult = Readonly<Record<string, unknown>>;

// Payouts: a port of its own, so a payout rail can be a different provider from the acquirer.
export interface PayoutRequest extends Deadlined {
  /** Our payout id: the rail's idempotency key. */
  readonly payoutId: string;
  readonly amount: Money;
  readonly beneficiary: Readonly<Record<string, unknown>>;
  readonly reference: string;
}

export interface PayoutStatusRequest extends Deadlined {
  readonly payoutId: string;
  readonly reference?: string;
}

export type PayoutOutcome =
  | { readonly status: 'processing'; readonly reference: string }
  | { readonly status: 'completed'; readonly reference: string }
  | { readonly status: 'failed'; readonly reference?: string; readonly failureType: string; readonly failureReason: string }
  | { readonly status: 'returned'; readonly reference: string; readonly failureReason: string };

export interface PayoutPort {
  readonly name: string;
  createPayout(request: PayoutRequest): Promise<Result<PayoutOutcome>>;
  payoutStatus(request: PayoutStatusRequest): Promise<Result<PayoutOutcome>>;
}

/**
 * When the processor pays out captured money and lets go of uncaptured holds, in days of the
 * injected clock (docs/ledger.md, Settlement). Each connector states its own acquirer's terms.
 */
export interface ConnectorSchedule {
  /** Days after capture until the money is available to the merchant. */
  readonly settlementDays: number;
  /** Days an authorisation stays capturable before the hold is released. */
  readonly authorisationExpiryDays: number;
}

/** The schedule of a connector that states none. */
export const DEFAULT_SCHEDULE: ConnectorSchedule = { settlementDays: 2, authorisationExpiryDays: 7 };

export function scheduleOf(connector: Connector | undefined): ConnectorSchedule {
  return connector?.schedule ?? DEFAULT_SCHEDULE;
}

/**
 * Calls to a connector that states no `maxCallsInFlight`, at once: what a batch's lanes allowed
 * before connectors stated their own.
 */
export const DEFAULT_MAX_CALLS_IN_FLIGHT = 8;

/** How many calls `connector` accepts at once (docs/connectors.md, "Calls in flight"). */
export function callLimitOf(connector: Connector | undefined): number {
  const stated = connector?.maxCallsInFlight;
  return stated !== undefined && Number.isInteger(stated) && stated >= 1 ? stated : DEFAULT_MAX_CALLS_IN_FLIGHT;
}

export interface Connector {
  /** Named in answers (`connector`) and stored with each payment. */
  readonly name: string;
  /** Settlement and authorisation-expiry terms; DEFAULT_SCHEDULE when absent. */
  readonly schedule?: ConnectorSchedule;
  /**
   * The most calls its processor accepts at once (per merchant connection, as the acquirer
   * limits it): a fan-out of calls (a refund batch's wave, a capture, void or review batch's
   * lanes) never has more in flight. A positive integer; DEFAULT_MAX_CALLS_IN_FLIGHT when absent.
   */
  readonly maxCallsInFlight?: number;
  authorise(request: AuthoriseRequest): Promise<Result<AuthoriseOutcome>>;
  capture(request: CaptureRequest): Promise<Result<OperationOutcome>>;
  /** Releases an authorisation that was not captured (void). */
  cancel(request: CancelRequest): Promise<Result<OperationOutcome>>;
  refund(request: RefundRequest): Promise<Result<OperationOutcome>>;
  /** Asks the processor what became of a payment whose outcome we do not know. */
  paymentStatus(request: PaymentStatusRequest): Promise<Result<AuthoriseOutcome>>;
  refundStatus(request: RefundStatusRequest): Promise<Result<OperationOutcome>>;
  /** The alternative payment methods this connector offers (none when absent). */
  paymentMethods?(): readonly ApmMethod[];
  /** The banks a method offers the shopper (none when absent). */
  banks?(method: string): readonly Bank[];
  /** The acquirer's facts about a card number, for the risk rules. */
  cardFacts?(pan: string): CardFacts;
  /** The outcome of a payment once the issuer's 3-D Secure challenge finished: the connector decides, never the core. */
  completeAuthentication?(request: CompletionRequest & { readonly result: AuthenticationResult }): Promise<Result<AuthoriseOutcome>>;
  /** The outcome of an APM payment once the shopper came back from the provider. */
  completeRedirect?(request: CompletionRequest & { readonly result: AuthenticationResult }): Promise<Result<AuthoriseOutcome>>;
  /** Its payout rail, when it pays out. */
  readonly payouts?: PayoutPort;
  /**
   * The disputes its acquirer reported since `cursor`, when it reports them by polling (the
   * `poll-disputes` task asks; docs/connectors.md, Disputes). Stateless: the cursor is the core's.
   */
  disputes?(request: DisputesRequest): Promise<Result<DisputeReports>>;
  /**
   * How its acquirer hands disputes out: `connector` (one feed for every merchant, asked without
   * credentials; the default) or `credentials` (a feed per merchant connection: asked once for each
   * distinct set of credentials stored on the accounts routed to it, with them, each feed with a
   * cursor of its own).
   */
  readonly disputesBy?: 'connector' | 'credentials';
}

/**
 * Runs one connector call with a deadline: the call gets a signal aborted at the deadline, and a
 * call that has not answered by then (or throws) is a `timeout`/`network` error: its outcome is
 * pending, never success. The caller stops waiting at the deadline; `settled` is called when the
 * connector's own promise settles, before or after it (a connector that honours the signal
 * settles at the deadline; one that does not, whenever its call ends): what holds a slot of the
 * connector's calls in flight lets go of it there (src/app/batch/calls-in-flight.ts).
 */
export async function withDeadline<T>(call: (signal: AbortSignal) => Promise<Result<T>>, ms: number, settled?: () => void): Promise<Result<T>> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<Result<T>>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(err({ kind: 'timeout', message: `no answer within ${ms} ms` }));
    }, ms);
  });
  const answer = Promise.resolve()
    .then(() => call(controller.signal))
    .catch((error: unknown) => err({ kind: 'network' as const, message: String(error) }))
    .then((result) => {
      settled?.();
      return result;
    });
  try {
    return await Promise.race([answer, overrun]);
  } finally {
    clearTimeout(timer);
  }
}
