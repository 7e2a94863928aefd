-- A recurring charge held for review that no one decides before its cycle's window closes (the
-- next cycle's due time) is rejected by the gateway itself: a void of origin 'review_expired'
-- (result 3003), docs/subscriptions.md.
ALTER TABLE payment_operations DROP CONSTRAINT IF EXISTS payment_operations_origin_check;
ALTER TABLE payment_operations ADD CONSTRAINT payment_operations_origin_check
  CHECK (origin IN ('capture', 'cancel', 'review_approve', 'review_reject', 'review_expired', 'expiry'));
