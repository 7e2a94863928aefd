-- What is reserved for refunds (pending and succeeded refunds) is kept on the payment row, so a
-- refund is claimed by one conditional update that the database re-checks against the latest row
-- under concurrency, and can never exceed what was captured.
ALTER TABLE payments ADD COLUMN refund_reserved bigint NOT NULL DEFAULT 0;
UPDATE payments p SET refund_reserved = (
  SELECT coalesce(sum(r.amount), 0) FROM refunds r WHERE r.payment_id = p.id AND r.status IN ('pending', 'succeeded')
);
ALTER TABLE payments ADD CONSTRAINT payments_refund_reserved_bounds
  CHECK (refund_reserved >= refunded_amount AND refund_reserved <= captured_amount)
