// The seam between the gateway core and a processor. A connector is stateless: it turns our
// request into the processor's, sends it, and turns the answer into ours. The core persists.
// Failures are values, never exceptions, and never HTTP errors; an answer the connector cannot
// read as a clear success or failure is `pending`, never success.
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

export interface AuthoriseRequest {
  /** Our transaction id: the processor's idempotency key for this payment. */
  readonly paymentId: string;
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
  | { readonly status: 'approved'; readonly reference: string; readonly captured: boolean; readonly authCode?: string; readonly threeDS?: string }
  | { readonly status: 'declined'; readonly reason: DeclineReason; readonly reference?: string; readonly message?: string; readonly threeDS?: string }
  | { readonly status: 'action_required'; readonly action: 'authenticate' | 'redirect'; readonly reference: string; readonly url: string }
  | { readonly status: 'pending'; readonly reference?: string };

export interface CaptureRequest {
  readonly paymentId: string;
  readonly reference: string;
  readonly amount: Money;
  readonly operationId: string;
}

export interface RefundRequest {
  readonly paymentId: string;
  readonly reference: string;
  readonly refundId: string;
  readonly amount: Money;
  readonly reason?: string;
}

export type OperationOutcome =
  | { readonly status: 'succeeded'; readonly reference: string }
  | { readonly status: 'pending'; readonly reference: string }
  | { readonly status: 'failed'; readonly reason: string; readonly reference?: string };

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

export interface Connector {
  /** Named in answers (`connector`) and stored with each payment. */
  readonly name: string;
  /** Settlement and authorisation-expiry terms; DEFAULT_SCHEDULE when absent. */
  readonly schedule?: ConnectorSchedule;
  authorise(request: AuthoriseRequest): Promise<Result<AuthoriseOutcome>>;
  capture(request: CaptureRequest): Promise<Result<OperationOutcome>>;
  /** Releases an authorisation that was not captured (void). */
  cancel(request: { readonly paymentId: string; readonly reference: string; readonly amount: Money }): Promise<Result<OperationOutcome>>;
  refund(request: RefundRequest): Promise<Result<OperationOutcome>>;
  /** Asks the processor what became of a payment whose outcome we do not know. */
  paymentStatus(request: { readonly paymentId: string; readonly reference?: string }): Promise<Result<AuthoriseOutcome>>;
  refundStatus(request: { readonly refundId: string; readonly reference: string }): Promise<Result<OperationOutcome>>;
}
