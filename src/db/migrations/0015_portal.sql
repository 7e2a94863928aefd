-- The merchant portal: staff members (portal_users), their sessions, one-time links (set a
-- password, reset it), recovery codes, and the audit log of every staff action and sign-in.

CREATE TABLE portal_users (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'operator', 'viewer')),
  status text NOT NULL CHECK (status IN ('invited', 'active', 'disabled')),
  -- scrypt$N$r$p$salt$hash (base64url); null until the member sets a password.
  password_hash text,
  -- The TOTP secret, sealed by the vault (context: the user id); null until enrolled.
  totp_secret text,
  totp_key_id text,
  -- The last TOTP time step accepted: a code is good once.
  totp_last_step bigint,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- One member per e-mail address across the gateway: sign-in takes the address alone.
CREATE UNIQUE INDEX portal_users_email ON portal_users (lower(email));
CREATE INDEX portal_users_merchant ON portal_users (merchant_id);

-- A session's token is kept as its SHA-256 only. status: password checked, second factor still
-- due (second_factor), TOTP enrolment due (enrol), or signed in (active).
CREATE TABLE portal_sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES portal_users (id),
  status text NOT NULL CHECK (status IN ('second_factor', 'enrol', 'active')),
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  reauth_at timestamptz,
  -- A TOTP secret offered during enrolment, sealed; kept until confirmed with a code.
  pending_totp_secret text,
  pending_totp_key_id text
);
CREATE INDEX portal_sessions_user ON portal_sessions (user_id);

-- One-time links printed by `acquiro users create|reset`: the token's SHA-256 only.
CREATE TABLE portal_links (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES portal_users (id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX portal_links_user ON portal_links (user_id);

CREATE TABLE portal_recovery_codes (
  user_id text NOT NULL REFERENCES portal_users (id),
  code_hash text NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, code_hash)
);

-- The audit log: one chain over every row in seq order; each row's hash is the SHA-256 of its
-- content and the previous row's hash (docs/portal.md, "Audit log").
CREATE TABLE portal_audit_log (
  seq bigint PRIMARY KEY,
  at timestamptz NOT NULL,
  merchant_id text,
  user_id text,
  email text NOT NULL,
  action text NOT NULL,
  target text,
  outcome text NOT NULL,
  ip text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb,
  prev_hash text NOT NULL,
  hash text NOT NULL
);
CREATE INDEX portal_audit_log_merchant ON portal_audit_log (merchant_id, seq);

-- Written once: every UPDATE, DELETE or TRUNCATE is refused, whoever asks (a superuser only by
-- disabling the trigger, which `acquiro audit verify` then catches through the hash chain).
CREATE FUNCTION portal_audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP;
END
$$;
CREATE TRIGGER portal_audit_log_append_only BEFORE UPDATE OR DELETE ON portal_audit_log
  FOR EACH ROW EXECUTE FUNCTION portal_audit_log_refuse_change();
CREATE TRIGGER portal_audit_log_no_truncate BEFORE TRUNCATE ON portal_audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION portal_audit_log_refuse_change();

-- The table belongs to a role that cannot log in; the role running the gateway (the one that runs
-- these migrations) keeps SELECT and INSERT only. The migrating role needs CREATEROLE, or an
-- administrator creates acquiro_audit_owner beforehand and grants it WITH ADMIN OPTION
-- (docs/portal.md, "Audit log").
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'acquiro_audit_owner') THEN
    CREATE ROLE acquiro_audit_owner NOLOGIN;
  END IF;
END
$$;
-- A new owner must be able to create in the schema; it keeps that right only while taking it.
DO $$
BEGIN
  EXECUTE format('GRANT CREATE ON SCHEMA %I TO acquiro_audit_owner', current_schema());
END
$$;
GRANT acquiro_audit_owner TO CURRENT_USER;
ALTER TABLE portal_audit_log OWNER TO acquiro_audit_owner;
REVOKE ALL ON portal_audit_log FROM CURRENT_USER;
GRANT SELECT, INSERT ON portal_audit_log TO CURRENT_USER;
REVOKE acquiro_audit_owner FROM CURRENT_USER;
DO $$
BEGIN
  EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM acquiro_audit_owner', current_schema());
END
$$;
