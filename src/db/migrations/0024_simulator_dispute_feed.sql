-- The sandbox simulator's dispute feed is acknowledged, not dated (src/connectors/simulator/disputes.ts):
-- a report due by the poller's clock is handed out under a poll id (the cursor answered with it),
-- and taken as delivered only when a later poll presents that cursor, which the core does once
-- it has recorded them. A business-time cursor lost the reports of a capture dated by a process
-- whose clock had not yet heard of an advance another process had already polled past.
ALTER TABLE simulator_disputes
  ADD COLUMN opened_poll text,
  ADD COLUMN opened_acked boolean NOT NULL DEFAULT false,
  ADD COLUMN reversed_poll text,
  ADD COLUMN reversed_acked boolean NOT NULL DEFAULT false;
CREATE INDEX simulator_disputes_unacked ON simulator_disputes (captured_at) WHERE NOT opened_acked OR (reverses AND NOT reversed_acked);
