-- Sign-ins finished lately: the id of the pending session (the SHA-256 of its cookie's token, as
-- portal_sessions keeps it) that a sign-in's last step replaced with a signed-in one, written in the
-- same transaction. A step of that sign-in sent again later (the form sent twice) comes with that
-- cookie; found here it is answered "Already done", not found (the sign-in expired, or never was)
-- it is sent to sign in again (docs/portal.md, "Signing in"). Kept until remembered_until, a
-- sign-in's own lifetime; the periodic clean-up of expired sessions deletes the rows past it.
CREATE TABLE portal_finished_sign_ins (
  id text PRIMARY KEY,
  remembered_until timestamptz NOT NULL
);
