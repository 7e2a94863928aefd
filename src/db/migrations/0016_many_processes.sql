-- Several identical processes on one PostgreSQL share what one process used to keep in memory.

-- Every running gateway (and worker) beats here once a second, stamped with the database's own
-- now(): one clock for every process, whatever their hosts' clocks say. A gateway enforces its
-- part of each account's rate limit: the limit divided by the gateways beating recently.
CREATE TABLE process_heartbeats (
  id text PRIMARY KEY,
  role text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  beat_at timestamptz NOT NULL
);

-- A counter per cache that every process keeps (the account and key directory): a change bumps
-- it in the writer's transaction; processes that cannot LISTEN (behind PgBouncer without a direct
-- connection) see the new number within a second and drop their cache.
CREATE TABLE cache_versions (
  name text PRIMARY KEY,
  version bigint NOT NULL
);
INSERT INTO cache_versions (name, version) VALUES ('accounts', 0);

-- Sandbox only: the simulated processor's memory of approvals whose answer it "lost" (the timeout
-- card), so a later status query finds them, across restarts and from any process, as a real
-- acquirer's would.
CREATE TABLE simulator_lost_answers (
  payment_id text PRIMARY KEY,
  outcome jsonb NOT NULL,
  remembered_at timestamptz NOT NULL DEFAULT now()
)
