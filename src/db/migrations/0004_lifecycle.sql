-- The transaction lifecycle after authorisation: captures and voids of an authorisation, and
-- refunds of captured money. Each is claimed (a row in status pending) under the payment's row
-- lock before the processor is called, and settled in a second transaction once it has answered.

-- A capture or a void of one authorisation. At most one of them is live (pending or succeeded)
-- per payment: that index is what makes fifty concurrent captures capture once, and a capture
-- and a cancel exclude each other.
CREATE TABLE payment_operations (
  id text PRIMARY KEY,
  payment_id text NOT NULL REFERENCES payments (id),
  account_id text NOT NULL REFERENCES accounts (id),
  kind text NOT NULL CHECK (kind IN ('capture', 'void')),
  -- What asked for it: the merchant's capture or cancel, or the review decision.
  origin text NOT NULL CHECK (origin IN ('capture', 'cancel', 'review_approve', 'review_reject')),
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  connector_reference text,
  failure_reason text,
  attempts integer NOT NULL DEFAULT 0,
  -- When the sweeper may ask the processor again about a pending operation.
  next_check_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX payment_operations_live ON payment_operations (payment_id) WHERE status <> 'failed';
CREATE INDEX payment_operations_pending ON payment_operations (next_check_at) WHERE status = 'pending';

-- One refund of (part of) a payment's captured money. Pending refunds count against the captured
-- amount as much as succeeded ones: the sum of both never exceeds payments.captured_amount.
CREATE TABLE refunds (
  id text PRIMARY KEY,
  payment_id text NOT NULL REFERENCES payments (id),
  account_id text NOT NULL REFERENCES accounts (id),
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  reason text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  connector_reference text,
  result_code text,
  result_message text,
  attempts integer NOT NULL DEFAULT 0,
  next_check_at timestamptz NOT NULL,
  settled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refunds_payment ON refunds (payment_id);
CREATE INDEX refunds_account_created ON refunds (account_id, created_at);
CREATE INDEX refunds_pending ON refunds (next_check_at) WHERE status = 'pending';
