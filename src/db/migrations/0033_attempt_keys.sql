-- Each card attempt of a hosted page is its own charge at the processor, with its own idempotency
-- key (docs/connectors.md, "Idempotency keys"). The key of the payment's current attempt is kept
-- here, written by the attempt's claim before the processor hears of it, so a status query about an
-- unknown outcome (the sweepers) and a 3-D Secure completion name the attempt the processor
-- knows. NULL: the payment's only attempt, whose key is the transaction id (every payment before
-- this migration, and every direct one).
ALTER TABLE payments ADD COLUMN processor_key text;

-- Sandbox only: the simulator's memory is of charges, by the idempotency key they were sent with
-- (the transaction id for a payment's only attempt, so every row already there keeps its meaning).
ALTER TABLE simulator_lost_answers RENAME COLUMN payment_id TO idempotency_key;
