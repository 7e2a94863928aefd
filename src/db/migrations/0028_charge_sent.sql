-- When a worker began sending a subscription charge's attempt (wall time): stamped under the
-- subscription's lock while it was Active, in a transaction committed before the attempt's payment
-- is claimed and the processor hears of it (src/app/subscriptions/bill.ts). A cancel committed
-- before the stamp leaves the attempt unsent: the worker fails it (5017). Null: never begun.
ALTER TABLE subscription_charges ADD COLUMN sent_at timestamptz;
