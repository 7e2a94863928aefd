-- Subscriptions (recurring contracts) and their charges (docs/subscriptions.md). A subscription is
-- created with the approval of the card payment that carries its terms; each cycle's charge is a
-- payment of its own, one row per attempt here, claimed before the processor is asked.
CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  merchant_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('Active', 'Inactived', 'Completed', 'Unpaid')),
  contract_name text NOT NULL,
  contract text,
  price_id text,
  interval text NOT NULL CHECK (interval IN ('day', 'week', 'month', 'year')),
  interval_count integer NOT NULL CHECK (interval_count >= 1),
  billing_cycles integer NOT NULL CHECK (billing_cycles >= 0),
  promotion_cycles integer NOT NULL CHECK (promotion_cycles >= 0),
  contract_start date,
  contract_end date,
  -- The first payment's time (the clock's): cycle n falls due (n - 1) intervals after it.
  anchor_at timestamptz NOT NULL,
  first_amount bigint NOT NULL,
  contract_amount bigint NOT NULL,
  currency text NOT NULL,
  token_id text NOT NULL,
  network_transaction_id text,
  notify_url text,
  first_payment_id text NOT NULL UNIQUE,
  order_no_base text NOT NULL,
  -- The last cycle paid (1: the first payment), and the attempt the next charge will be.
  cycles_paid integer NOT NULL DEFAULT 1,
  next_cycle integer NOT NULL DEFAULT 2,
  next_attempt integer NOT NULL DEFAULT 1,
  -- When the next cycle falls due (NULL once no cycle follows), and when its next attempt is
  -- taken (NULL while an attempt is open, and once the subscription is no longer Active).
  next_due_at timestamptz,
  next_charge_at timestamptz,
  -- The billing sweeper's lease (src/db/repositories/leases.ts).
  locked_until timestamptz,
  ended_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_due ON subscriptions (next_charge_at) WHERE status = 'Active' AND next_charge_at IS NOT NULL;
CREATE INDEX subscriptions_account ON subscriptions (account_id, created_at);

CREATE TABLE subscription_charges (
  id text PRIMARY KEY,
  subscription_id text NOT NULL,
  account_id text NOT NULL,
  cycle integer NOT NULL,
  attempt integer NOT NULL,
  order_no text NOT NULL,
  amount bigint NOT NULL,
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  payment_id text,
  result_code text,
  result_message text,
  due_at timestamptz NOT NULL,
  -- When the sweeper next takes up a pending attempt (the clock's); its lease.
  next_check_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, cycle, attempt)
);
-- At most one successful charge per cycle, whatever runs at once.
CREATE UNIQUE INDEX subscription_charges_paid ON subscription_charges (subscription_id, cycle) WHERE status = 'succeeded';
CREATE INDEX subscription_charges_due ON subscription_charges (next_check_at) WHERE status = 'pending';

-- The payment that created a subscription names it (recurring_id in its answers and notifications).
ALTER TABLE payments ADD COLUMN subscription_id text;

-- Per account: how declined recurring charges are retried (DunningSettings; '{}': the default).
ALTER TABLE accounts ADD COLUMN dunning jsonb NOT NULL DEFAULT '{}';
