// What a payment use case is given: a typed command, built by its adapter. HTTP and the hosted
// page parse and check the merchant's wire body into one (src/http/requests); a scheduler, the
// portal or the CLI build one directly. Nothing here knows a wire format.
import type { CheckedCard } from '../../domain/card.ts';
import type { Money } from '../../domain/money.ts';
import type { OrderDetails, OrderRecord, StoredOrder } from '../../domain/order.ts';
import type { PaymentRow } from '../../db/schema.ts';

export type { OrderDetails, OrderRecord, StoredOrder } from '../../domain/order.ts';

/**
 * What pays: a card the shopper typed (with its CVC), a vault token the shopper chose, or a stored
 * credential the merchant charges without the shopper (no CVC; the network transaction id of the
 * payment that stored it, when the processor gave one).
 */
export type PaymentSource =
  | { readonly kind: 'card'; readonly card: CheckedCard }
  | { readonly kind: 'token'; readonly tokenId: string }
  | { readonly kind: 'stored_credential'; readonly tokenId: string; readonly networkTransactionId?: string };

/** Who started the payment: the shopper at a checkout, or the merchant alone (a recurring charge). */
export type Initiator = 'shopper' | 'merchant';

export interface CardPaymentCommand extends OrderDetails {
  readonly source: PaymentSource;
  readonly initiator: Initiator;
  readonly record: OrderRecord;
  /**
   * What makes a repeat of this order the same request (same order_no, same identity → the
   * stored outcome; another identity → refused). HTTP gives the signed fields' canonical text
   * without the CVC; a command built directly, its own fields.
   */
  readonly identity: string;
}

/**
 * The order a payment's columns and stored record describe, for steps that run after the claim
 * (the hosted page's card attempts). Rows stored before the record kept `order` fall back to
 * the columns and the order fields under their wire names.
 */
export function storedOrderDetails(payment: PaymentRow): OrderDetails {
  const record = payment.request as OrderRecord & { open3d?: unknown; token_flag?: unknown; billing_country?: unknown };
  return {
    merchantId: payment.merchantId,
    accountId: payment.accountId,
    orderNo: payment.orderNo,
    amount: { minor: payment.amount, currency: payment.currency },
    ...(payment.shopperEmail ? { shopperEmail: payment.shopperEmail } : {}),
    ...(payment.shopperIp ? { shopperIp: payment.shopperIp } : {}),
    ...(payment.notifyUrl ? { notifyUrl: payment.notifyUrl } : {}),
    ...(typeof record.billing_country === 'string' ? { billingCountry: record.billing_country } : {}),
    requestThreeDS: record.open3d === '1',
    storeCard: record.token_flag === '1',
    ...record.order,
  };
}

/** The part of a command a payment keeps for later steps. */
export function storedOrder(order: OrderDetails): StoredOrder {
  const { merchantId: _m, accountId: _a, orderNo: _o, amount: _amount, ...rest } = order as OrderDetails & Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const key of ['shopperEmail', 'shopperIp', 'billingCountry', 'notifyUrl', 'requestThreeDS', 'storeCard', 'authentication', 'subscription'] as const) {
    if (rest[key] !== undefined) kept[key] = rest[key];
  }
  return kept as unknown as StoredOrder;
}

/** A merchant-initiated charge of a stored card: no CVC, no shopper, the network transaction id if known. */
export function merchantInitiatedCharge(fields: {
  merchantId: string;
  accountId: string;
  orderNo: string;
  amount: Money;
  tokenId: string;
  networkTransactionId?: string;
  notifyUrl?: string;
  record?: OrderRecord;
}): CardPaymentCommand {
  const order: OrderDetails = {
    merchantId: fields.merchantId,
    accountId: fields.accountId,
    orderNo: fields.orderNo,
    amount: fields.amount,
    ...(fields.notifyUrl ? { notifyUrl: fields.notifyUrl } : {}),
    requestThreeDS: false,
    storeCard: false,
  };
  const source: PaymentSource = {
    kind: 'stored_credential',
    tokenId: fields.tokenId,
    ...(fields.networkTransactionId ? { networkTransactionId: fields.networkTransactionId } : {}),
  };
  const record = { ...fields.record, order: storedOrder(order) };
  const identity = JSON.stringify(['mit', fields.orderNo, fields.amount.minor, fields.amount.currency, fields.tokenId, fields.notifyUrl ?? '', record]);
  return { ...order, source, initiator: 'merchant', record, identity };
}
