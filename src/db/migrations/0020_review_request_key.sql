-- A review approval on a manual-capture account claims nothing at the processor: the payment only
-- becomes authorised, so there was no capture or void row (payment_operations.request_key, 0019)
-- for a keyed request that takes over from a dead one to find, and its retry was answered "not
-- held for review" (5011). The payment now keeps the order key (Idempotency-Key's scope and the
-- order's position) it was approved under; the retry finds it on the payment it locks anyway.
-- No index: it is read from that locked row only, never searched for, and the row lock with the
-- state machine already make the approval happen once.
ALTER TABLE payments ADD COLUMN review_request_key text;
