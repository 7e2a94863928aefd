-- Every status column holds only its machine's states (src/domain/payment.ts, lifecycle.ts;
-- docs/states.md); the moves between them are checked by the one transition function. Refunds
-- and payment operations have had theirs since 0004.
ALTER TABLE payments ADD CONSTRAINT payments_status_check CHECK (status IN ('processing', 'requires_authentication',
  'requires_redirect', 'pending_review', 'authorised', 'captured', 'partially_refunded', 'refunded', 'cancelled', 'failed'));

-- One clock: the sweepers compared updated_at (set by the database's now()) with the injected
-- clock. A pending payment now carries when a sweeper should next look at it, set from the
-- injected clock, and pushed on by the lease a sweeper takes (src/db/repositories/leases.ts).
ALTER TABLE payments ADD COLUMN next_check_at timestamptz;
UPDATE payments SET next_check_at = CASE status
    WHEN 'processing' THEN updated_at + interval '30 seconds'
    WHEN 'requires_authentication' THEN updated_at + interval '30 minutes'
    WHEN 'requires_redirect' THEN expires_at
  END
  WHERE status IN ('processing', 'requires_authentication', 'requires_redirect');
DROP INDEX payments_processing;
DROP INDEX payments_waiting;
DROP INDEX payments_authenticating;
CREATE INDEX payments_due ON payments (next_check_at) WHERE next_check_at IS NOT NULL;
