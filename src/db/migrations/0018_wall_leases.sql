-- Leases run on the wall clock, business due times on the business clock (the sandbox's test
-- clock may jump it by days while a worker holds a row). The payment and payout queues whose due
-- time is business time (a shopper's deadline, an authorisation's age, a payout's dates) keep their
-- lease in a column of its own, wall time (src/db/repositories/leases.ts).
ALTER TABLE payments ADD COLUMN leased_until timestamptz;
ALTER TABLE payouts ADD COLUMN leased_until timestamptz;
