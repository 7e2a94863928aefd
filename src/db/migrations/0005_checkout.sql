-- The shopper-facing half: hosted payment page sessions, and the deadline of payments that wait
-- for the shopper (hosted page, APM issuer page).

-- One hosted-page session per checkout payment. The hand-off page's signInfo names the session
-- and expires at handoff_expires_at; the first hand-off POST sets handed_off_at, after which the
-- same signInfo is refused (replay). attempts counts card attempts on the page.
CREATE TABLE checkout_sessions (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  payment_id text NOT NULL UNIQUE REFERENCES payments (id),
  handoff_expires_at timestamptz NOT NULL,
  handed_off_at timestamptz,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_result_code text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkout_sessions_account ON checkout_sessions (account_id, created_at);

-- When a payment waiting for the shopper (status requires_redirect) is given up as abandoned.
ALTER TABLE payments ADD COLUMN expires_at timestamptz;
CREATE INDEX payments_waiting ON payments (expires_at) WHERE status = 'requires_redirect';
CREATE INDEX payments_authenticating ON payments (updated_at) WHERE status = 'requires_authentication';
