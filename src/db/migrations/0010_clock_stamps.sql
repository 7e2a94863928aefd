-- Times compared with the injected clock are written from it, never by the database's now():
-- a journal entry's booked_at (settlement moves what was booked before its cutoff) and a
-- payment's created_at (an authorisation expires on its connector's schedule from it). Neither
-- has a default, so a writer that forgets the clock's time is refused.
ALTER TABLE ledger_entries ADD COLUMN booked_at timestamptz;
UPDATE ledger_entries SET booked_at = created_at;
ALTER TABLE ledger_entries ALTER COLUMN booked_at SET NOT NULL;
ALTER TABLE payments ALTER COLUMN created_at DROP DEFAULT;

-- The expiry sweeper's queue (QUEUES.expiringAuthorisations): authorised payments by connector and age.
CREATE INDEX payments_authorised_age ON payments (connector, created_at) WHERE status = 'authorised';
