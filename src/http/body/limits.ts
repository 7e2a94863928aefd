// What a body may hold before any credential is checked. Every bound is above what the largest
// operation can legitimately send (src/http/body/limits.test.ts computes that from the operations'
// schemas), and each is checked while reading, so an oversized body costs time linear in its size.

/**
 * Containers nested in a body, counting the body itself: the deepest field of any operation,
 * `person.documents.labels.bank_account.bank.code` of an APM payment, sits in 6.
 */
export const MAX_DEPTH = 8;

/**
 * Fields (leaves) in a form body. A card payment with every field and every list full holds
 * about 2,400; a batch of 100 orders about 700.
 */
export const MAX_FIELDS = 5_000;

/**
 * Entries of one list in a form body: the longest list any operation accepts (capture_orders,
 * review_orders, cart_items, account_owner, total_discount, additional_information) holds 100.
 */
export const MAX_LIST_ENTRIES = 100;
