-- Balances that payouts draw on, per account and currency; the platform's own account for our
-- fees; one key per journal. docs/ledger.md and docs/adr/0002 say why.

-- Our fees are booked to this account, never inside a merchant's books. It signs nothing.
INSERT INTO merchants (id, name, status) VALUES ('platform', 'Acquiro platform', 'disabled') ON CONFLICT (id) DO NOTHING;
INSERT INTO accounts (id, merchant_id, name, status) VALUES ('platform', 'platform', 'fees', 'disabled') ON CONFLICT (id) DO NOTHING;

-- available and reserved equal, at every commit, the credit sides of the merchant_available and
-- merchant_reserved books of the account (acquiro ledger check proves it). Pending is not stored:
-- it is the merchant_balance book, written by captures and refunds without touching this row.
-- available may go below zero (a refund or chargeback settled after a payout); a reservation
-- never takes it there (the conditional update in repositories/balances.ts).
CREATE TABLE account_balances (
  account_id text NOT NULL REFERENCES accounts (id),
  currency text NOT NULL,
  available bigint NOT NULL DEFAULT 0,
  reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, currency)
);

-- A journal's id is its key: a retried movement cannot be written twice.
DROP INDEX ledger_entries_journal;
CREATE UNIQUE INDEX ledger_entries_journal_book ON ledger_entries (journal_id, book);

-- Fees per currency, a fixed part in minor units plus basis points of the captured amount:
-- {"USD": {"fixed": 30, "bps": 290}}. A currency without an entry pays fee_bps alone.
ALTER TABLE accounts ADD COLUMN fees jsonb NOT NULL DEFAULT '{}';

-- An authorisation never captured is voided when its connector's expiry passes (origin 'expiry').
ALTER TABLE payment_operations DROP CONSTRAINT IF EXISTS payment_operations_origin_check;
ALTER TABLE payment_operations ADD CONSTRAINT payment_operations_origin_check
  CHECK (origin IN ('capture', 'cancel', 'review_approve', 'review_reject', 'expiry'));

-- Each account's credentials with its connector (API keys of the acquirer), sealed by the vault
-- like cards and secret keys (context: the account id), resealed by `acquiro vault reseal`.
ALTER TABLE accounts ADD COLUMN connector_credentials text;
ALTER TABLE accounts ADD COLUMN connector_credentials_key text;
