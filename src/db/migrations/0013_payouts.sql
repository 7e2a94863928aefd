-- Payouts (/v1/payout) paid from the account's available balance, the exchange rates they convert
-- at, and each account's payout fees. docs/payouts.md.

-- One row per payout. request_id is the merchant's idempotency key, unique per account; the
-- request as echoed is kept in `request`; amounts are minor units of the named currencies; the
-- rate used is kept as its decimal text. Every time is the injected clock's (no default).
-- next_check_at is the rail task's due time and lease: midnight UTC of payment_date while
-- SCHEDULED, the next question to the rail while PROCESSING, the end of the return watch while
-- COMPLETED, NULL once final.
CREATE TABLE payouts (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  merchant_id text NOT NULL,
  request_id text NOT NULL,
  request_fingerprint text NOT NULL,
  request jsonb NOT NULL,
  short_reference_id text NOT NULL,
  payment_method text NOT NULL,
  clearing_system text NOT NULL,
  payment_date date NOT NULL,
  payment_currency text NOT NULL,
  source_currency text NOT NULL,
  transfer_payment bigint NOT NULL,
  transfer_source bigint NOT NULL,
  amount_beneficiary_receives bigint NOT NULL,
  amount_payer_pays bigint NOT NULL,
  fee_amount bigint NOT NULL,
  fee_currency text NOT NULL,
  fee_paid_by text NOT NULL,
  fx_rate text NOT NULL,
  status text NOT NULL CHECK (status IN ('SCHEDULED', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED', 'RETURNED')),
  failure_type text,
  failure_reason text,
  connector text NOT NULL,
  rail_reference text,
  notify_url text,
  attempts integer NOT NULL DEFAULT 0,
  next_check_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT payouts_request UNIQUE (account_id, request_id)
);
CREATE INDEX payouts_due ON payouts (next_check_at) WHERE next_check_at IS NOT NULL;
CREATE INDEX payouts_account_created ON payouts (account_id, created_at);

-- Payment-currency units per source-currency unit, as decimal text (read exactly, never a float).
CREATE TABLE fx_rates (
  source_currency text NOT NULL,
  payment_currency text NOT NULL,
  rate text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (source_currency, payment_currency)
);

-- Per source currency: {"USD": {"fixed": 150, "bps": 50, "swift": 2500}} (minor units, basis
-- points, the SWIFT charge). A currency without an entry pays the documented sandbox default.
ALTER TABLE accounts ADD COLUMN payout_fees jsonb NOT NULL DEFAULT '{}';

-- Sandbox rates to start from (acquiro fx set replaces them): from USD, EUR and GBP to the
-- currencies of the local rails, and back.
INSERT INTO fx_rates (source_currency, payment_currency, rate, updated_at) VALUES
  ('USD', 'EUR', '0.92', '2026-01-01T00:00:00Z'), ('EUR', 'USD', '1.087', '2026-01-01T00:00:00Z'),
  ('USD', 'GBP', '0.79', '2026-01-01T00:00:00Z'), ('GBP', 'USD', '1.266', '2026-01-01T00:00:00Z'),
  ('EUR', 'GBP', '0.858', '2026-01-01T00:00:00Z'), ('GBP', 'EUR', '1.165', '2026-01-01T00:00:00Z'),
  ('USD', 'JPY', '153.27', '2026-01-01T00:00:00Z'), ('USD', 'AUD', '1.52', '2026-01-01T00:00:00Z'),
  ('USD', 'CAD', '1.37', '2026-01-01T00:00:00Z'), ('USD', 'INR', '83.4', '2026-01-01T00:00:00Z'),
  ('USD', 'BRL', '5.05', '2026-01-01T00:00:00Z'), ('USD', 'MXN', '17.1', '2026-01-01T00:00:00Z'),
  ('EUR', 'AUD', '1.65', '2026-01-01T00:00:00Z'), ('EUR', 'CAD', '1.49', '2026-01-01T00:00:00Z'),
  ('EUR', 'INR', '90.6', '2026-01-01T00:00:00Z'), ('EUR', 'BRL', '5.49', '2026-01-01T00:00:00Z'),
  ('EUR', 'MXN', '18.6', '2026-01-01T00:00:00Z'), ('EUR', 'JPY', '166.6', '2026-01-01T00:00:00Z')
ON CONFLICT DO NOTHING;
