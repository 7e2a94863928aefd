// What the gateway posts to notify_url (docs/notifications.md), one type per kind of event, told
// apart by notify_type. Every value is text except notify_time (a number) and, in payout events,
// the integer amounts and the nested beneficiary, as in the payout's answer.
import type { OrderStatus, PayoutAnswer } from './answers.js';

interface Envelope {
  /** The same on every retry and replay of the event: deduplicate on it. */
  readonly notify_id: string;
  /** Unix seconds of this attempt. */
  readonly notify_time: number;
  readonly encryption_data: string;
  readonly merchant_id: string;
  readonly account_id: string;
}

/** The payment as it stood when the event was recorded. */
export interface PaymentEventFields {
  readonly transaction_id: string;
  readonly order_no: string;
  readonly amount: string;
  readonly currency: string;
  /** Running totals after this event. */
  readonly captured_amount: string;
  readonly refunded_amount: string;
  readonly order_status: OrderStatus;
  /** Four digits: 2000 authorised, 3000 captured, 3001 partially refunded, 3002 refunded, 4000 cancelled, 5000 failed, 1000–1003 pending. */
  readonly payment_status: string;
  readonly result_info: string;
  readonly payment_method: string;
  readonly card: string;
  readonly token_id: string;
  readonly connector: string;
  readonly risk_action: string;
  readonly risk_score: string;
  readonly threeds_result: string;
  readonly contract_name: string;
  readonly recurring_id: string;
  readonly recurring_deduction_period: string;
  readonly recurring_deduction_time: string;
}

export interface PaymentNotification extends Envelope, PaymentEventFields {
  readonly notify_type: 'payment.authorised' | 'payment.captured' | 'payment.review' | 'payment.failed' | 'payment.cancelled';
}

/** The processor refused a capture or void the merchant asked for: the payment is unchanged. */
export interface CaptureFailedNotification extends Envelope, PaymentEventFields {
  readonly notify_type: 'payment.capture_failed';
  readonly capture_amount: string;
  readonly error_message: string;
}

export interface CancelFailedNotification extends Envelope, PaymentEventFields {
  readonly notify_type: 'payment.cancel_failed';
  readonly error_message: string;
}

export interface RefundNotification extends Envelope, PaymentEventFields {
  readonly notify_type: 'refund.succeeded' | 'refund.failed';
  readonly refund_reference_id: string;
  readonly refund_amount: string;
  readonly refund_status: string;
  readonly refund_message: string;
}

export interface ChargebackNotification extends Envelope, PaymentEventFields {
  readonly notify_type: 'chargeback.opened' | 'chargeback.reversed';
  readonly chargeback_id: string;
  readonly chargeback_amount: string;
  readonly chargeback_reason_code: string;
  readonly chargeback_reason: string;
  readonly chargeback_status: string;
}

interface SubscriptionFields {
  readonly recurring_id: string;
  readonly contract_name: string;
  readonly contract: string;
  readonly price_id: string;
  readonly subscription_status: string;
}

/** A recurring charge's attempt (docs/subscriptions.md). */
export interface SubscriptionChargeNotification extends Envelope, SubscriptionFields {
  readonly notify_type: 'subscription.charged' | 'subscription.charge_failed';
  readonly cycle: string;
  readonly attempt: string;
  /** Empty for an attempt never sent (result_info `5017`). */
  readonly transaction_id: string;
  readonly order_no: string;
  readonly amount: string;
  readonly currency: string;
  readonly order_status: OrderStatus;
  readonly payment_status: string;
  readonly result_info: string;
  readonly recurring_deduction_period: string;
  readonly recurring_deduction_time: string;
}

export interface SubscriptionCancelledNotification extends Envelope, SubscriptionFields {
  readonly notify_type: 'subscription.cancelled';
  readonly cycles_paid: string;
  readonly cancel_reason: string;
}

/** A payout event: the payout's answer as it stands, less its own signature. */
export interface PayoutNotification extends Envelope, Omit<PayoutAnswer, 'encryption_data' | 'merchant_id' | 'account_id'> {
  readonly notify_type: 'payout.completed' | 'payout.failed' | 'payout.cancelled' | 'payout.returned';
}

/** The body of a notification to notify_url: narrow on notify_type to read its fields. */
export type Notification =
  | PaymentNotification
  | CaptureFailedNotification
  | CancelFailedNotification
  | RefundNotification
  | ChargebackNotification
  | SubscriptionChargeNotification
  | SubscriptionCancelledNotification
  | PayoutNotification;
