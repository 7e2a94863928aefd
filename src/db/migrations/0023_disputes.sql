-- Chargebacks (docs/chargebacks.md). A dispute the acquirer reported about a captured payment,
-- one row per dispute: opened (the amount debited from the merchant), then perhaps reversed (the
-- merchant won it: credited back). Unique per connector and the acquirer's dispute id, so a
-- report seen again finds its row.
CREATE TABLE disputes (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  merchant_id text NOT NULL,
  payment_id text NOT NULL,
  connector text NOT NULL,
  connector_dispute_id text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  reason_code text NOT NULL,
  reason text,
  status text NOT NULL CONSTRAINT disputes_status_check CHECK (status IN ('open', 'reversed')),
  opened_at timestamptz NOT NULL,
  reversed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT disputes_connector_dispute UNIQUE (connector, connector_dispute_id)
);
CREATE INDEX disputes_payment ON disputes (payment_id);

-- Where each connector's next poll for disputes starts (the cursor it answered last), written in
-- the transaction that records the reports it came with. next_poll_at (wall time, NULL: due at
-- once) doubles as the lease of the worker polling it; lease_token names that worker.
CREATE TABLE dispute_cursors (
  connector text PRIMARY KEY,
  cursor text,
  next_poll_at timestamptz,
  lease_token text,
  polled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A report names the payment by its reference at the processor.
CREATE INDEX payments_connector_reference ON payments (connector, connector_reference) WHERE connector_reference IS NOT NULL;

-- The sandbox simulator's memory of the dispute test cards' payments (src/connectors/simulator/disputes.ts):
-- remembered at authorisation, dated at capture (business time), reported a day later (and, for
-- the reversing card, reversed two days after capture). Empty in live mode.
CREATE TABLE simulator_disputes (
  payment_id text PRIMARY KEY,
  reference text NOT NULL,
  amount bigint NOT NULL,
  currency text NOT NULL,
  reverses boolean NOT NULL,
  captured_at timestamptz
);
