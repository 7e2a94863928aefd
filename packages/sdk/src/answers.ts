// What each operation answers (docs/api/*.md), after its signature verified. Every value is
// text (a payout's amounts in minor units aside); an empty string means "does not apply".
import type { PayoutBankDetails, PayoutBeneficiary, PayoutParty } from './requests.js';

/** 1 approved (authorised or captured), 0 declined or refused, 2 pending (3-D Secure, APM, processor), 3 held for review. */
export type OrderStatus = '0' | '1' | '2' | '3';

export interface RiskReason {
  readonly name: string;
  /** pass, hit or skipped. */
  readonly status: string;
}

/** The answer to a card payment (XML `respon`). */
export interface PaymentAnswer {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly order_no: string;
  readonly amount: string;
  readonly currency: string;
  readonly transaction_id: string;
  /** Masked: first six and last four digits. */
  readonly card: string;
  readonly order_status: OrderStatus;
  /** Four digits, as the query and notifications give it: tells an authorised payment (2000) from a captured one (3000). */
  readonly payment_status: string;
  /** `<code>:<message>`, e.g. `0000:Success`. */
  readonly result_info: string;
  readonly contract_name: string;
  readonly recurring_id: string;
  readonly recurring_deduction_period: string;
  readonly recurring_deduction_time: string;
  readonly note: string;
  readonly token_id: string;
  readonly connector: string;
  readonly threeds_result: string;
  /** accept, review or reject. */
  readonly risk_action: string;
  readonly risk_score: string;
  readonly risk_reasons: readonly RiskReason[];
  /** Where to send the shopper when order_status is 2 for 3-D Secure. */
  readonly redirect_url: string;
  readonly encryption_data: string;
}

/** The answer to an APM payment (XML `respon`): send the shopper to issuer_url. */
export interface ApmAnswer {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly order_no: string;
  readonly amount: string;
  readonly currency: string;
  readonly issuer_url: string;
  readonly transaction_id: string;
  readonly payment_method: string;
  readonly order_status: OrderStatus;
  readonly result_info: string;
  readonly encryption_data: string;
}

/** The envelope of the JSON answers. */
export interface Envelope {
  readonly merchant_id: string;
  readonly account_id: string;
  /** 1 when the request was understood (entries may still be refused one by one). */
  readonly return_status: string;
  readonly return_message: string;
  readonly encryption_data: string;
}

interface OrderEcho {
  readonly transaction_id: string;
  readonly order_no: string;
  readonly currency: string;
  readonly amount: string;
  /** Empty when done; otherwise `<code>:<message>`. */
  readonly error_message: string;
}

export interface CaptureResult extends OrderEcho {
  /** 1 captured, 2 pending at the processor, 0 refused. */
  readonly capture_status: '0' | '1' | '2';
}
export interface ReviewResult extends OrderEcho {
  readonly review_flag: string;
  /** 1 decided, 2 pending at the processor, 0 refused. */
  readonly review_status: '0' | '1' | '2';
}
export interface CancelResult extends OrderEcho {
  /** 1 cancelled, 2 pending at the processor, 0 refused. */
  readonly cancel_status: '0' | '1' | '2';
}
export interface RefundResult extends OrderEcho {
  readonly refund_amount: string;
  readonly refund_reason: string;
  /** 1 refunded, 2 pending at the processor, 0 refused. */
  readonly refund_status: '0' | '1' | '2';
  /** `V0000:OK`, otherwise `V<code>:<message>`. */
  readonly refund_message: string;
  /** The gateway's id of the refund (`RF…`), for refundSearch and notifications. */
  readonly refund_reference_id: string;
  readonly refund_reference: string;
}

export interface CaptureAnswer extends Envelope {
  readonly capture_orders: readonly CaptureResult[];
}
export interface ReviewAnswer extends Envelope {
  readonly review_orders: readonly ReviewResult[];
}
export interface CancelAnswer extends Envelope {
  readonly cancel_orders: readonly CancelResult[];
}
export interface RefundAnswer extends Envelope {
  readonly refund_orders: readonly RefundResult[];
}

export interface FraudCheck {
  readonly check_items: string;
  readonly status: string;
}

/** One transaction of a query; with query_result 0 only the key asked for is filled. */
export interface TransactionRecord {
  readonly transaction_id: string;
  readonly order_no: string;
  readonly amount: string;
  readonly currency: string;
  /** Four digits: 1000–1003 pending or held, 2000 authorised, 3000 captured, 3001/3002 refunded, 4000 cancelled, 5000 failed. */
  readonly payment_status: string;
  /** 1 found, 0 not found. */
  readonly query_result: '0' | '1';
  readonly reference_no: string;
  /** YYYYMMDDhhmmss, UTC. */
  readonly transaction_date: string;
  readonly service: string;
  readonly captured_amount: string;
  readonly refunded_amount: string;
  readonly is3ds: string;
  /** `acquiro` once the risk engine has decided on the payment; empty before (a hosted page no card was tried on). */
  readonly antifraud_provider: string;
  readonly fraud_check_result: readonly FraudCheck[];
  /** The subscription the payment began or is a recurring charge of; empty otherwise. */
  readonly contract_name: string;
  readonly recurring_id: string;
  /** `<interval_count> <interval>`, e.g. `1 month`. */
  readonly recurring_deduction_period: string;
  /** The subscription's next charge (UTC, `YYYY-MM-DD hh:mm:ss`); empty once nothing more is charged, and for a recurring charge's own payment. */
  readonly recurring_deduction_time: string;
}

export interface QueryAnswer extends Envelope {
  readonly orders_list: readonly TransactionRecord[];
  /** With a time window: the page and the number of transactions in the window. */
  readonly page?: string;
  readonly total?: string;
}

export interface RefundRecord {
  readonly transaction_id: string;
  readonly order_no: string;
  readonly currency: string;
  readonly amount: string;
  readonly refund_amount: string;
  readonly refund_reason: string;
  /** 1 refunded, 2 pending, 0 failed. */
  readonly refund_status: string;
  readonly refund_message: string;
  readonly refund_reference: string;
  readonly refund_reference_id: string;
  readonly error_message: string;
  /** YYYYMMDDhhmmss, UTC. */
  readonly refund_date: string;
  readonly settle_date: string;
  readonly query_result: '0' | '1';
}

export interface RefundSearchAnswer extends Envelope {
  readonly refund_list: readonly RefundRecord[];
  readonly page?: string;
  readonly total?: string;
}

export interface RankedMethod {
  readonly rank: string;
  readonly payment_method: string;
  /** card, redirect, bank_redirect, voucher or wallet. */
  readonly type: string;
  readonly label: string;
  readonly attempts: string;
  readonly approved: string;
  /** approved / attempts with four decimals; empty with no history. */
  readonly approval_rate: string;
  readonly basis: string;
}

export interface OptimiseAnswer extends Envelope {
  readonly currency: string;
  readonly amount: string;
  readonly billing_country: string;
  readonly device_type: string;
  readonly device_class: string;
  readonly amount_band: string;
  readonly window_days: string;
  readonly payment_methods: readonly RankedMethod[];
}

export type PayoutStatus = 'SCHEDULED' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'RETURNED';

/** The beneficiary as a payout's answer echoes it: its bank details without bank_code, with the rail. */
export type PayoutBeneficiaryEcho = Omit<PayoutBeneficiary, 'bank_details'> & {
  readonly bank_details: Omit<PayoutBankDetails, 'bank_code'> & {
    /** The rail's name: SEPA, ACH, FPS, …, or SWIFT. */
    readonly local_clearing_system: string;
  };
};

/** A payout's answer (and its notifications' fields): the request echoed, and what it moves. */
export interface PayoutAnswer {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly request_id: string;
  readonly transaction_id: string;
  readonly short_reference_id: string;
  readonly payer_id: string;
  readonly status: PayoutStatus;
  /** Empty unless FAILED (or RETURNED). */
  readonly failure_type: string;
  readonly failure_reason: string;
  readonly payment_currency: string;
  /** Both amounts of the transfer: the one the request named, and the other by the rate. */
  readonly payment_amount: string;
  readonly source_currency: string;
  readonly source_amount: string;
  readonly fx_rate: string;
  /** Integers in minor units of payment_currency, source_currency and fee_currency. */
  readonly amount_beneficiary_receives: number;
  readonly amount_payer_pays: number;
  readonly fee_amount: number;
  readonly fee_currency: string;
  readonly fee_paid_by: 'PAYER' | 'BENEFICIARY';
  readonly payment_method: 'LOCAL' | 'SWIFT';
  readonly reason: string;
  readonly reference: string;
  /** YYYY-MM-DD (UTC). */
  readonly payment_date: string;
  /** ISO 8601 with a numeric offset. */
  readonly created_at: string;
  readonly last_updated_at: string;
  readonly beneficiary: PayoutBeneficiaryEcho;
  /** Echoed when the request had them. */
  readonly payer?: PayoutParty;
  readonly swift_charge_option?: 'SHARED' | 'PAYER';
  readonly beneficiary_id?: string;
  readonly client_data?: string;
  readonly fund_source?: string;
  readonly notify_url?: string;
  readonly encryption_data: string;
}

/** The signed outcome on the shopper's return to return_url (docs/api/checkout.md). */
export interface ShopperReturn {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly order_no: string;
  readonly transaction_id: string;
  readonly amount: string;
  readonly currency: string;
  readonly order_status: OrderStatus;
  readonly result_info: string;
  readonly payment_method: string;
  readonly card: string;
  readonly token_id: string;
  readonly threeds_result: string;
  /** Unix seconds when the gateway sent the shopper back. */
  readonly return_time: string;
  readonly encryption_data: string;
  /** The return_url's own query parameters are kept (and signed) too. */
  readonly [parameter: string]: string;
}

/** The answer of POST /v1/cancelsubscription (docs/api/cancelsubscription.md). */
export interface CancelSubscriptionAnswer {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly recurring_id: string;
  readonly contract_name: string;
  /** 1 cancelled (also on a repeat), 0 not: error_message says why (`5014:Subscription not found`, ...). */
  readonly cancel_status: '0' | '1';
  readonly error_message: string;
  /** `Inactived` once cancelled, `Completed` when refused 5016; empty when no subscription has this recurring_id and contract_name. */
  readonly subscription_status: string;
  readonly encryption_data: string;
}
