// The portal's security timers, all on the wall clock (deps.wallClock), never the sandbox's
// business clock: a test clock advanced by days must not end sessions or lockouts early.

export const IDLE_TIMEOUT_MS = 15 * 60_000;
export const SESSION_LIMIT_MS = 12 * 60 * 60_000;
/** A session between the password and the second factor (or its enrolment). */
export const PENDING_SIGN_IN_MS = 10 * 60_000;
/**
 * A finished sign-in's pending session is remembered this long after it was replaced: a step of
 * it sent again (the form sent twice) is answered "Already done" until then, as an expired
 * sign-in after. As long as the sign-in itself could last: a sending is not later than that.
 */
export const FINISHED_SIGN_IN_REMEMBERED_MS = PENDING_SIGN_IN_MS;
/** Re-authentication stays fresh this long (refund above the threshold, key rotation, members). */
export const REAUTH_FRESH_MS = 5 * 60_000;
export const FAILURES_BEFORE_LOCKOUT = 5;
export const LOCKOUT_MS = 15 * 60_000;
export const LINK_LIFETIME_MS = 24 * 60 * 60_000;
/** last_seen_at is written at most this often: a page view a second does not write a row a second. */
export const TOUCH_EVERY_MS = 30_000;
