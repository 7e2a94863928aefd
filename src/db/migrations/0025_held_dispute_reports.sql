-- Dispute reports the gateway could not place when they came (docs/chargebacks.md, "Reports held"):
-- no payment under that reference yet (its outcome still unknown, the sweeper not yet through),
-- the reversal of an opening still held, or an amount or currency that does not fit. The acquirer
-- hands a report out once, so it is kept here, written in the transaction that moves the
-- connector's cursor past it, and tried again on each poll of its connector until it is placed.
CREATE TABLE held_dispute_reports (
  connector text NOT NULL,
  connector_dispute_id text NOT NULL,
  stage text NOT NULL CHECK (stage IN ('opened', 'reversed')),
  payment_reference text NOT NULL,
  amount bigint NOT NULL,
  currency text NOT NULL,
  reason_code text NOT NULL,
  reason text,
  reported_at timestamptz NOT NULL,
  -- Why the last try could not place it (src/app/disputes/record.ts, SkipReason).
  skip_reason text NOT NULL,
  attempts int NOT NULL DEFAULT 1,
  held_at timestamptz NOT NULL,
  tried_at timestamptz NOT NULL,
  PRIMARY KEY (connector, connector_dispute_id, stage)
);
