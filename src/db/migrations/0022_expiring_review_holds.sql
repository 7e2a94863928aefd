-- A payment held for review is an authorisation at the processor too, which the card network
-- drops after its connector's expiry days: the expiry sweeper's queue (QUEUES.expiringAuthorisations)
-- now holds it beside the authorised ones (status IN ('authorised', 'pending_review')). The
-- partial index of 0010 covers only status = 'authorised', which that predicate does not imply:
-- the lease would scan the table. It is replaced by one whose predicate is the queue's own.
DROP INDEX IF EXISTS payments_authorised_age;
CREATE INDEX payments_holds_age ON payments (connector, created_at) WHERE status IN ('authorised', 'pending_review');
