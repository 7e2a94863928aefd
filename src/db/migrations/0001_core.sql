-- Merchants, their accounts and credentials; payments, the card vault, the ledger, the event
-- outbox and risk lists. Amounts are bigint minor units beside their currency.

CREATE SEQUENCE merchant_number START 100001;
CREATE SEQUENCE account_number START 100001;

CREATE TABLE merchants (
  id text PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE accounts (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  capture_mode text NOT NULL DEFAULT 'auto' CHECK (capture_mode IN ('auto', 'manual')),
  connector text NOT NULL DEFAULT 'simulator',
  rate_limit_per_second integer CHECK (rate_limit_per_second > 0),
  fee_bps integer NOT NULL DEFAULT 0 CHECK (fee_bps >= 0 AND fee_bps <= 10000),
  risk_settings jsonb NOT NULL DEFAULT '{}',
  storefront_domains text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_merchant ON accounts (merchant_id);

-- A rotated key keeps working until expires_at; a current key has none.
CREATE TABLE account_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  secret_ciphertext text NOT NULL,
  vault_key_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz
);
CREATE INDEX account_keys_account ON account_keys (account_id);

CREATE TABLE account_ips (
  account_id text NOT NULL REFERENCES accounts (id),
  cidr text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, cidr)
);

CREATE TABLE card_tokens (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  pan_ciphertext text NOT NULL,
  vault_key_id text NOT NULL,
  brand text NOT NULL,
  bin text NOT NULL,
  last4 text NOT NULL,
  pan_length integer NOT NULL,
  expiry_month integer NOT NULL,
  expiry_year integer NOT NULL,
  fingerprint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX card_tokens_account ON card_tokens (account_id);

-- One row per order: the row is claimed (status processing) before the processor is called, so a
-- retry or a concurrent twin finds it instead of charging again.
CREATE TABLE payments (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  merchant_id text NOT NULL,
  order_no text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('card', 'apm', 'checkout')),
  payment_method text NOT NULL,
  status text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  captured_amount bigint NOT NULL DEFAULT 0 CHECK (captured_amount >= 0 AND captured_amount <= amount),
  refunded_amount bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0 AND refunded_amount <= captured_amount),
  request_fingerprint text NOT NULL,
  request jsonb NOT NULL,
  card_brand text,
  card_bin text,
  card_last4 text,
  card_length integer,
  card_fingerprint text,
  token_id text,
  shopper_email text,
  shopper_ip text,
  notify_url text,
  connector text NOT NULL,
  connector_reference text,
  action_url text,
  result_code text,
  result_message text,
  risk_score integer,
  risk_action text,
  risk_reasons jsonb,
  threeds_result text,
  -- Bumped by every update: a writer that read version n updates only if it is still n.
  version integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, order_no)
);
CREATE INDEX payments_account_created ON payments (account_id, created_at);
CREATE INDEX payments_card_velocity ON payments (card_fingerprint, created_at) WHERE card_fingerprint IS NOT NULL;
CREATE INDEX payments_email_velocity ON payments (shopper_email, created_at) WHERE shopper_email IS NOT NULL;
CREATE INDEX payments_ip_velocity ON payments (shopper_ip, created_at) WHERE shopper_ip IS NOT NULL;
CREATE INDEX payments_processing ON payments (updated_at) WHERE status = 'processing';

-- Double entry: every journal's amounts (debit positive, credit negative) sum to zero per currency.
CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  journal_id text NOT NULL,
  account_id text NOT NULL REFERENCES accounts (id),
  book text NOT NULL,
  kind text NOT NULL,
  currency text NOT NULL,
  amount bigint NOT NULL CHECK (amount <> 0),
  payment_id text,
  reference_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_journal ON ledger_entries (journal_id);
CREATE INDEX ledger_entries_account_book ON ledger_entries (account_id, book, currency);
CREATE INDEX ledger_entries_payment ON ledger_entries (payment_id);

-- The outbox: an event is written in the same transaction as the change it announces.
CREATE TABLE events (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  type text NOT NULL,
  payment_id text,
  payload jsonb NOT NULL,
  notify_url text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_account_created ON events (account_id, created_at);
CREATE INDEX events_payment ON events (payment_id);

-- account_id NULL: the entry applies to every account of the gateway.
CREATE TABLE risk_blocklist (
  id bigserial PRIMARY KEY,
  account_id text REFERENCES accounts (id),
  kind text NOT NULL CHECK (kind IN ('card', 'email', 'ip', 'bin', 'country')),
  value text NOT NULL,
  note text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX risk_blocklist_entry ON risk_blocklist (coalesce(account_id, ''), kind, value);
