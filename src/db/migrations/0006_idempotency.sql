-- Idempotency-Key on batch operations that move money: the first request with a key claims it;
-- a repeat with the same body gets the stored answer, a repeat with another body is refused.
CREATE TABLE idempotency_keys (
  account_id text NOT NULL REFERENCES accounts (id),
  key text NOT NULL,
  operation text NOT NULL,
  request_fingerprint text NOT NULL,
  status text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'done')),
  http_status integer,
  content_type text,
  answer text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
