-- Delivery of the outbox (events) to merchants' notify_url, and the log of every attempt.
-- An event is due when delivery_status is pending and next_attempt_at (NULL: at once) has come by
-- the workers' clock. A worker leases it (locked_until, lease_token) before the HTTP call, outside
-- any transaction, and records the attempt after; a lease that runs out (the worker died) makes
-- the attempt due again.

ALTER TABLE events ADD COLUMN delivery_status text NOT NULL DEFAULT 'pending'
  CHECK (delivery_status IN ('pending', 'delivered', 'failed', 'no_target'));
-- Every attempt ever made, replays included: numbers the log.
ALTER TABLE events ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0);
-- Failed attempts since the retry schedule (re)started: picks the next delay.
ALTER TABLE events ADD COLUMN failures integer NOT NULL DEFAULT 0 CHECK (failures >= 0);
ALTER TABLE events ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE events ADD COLUMN locked_until timestamptz;
ALTER TABLE events ADD COLUMN lease_token text;
ALTER TABLE events ADD COLUMN delivered_at timestamptz;

UPDATE events SET delivery_status = 'no_target' WHERE notify_url IS NULL;

CREATE INDEX events_delivery_due ON events (next_attempt_at NULLS FIRST, id) WHERE delivery_status = 'pending';
CREATE INDEX events_delivery_status ON events (delivery_status, id);

CREATE TABLE notification_attempts (
  id bigserial PRIMARY KEY,
  event_id text NOT NULL REFERENCES events (id),
  attempt integer NOT NULL CHECK (attempt > 0),
  trigger text NOT NULL CHECK (trigger IN ('schedule', 'replay')),
  notify_time bigint NOT NULL,
  started_at timestamptz NOT NULL,
  -- sending until recorded; abandoned when the worker's lease ran out first.
  outcome text NOT NULL DEFAULT 'sending'
    CHECK (outcome IN ('sending', 'delivered', 'failed', 'refused', 'abandoned')),
  http_status integer,
  latency_ms integer,
  error text,
  response_excerpt text,
  UNIQUE (event_id, attempt)
);
