-- An Idempotency-Key held by a request whose process died (SIGKILL, crash, deploy) used to stay
-- 'processing' for the key's 7 days. The key now names its holder (a process's presence id,
-- process_heartbeats) and a lease on the wall clock that the holder renews while it runs; a
-- retry takes the key over when the holder stopped beating or the lease ran out
-- (src/http/plugins/idempotency.ts). `scope` is drawn once per key: the orders of a keyed
-- request are claimed under `scope:position`, so the request that takes over finds the captures,
-- voids and refunds the dead one made instead of making them again.
ALTER TABLE idempotency_keys ADD COLUMN holder text;
ALTER TABLE idempotency_keys ADD COLUMN held_until timestamptz;
ALTER TABLE idempotency_keys ADD COLUMN scope text;
UPDATE idempotency_keys SET scope = md5(account_id || ':' || key || ':' || created_at::text);
ALTER TABLE idempotency_keys ALTER COLUMN scope SET NOT NULL;

ALTER TABLE refunds ADD COLUMN request_key text;
CREATE UNIQUE INDEX refunds_request_key ON refunds (account_id, request_key) WHERE request_key IS NOT NULL;
ALTER TABLE payment_operations ADD COLUMN request_key text;
CREATE UNIQUE INDEX payment_operations_request_key ON payment_operations (account_id, request_key) WHERE request_key IS NOT NULL;
