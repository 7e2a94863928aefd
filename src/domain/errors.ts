// The one catalogue of codes a merchant can receive. Every answer's `<code>:<message>` text comes
// from here; docs/codes.md is checked against it by test/docs.test.ts.
//
// Ranges: 0xxx success · 1xxx pending · 2xxx declined by the processor or authentication ·
// 3xxx refused by risk · 4xxx refused request (HTTP 4xx) · 5xxx refused operation on an existing
// transaction (per order in batches) · 9xxx gateway fault.

export interface CodeDef {
  readonly code: string;
  readonly message: string;
  /** HTTP status of the whole answer when this code refuses the request; 200 otherwise. */
  readonly http?: number;
}

export const CODES = {
  success: { code: '0000', message: 'Success' },

  pending: { code: '1000', message: 'Pending: awaiting the processor' },
  authentication_required: { code: '1001', message: '3-D Secure authentication required' },
  redirect_required: { code: '1002', message: 'Redirect the shopper to issuer_url' },
  review_pending: { code: '1003', message: 'Held for review' },
  awaiting_shopper: { code: '1004', message: 'Awaiting the shopper on the hosted payment page' },

  declined: { code: '2001', message: 'Declined' },
  insufficient_funds: { code: '2002', message: 'Declined: insufficient funds' },
  expired_card: { code: '2003', message: 'Declined: expired card' },
  incorrect_cvc: { code: '2004', message: 'Declined: incorrect CVC' },
  invalid_card: { code: '2005', message: 'Declined: invalid card' },
  lost_or_stolen: { code: '2006', message: 'Declined: lost or stolen card' },
  authentication_failed: { code: '2007', message: '3-D Secure authentication failed' },
  processor_error: { code: '2008', message: 'Declined: processor error' },
  payment_abandoned: { code: '2009', message: 'Shopper abandoned or let the payment expire' },
  authorisation_expired: { code: '2010', message: 'Authorisation expired uncaptured: the hold was released' },
  shopper_not_present: { code: '2011', message: 'Declined: the processor asked for the shopper on a merchant-initiated charge' },

  risk_rejected: { code: '3001', message: 'Rejected by risk' },
  review_rejected: { code: '3002', message: 'Rejected on review' },
  review_expired: { code: '3003', message: 'Review not decided in time: the hold was released' },

  malformed_body: { code: '4000', message: 'Malformed request', http: 400 },
  missing_field: { code: '4001', message: 'Missing field', http: 400 },
  invalid_field: { code: '4002', message: 'Invalid field', http: 400 },
  invalid_amount: { code: '4003', message: 'Invalid amount', http: 400 },
  invalid_currency: { code: '4004', message: 'Unsupported currency', http: 400 },
  invalid_card_number: { code: '4005', message: 'Invalid card number', http: 400 },
  invalid_expiry: { code: '4006', message: 'Invalid or past expiry date', http: 400 },
  invalid_security_code: { code: '4007', message: 'Invalid security_code', http: 400 },
  unknown_token: { code: '4008', message: 'Unknown token_id', http: 400 },
  order_conflict: { code: '4009', message: 'order_no already used with different fields', http: 400 },
  batch_limit: { code: '4010', message: 'Batch size out of bounds', http: 400 },
  forbidden_markup: { code: '4013', message: 'DOCTYPE and entities are not accepted', http: 400 },
  duplicate_key: { code: '4014', message: 'Duplicate key in the body', http: 400 },
  unsupported_payment_method: { code: '4015', message: 'Unsupported payment_method', http: 400 },
  idempotency_key_reused: { code: '4016', message: 'Idempotency-Key already used with a different request', http: 400 },
  idempotency_key_in_use: { code: '4017', message: 'A request with this Idempotency-Key is still being processed', http: 409 },
  method_unavailable: { code: '4018', message: 'payment_method not available for this order', http: 400 },
  unknown_field: { code: '4019', message: 'Unknown or ill-named field', http: 400 },
  request_conflict: { code: '4060', message: 'request_id already used with different fields', http: 400 },
  fx_rate_unavailable: { code: '4061', message: 'No exchange rate between the currencies', http: 400 },
  invalid_signature: { code: '4401', message: 'Invalid encryption_data', http: 401 },
  ip_not_allowed: { code: '4403', message: 'Caller IP is not registered for this account', http: 403 },
  account_not_found: { code: '4404', message: 'Unknown merchant_id/account_id', http: 404 },
  account_disabled: { code: '4410', message: 'Merchant or account disabled', http: 403 },
  body_too_large: { code: '4413', message: 'Body larger than 1 MiB', http: 413 },
  unreadable_body: { code: '4415', message: 'Unreadable body', http: 415 },
  rate_limited: { code: '4429', message: 'Too many requests', http: 429 },

  // Per order in batch answers: the request was understood, this transaction refused it.
  transaction_not_found: { code: '5001', message: 'Transaction not found' },
  currency_mismatch: { code: '5002', message: 'Currency does not match the transaction' },
  amount_mismatch: { code: '5003', message: 'Amount does not match the transaction' },
  invalid_transaction_state: { code: '5004', message: 'Not allowed in the transaction state' },
  already_captured: { code: '5005', message: 'Transaction already captured' },
  capture_exceeds_authorised: { code: '5006', message: 'Capture amount exceeds the authorised amount' },
  already_cancelled: { code: '5007', message: 'Transaction already cancelled' },
  captured_refund_instead: { code: '5008', message: 'Transaction captured: refund it instead' },
  not_captured: { code: '5009', message: 'Transaction not captured: cancel it instead' },
  refund_exceeds_captured: { code: '5010', message: 'Refund exceeds the captured amount not yet refunded' },
  not_held_for_review: { code: '5011', message: 'Transaction is not held for review' },
  operation_in_progress: { code: '5012', message: 'Another operation on this transaction is in progress' },
  processor_refused: { code: '5013', message: 'Refused by the processor' },
  // /v1/cancelsubscription: HTTP 200, cancel_status 0 (docs/api/cancelsubscription.md).
  subscription_not_found: { code: '5014', message: 'Subscription not found' },
  contract_name_mismatch: { code: '5015', message: 'contract_name does not match the subscription' },
  subscription_ended: { code: '5016', message: 'Subscription already ended: every charge of its contract was taken' },
  // A recurring charge's attempt failed without being sent: subscription.charge_failed (docs/subscriptions.md).
  subscription_cancelled: { code: '5017', message: 'Not charged: the subscription was cancelled before this charge was sent' },
  payout_not_cancellable: { code: '5060', message: 'Only a SCHEDULED payout can be cancelled' },

  // The database is away (restarting, failing over), or this gateway is stopping: nothing was
  // stored; the same request may be sent again.
  service_unavailable: { code: '9503', message: 'Service temporarily unavailable: try again shortly', http: 503 },
  internal_error: { code: '9999', message: 'Internal error', http: 500 },
} as const satisfies Record<string, CodeDef>;

export type CodeName = keyof typeof CODES;

/** A refusal with a stable code. Never carries card data: `detail` is written for the merchant. */
export class AppError extends Error {
  readonly codeName: CodeName;
  readonly field: string | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(codeName: CodeName, detail?: string, options?: { field?: string; headers?: Record<string, string> }) {
    super(detail ?? CODES[codeName].message);
    this.codeName = codeName;
    this.field = options?.field;
    this.headers = options?.headers;
  }

  get code(): string {
    return CODES[this.codeName].code;
  }

  get http(): number {
    return (CODES[this.codeName] as CodeDef).http ?? 400;
  }

  /** The `<code>:<message>` text answers carry. */
  get info(): string {
    return `${this.code}:${this.message}`;
  }
}

export function codeText(name: CodeName, detail?: string): string {
  return `${CODES[name].code}:${detail ?? CODES[name].message}`;
}
