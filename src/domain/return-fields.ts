// The query the gateway adds to a merchant's return_url (or cancel_url) when it sends the shopper
// back with the signed outcome (docs/api/checkout.md, "Back to the merchant").

/** The outcome's names, in the order the return gives them; encryption_data follows. */
export const RETURN_FIELDS = [
  'merchant_id',
  'account_id',
  'order_no',
  'transaction_id',
  'amount',
  'currency',
  'order_status',
  'result_info',
  'payment_method',
  'card',
  'token_id',
  'threeds_result',
  'contract_name',
  'recurring_id',
  'recurring_deduction_period',
  'recurring_deduction_time',
  'return_time',
] as const;

export type ReturnFields = Record<(typeof RETURN_FIELDS)[number], string>;

/**
 * Names a merchant's return URL may not carry: the gateway sets them, so a value of the
 * merchant's under one of them would be replaced on the way back, never kept.
 */
export const GATEWAY_RETURN_NAMES: ReadonlySet<string> = new Set([...RETURN_FIELDS, 'encryption_data']);
