// A portal session from its cookie's token: found by the token's digest, ended when idle for 15
// minutes or past its absolute limit (wall clock), or when its member (or the member's merchant)
// is no longer active. Also: whether a token that opens nothing was a sign-in finished lately,
// sign out (this session, or everywhere), re-authentication, and TOTP enrolment.
import { MEMBER_MACHINE, SESSION_MACHINE } from '../../domain/members.ts';
import { claimPendingTotpSecret, deleteExpiredSessions, deleteForgottenSignIns, deleteOtherSessionsOf, deleteSession, deleteSessionsOf, isFinishedSignIn, offerPendingTotpSecret, sessionWithMember, touchSession, updateSession } from '../../db/repositories/portal-sessions.ts';
import { memberById, replaceRecoveryCodes, updateMember, useRecoveryCode } from '../../db/repositories/portal-users.ts';
import type { PortalSessionRow, PortalUserRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { appendAudit, recordAudit } from './audit.ts';
import { newRecoveryCodes, newTotpSecret, passwordMatches, recoveryCodeHash, sentTokenId, totpStep, totpUri } from './credentials.ts';
import type { Actor } from './refusal.ts';
import { afterVerdict, isLocked, isRecoveryCode, promote } from './sign-in.ts';
import { IDLE_TIMEOUT_MS, REAUTH_FRESH_MS, TOUCH_EVERY_MS } from './timers.ts';

type SessionDeps = Pick<Deps, 'database' | 'wallClock' | 'vault'>;

export interface OpenSession {
  readonly session: PortalSessionRow;
  readonly member: PortalUserRow;
}

/** The session the token opens, or undefined (unknown, idle too long, past its limit, member or merchant not active). */
export async function sessionOf(deps: SessionDeps, token: string | undefined): Promise<OpenSession | undefined> {
  const id = sentTokenId(token);
  if (!id) return undefined;
  const found = await sessionWithMember(deps.database.db, id);
  if (!found) return undefined;
  const now = deps.wallClock.now().getTime();
  const { session, member, merchantActive } = found;
  if (now >= session.expiresAt.getTime() || now - session.lastSeenAt.getTime() >= IDLE_TIMEOUT_MS || member.status !== 'active' || !merchantActive) {
    await deleteSession(deps.database.db, session.id);
    return undefined;
  }
  if (now - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await touchSession(deps.database.db, session.id, new Date(now));
  return { session, member };
}

/**
 * Whether the token was that of a pending sign-in whose last step finished it lately (replaced by
 * a signed-in session), rather than one that expired, ended or never was (docs/portal.md, "Signing in").
 */
export async function finishedSignIn(deps: Pick<Deps, 'database' | 'wallClock'>, token: string | undefined): Promise<boolean> {
  const id = sentTokenId(token);
  return id !== undefined && (await isFinishedSignIn(deps.database.db, id, deps.wallClock.now()));
}

/** Deletes the rows of sessions past their limits, and of finished sign-ins no longer remembered (the periodic task); answers how many. */
export async function endExpiredSessions(deps: Pick<Deps, 'database' | 'wallClock'>): Promise<number> {
  const at = deps.wallClock.now();
  return (await deleteExpiredSessions(deps.database.db, at, IDLE_TIMEOUT_MS)) + (await deleteForgottenSignIns(deps.database.db, at));
}

export function actorOf(open: OpenSession, ip: string): Actor {
  return { userId: open.member.id, email: open.member.email, ip };
}

export async function signOut(deps: SessionDeps, open: OpenSession, ip: string): Promise<void> {
  const at = deps.wallClock.now();
  await deps.database.db.transaction(async (tx) => {
    await deleteSession(tx, open.session.id);
    await appendAudit(tx, { merchantId: open.member.merchantId, ...actorOf(open, ip), action: 'sign-out', outcome: 'ok' }, at);
  });
}

/**
 * Ends the session a sign-in came with, which the new one replaces in the browser: left alive, its
 * token (copied, or still in another tab's memory) would open the portal until its idle limit.
 */
export async function endReplacedSession(deps: SessionDeps, open: OpenSession | undefined): Promise<void> {
  if (open) await deleteSession(deps.database.db, open.session.id);
}

/** Ends every session of the member, this one included. */
export async function signOutEverywhere(deps: SessionDeps, open: OpenSession, ip: string): Promise<number> {
  const at = deps.wallClock.now();
  return deps.database.db.transaction(async (tx) => {
    const ended = await deleteSessionsOf(tx, open.member.id);
    await appendAudit(tx, { merchantId: open.member.merchantId, ...actorOf(open, ip), action: 'sign-out.everywhere', outcome: 'ok', detail: { sessions: String(ended) } }, at);
    return ended;
  });
}

export function isFresh(deps: Pick<Deps, 'wallClock'>, session: PortalSessionRow): boolean {
  return session.reauthAt !== null && deps.wallClock.now().getTime() - session.reauthAt.getTime() < REAUTH_FRESH_MS;
}

/**
 * A confirmation's verdict. `locked`: the member is locked, by this failure (the fifth in a row,
 * counted with sign-in's) or before it, until `until`; the action waits for the lock to end, the
 * session stays (ending it would let anyone who can fail five sign-ins sign the member out).
 */
export type Reauthentication =
  | { readonly outcome: 'ok' | 'wrong' }
  | { readonly outcome: 'locked'; readonly until: Date }
  /** The member's second factor was set or replaced after this request's session was read (by a request sent with it): refused, not counted. */
  | { readonly outcome: 'changed' };

/**
 * Confirms the member is at the keyboard: the password, and a TOTP code when enrolled, or one of
 * its recovery codes (used up), as at sign-in: a member who lost its authenticator must still be
 * able to replace it from My account. Failures count toward the lockout like a sign-in's, in the
 * same count; while the member is locked nothing is checked or counted, the right password too.
 */
export async function reauthenticate(deps: SessionDeps, open: OpenSession, attempt: { password: string; code: string; ip: string }): Promise<Reauthentication> {
  const at = deps.wallClock.now();
  const passwordOk = await passwordMatches(open.member.passwordHash ?? '', attempt.password);
  return runUnitOfWork(deps.database, {
    lock: (tx) => memberById(tx, open.member.id, { lock: true }),
    check: (member) => ({ change: member! }),
    change: async (tx, member): Promise<Reauthentication> => {
      const base = { merchantId: member.merchantId, ...actorOf(open, attempt.ip), action: 'reauthenticate' };
      if (isLocked(member, at)) {
        await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason: 'locked' } }, at);
        return { outcome: 'locked', until: member.lockedUntil! };
      }
      // Its code was typed for the factor as it was (none, or the one replaced): no guess at the
      // factor now set, so no failure is counted (a form sent twice would otherwise count one).
      if (member.totpSecret !== open.member.totpSecret) {
        await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason: 'second factor changed meanwhile' } }, at);
        return { outcome: 'changed' };
      }
      const passwordGood = passwordOk && member.passwordHash === open.member.passwordHash;
      const recovery = member.totpSecret !== null && isRecoveryCode(attempt.code);
      const step = member.totpSecret && !recovery ? totpStep(deps.vault.open({ ciphertext: member.totpSecret, keyId: member.totpKeyId! }, member.id), attempt.code, at, member.totpLastStep) : undefined;
      // A recovery code is used up only by a confirmation that the password makes good.
      const codeGood = !member.totpSecret || (recovery ? passwordGood && (await useRecoveryCode(tx, member.id, recoveryCodeHash(attempt.code), at)) : step !== undefined);
      const good = passwordGood && codeGood;
      const lockout = afterVerdict(member, good ? 'good' : 'bad', at);
      await updateMember(tx, member.id, MEMBER_MACHINE.stay(member.status), { ...lockout, ...(step !== undefined ? { totpLastStep: step } : {}) }, at);
      if (good) {
        await updateSession(tx, open.session.id, SESSION_MACHINE.stay(open.session.status), { reauthAt: at });
        await appendAudit(tx, { ...base, outcome: 'ok' }, at);
        return { outcome: 'ok' };
      }
      const lockedNow = lockout.lockedUntil ?? undefined;
      await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason: 'wrong password or code', ...(lockedNow ? { locked: 'now' } : {}) } }, at);
      return lockedNow ? { outcome: 'locked', until: lockedNow } : { outcome: 'wrong' };
    },
  });
}

export interface Enrolment {
  readonly secret: string;
  readonly uri: string;
}

/**
 * The secret offered to a session enrolling a second factor: made once, kept sealed on the session
 * until confirmed. Loads of the page at once (two tabs, a double click, a prefetch) that each find
 * none each offer one; the first written is kept and every load shows it, so the key the member
 * scans is the one a confirmation checks. The member's factor, if on, is not touched.
 */
export async function enrolmentOf(deps: SessionDeps, open: OpenSession): Promise<Enrolment> {
  const { id, pendingTotpSecret, pendingTotpKeyId } = open.session;
  let sealed = pendingTotpSecret ? { ciphertext: pendingTotpSecret, keyId: pendingTotpKeyId! } : undefined;
  if (!sealed) {
    const offered = deps.vault.seal(newTotpSecret(), id);
    // The session gone meanwhile: the key offered is shown, though nothing can confirm it (the next request signs in again).
    sealed = (await offerPendingTotpSecret(deps.database.db, id, offered)) ?? offered;
  }
  const secret = deps.vault.open(sealed, id);
  return { secret, uri: totpUri(secret, open.member.email) };
}

export type EnrolmentResult =
  | { readonly ok: true; readonly recoveryCodes: readonly string[]; readonly token?: string }
  /**
   * `wrong code`: not the key's code (or no key offered); `ended`: the sign-in's session was ended
   * (the member has a second factor now: sign in with it); `confirmed`: this session's key was
   * confirmed already, by another request (sent at the same time, say), whose answer showed the
   * recovery codes.
   */
  | { readonly ok: false; readonly reason: 'wrong code' | 'ended' | 'confirmed' };

/**
 * Confirms enrolment with a code from the app: the member's second factor is set, ten recovery
 * codes are made (shown once), and a session that was waiting on enrolment becomes active under a
 * new token. A member already enrolled replaces its secret (My account); set or replaced from My
 * account, the member's other sessions end, as with a new password: one opened elsewhere with
 * the factor being replaced (a lost phone, say) is not trusted past the change. The key is taken
 * from the session once (claimPendingTotpSecret): of confirmations sent at once with its code,
 * from any process, one sets the factor and its recovery codes; the others change nothing.
 */
export async function confirmEnrolment(deps: SessionDeps, open: OpenSession, attempt: { code: string; ip: string }): Promise<EnrolmentResult> {
  const at = deps.wallClock.now();
  const pending = open.session.pendingTotpSecret;
  // No key on the session: a signed-in member with a factor had it confirmed by an earlier request.
  if (!pending) return { ok: false, reason: open.session.status === 'active' && open.member.totpSecret !== null ? 'confirmed' : 'wrong code' };
  const secret = deps.vault.open({ ciphertext: pending, keyId: open.session.pendingTotpKeyId! }, open.session.id);
  const step = totpStep(secret, attempt.code, at, null);
  const base = { merchantId: open.member.merchantId, ...actorOf(open, attempt.ip), action: 'second-factor.enrol' };
  if (step === undefined) {
    await recordAudit(deps.database, { ...base, outcome: 'refused', detail: { reason: 'wrong code' } }, at);
    return { ok: false, reason: 'wrong code' };
  }
  const codes = newRecoveryCodes();
  return runUnitOfWork(deps.database, {
    lock: (tx) => memberById(tx, open.member.id, { lock: true }),
    check: (member) => ({ change: member! }),
    change: async (tx, member): Promise<EnrolmentResult> => {
      // Enrolled meanwhile, in another sign-in: this one, past the password alone, would replace
      // the factor without its code (someone holding the password, signed in before the member
      // enrolled). It ends; signing in again asks for the code.
      if (open.session.status === 'enrol' && member.totpSecret !== null) {
        // Unless it was this very sign-in, finished by another sending of the form with the same
        // key (its session promoted, not left): that one's answer showed the recovery codes, and
        // ending the session here would sign the member out of the one it opened.
        if (!(await sessionWithMember(tx, open.session.id))) {
          await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason: 'key already confirmed' } }, at);
          return { ok: false, reason: 'confirmed' };
        }
        await deleteSession(tx, open.session.id);
        await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason: 'a second factor was set in another session' } }, at);
        return { ok: false, reason: 'ended' };
      }
      if (!(await claimPendingTotpSecret(tx, open.session.id, pending))) {
        await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason: 'key already confirmed' } }, at);
        return { ok: false, reason: 'confirmed' };
      }
      const sealed = deps.vault.seal(secret, member.id);
      await updateMember(tx, member.id, MEMBER_MACHINE.stay(member.status), { totpSecret: sealed.ciphertext, totpKeyId: sealed.keyId, totpLastStep: step }, at);
      await replaceRecoveryCodes(tx, member.id, codes.map(recoveryCodeHash), at);
      // The member has just typed its password and a code: that counts as re-authentication.
      if (open.session.status === 'enrol') {
        await appendAudit(tx, { ...base, outcome: 'ok' }, at);
        return { ok: true, recoveryCodes: codes, token: await promote(tx, open.session, member, at, { reauthenticated: true }) };
      }
      const ended = await deleteOtherSessionsOf(tx, member.id, open.session.id);
      await appendAudit(tx, { ...base, outcome: 'ok', detail: { sessions_ended: String(ended) } }, at);
      return { ok: true, recoveryCodes: codes };
    },
  });
}
