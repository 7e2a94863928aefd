-- When a 3-D Secure or APM completion was last sent to the processor (wall time), written before
-- the processor hears of it. Its answer can be lost (a timeout, the gateway killed before
-- recording it) while the processor has charged the shopper: the expiry task asks the processor
-- about such a payment before failing it as abandoned (src/app/apm/expire.ts). Null: no completion
-- was ever sent, the processor has nothing to tell.
ALTER TABLE payments ADD COLUMN completion_sent_at timestamptz;
