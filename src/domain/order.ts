// An order in domain terms, and what a payment keeps of it (its OrderRecord), shared by the use
// cases' commands, the repositories and the encoders of answers and pages.
import type { Money } from './money.ts';
import type { SubscriptionTerms } from './subscriptions/subscription.ts';

/** The order, in domain terms. */
export interface OrderDetails {
  readonly merchantId: string;
  readonly accountId: string;
  readonly orderNo: string;
  readonly amount: Money;
  readonly shopperEmail?: string;
  readonly shopperIp?: string;
  readonly billingCountry?: string;
  readonly notifyUrl?: string;
  readonly requestThreeDS: boolean;
  readonly storeCard: boolean;
  readonly authentication?: { eci?: string | undefined; cavv?: string | undefined; xid?: string | undefined; dsTransId?: string | undefined };
  /** The recurring contract the payment begins, when approved (docs/subscriptions.md). */
  readonly subscription?: SubscriptionTerms;
}

/**
 * What a payment keeps of its order beside its columns, and echoes in answers, notifications and
 * the shopper's pages. Written by the command (never the raw wire body), under the names merchants
 * know them by.
 */
export interface OrderRecord {
  readonly note?: string;
  readonly service?: string;
  readonly custom?: string;
  readonly subscription?: { readonly contract_name?: string };
  readonly return_url?: string;
  readonly cancel_url?: string;
  readonly browser_lang?: string;
  readonly default_lang?: string;
  readonly challenge_window_size?: string;
  readonly storefront_domains?: string;
  readonly bank_code?: string;
  readonly item_total?: string;
  readonly shipping?: string;
  readonly handling?: string;
  readonly insurance?: string;
  readonly tax_total?: string;
  readonly discount?: string;
  readonly shipping_discount?: string;
  /** The order as its command stated it, for a payment completed later (the hosted page's card attempts). */
  readonly order?: StoredOrder;
  /**
   * The rest of the order data (cart, account owner, addresses, device, subscription terms) as the
   * adapter checked it, under the same names: kept for the portal and subscriptions; nothing reads
   * it untyped. Never the card group, the signature or the account's ids.
   */
  readonly [orderField: string]: unknown;
}

/** OrderDetails without what the payment's own columns hold (ids, order_no, amount). */
export type StoredOrder = Omit<OrderDetails, 'merchantId' | 'accountId' | 'orderNo' | 'amount'>;

