-- When a payment's hold at the processor began (business time): the moment it was authorised,
-- entering authorised or pending_review from outside them (src/domain/payment.ts, beginsHold),
-- which for an APM paid days into its window, or a 3-D Secure challenge or redirect finished late,
-- is long after its created_at. The connector's authorisation expiry counts from it (the
-- expire-authorisations round and the capture/approval refusal, src/app/capture/hold-expiry.ts),
-- as the processor's own validity does; an approval from review keeps it. Null: never held.
-- Holds taken before this migration have only their created_at to go by: it is their held_since.
-- A hold written without one by a process still running the earlier code counts from its
-- created_at too, as it did then (the queue's due time is coalesce(held_since, created_at)), never
-- due at once. payments_holds_age (0022) is rebuilt on that expression, with the queue's predicate.
ALTER TABLE payments ADD COLUMN held_since timestamptz;
UPDATE payments SET held_since = created_at WHERE status IN ('authorised', 'pending_review');
DROP INDEX IF EXISTS payments_holds_age;
CREATE INDEX payments_holds_age ON payments (connector, (coalesce(held_since, created_at))) WHERE status IN ('authorised', 'pending_review');
