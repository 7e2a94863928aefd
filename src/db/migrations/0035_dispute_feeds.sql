-- Dispute feeds per merchant connection (docs/connectors.md, "Disputes"). An acquirer that hands
-- out each merchant connection's disputes apart (its connector states `disputesBy: 'credentials'`)
-- is polled once for each distinct set of credentials stored on the accounts routed to it, with
-- those credentials, each feed with a cursor and a lease of its own: one row here per feed. The
-- id is a MAC of the connector and the credentials (the vault's fingerprint key, purpose
-- "dispute feed"): equal credentials share a feed, and the credentials themselves are never
-- written here. A connector's one feed (the default) keeps its row in dispute_cursors, as before,
-- so processes of the previous release, polling that one feed, run beside these unchanged.
CREATE TABLE dispute_feeds (
  id text PRIMARY KEY,
  connector text NOT NULL,
  cursor text,
  -- Wall time; NULL: due at once. Also the lease of the worker polling it (lease_token).
  next_poll_at timestamptz,
  lease_token text,
  polled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The feed that brought a held report ('' for a connector's one feed), which offers it again with
-- each of its polls; a process of the previous release holds and offers by connector alone.
ALTER TABLE held_dispute_reports ADD COLUMN feed text NOT NULL DEFAULT '';
