// Signing in to the portal: e-mail and password, then the second factor (a TOTP code or a
// recovery code) when the member has one, or its enrolment when the role requires one (owner,
// admin). Every step that fails counts toward the lockout; a locked member is refused even with
// the right password until the lock ends. Each successful step mints a new session token (the
// row's key changes), so no token seen before sign-in is ever a signed-in session.
import { MEMBER_MACHINE, SECOND_FACTOR_REQUIRED, SESSION_MACHINE, type SessionStatus } from '../../domain/members.ts';
import type { Tx } from '../../db/client.ts';
import { deleteSession, insertFinishedSignIn, insertSession, sessionWithMember } from '../../db/repositories/portal-sessions.ts';
import { merchantActive } from '../../db/repositories/accounts.ts';
import { memberByEmail, memberById, updateMember, useRecoveryCode, type MemberChange } from '../../db/repositories/portal-users.ts';
import type { PortalSessionRow, PortalUserRow } from '../../db/schema.ts';
import { runUnitOfWork, type Decision } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { appendAudit, recordAudit } from './audit.ts';
import { dummyHash, newToken, passwordMatches, recoveryCodeHash, tokenId, totpStep } from './credentials.ts';
import { emailProblem } from './members.ts';
import { FAILURES_BEFORE_LOCKOUT, FINISHED_SIGN_IN_REMEMBERED_MS, LOCKOUT_MS, PENDING_SIGN_IN_MS, SESSION_LIMIT_MS } from './timers.ts';

type SignInDeps = Pick<Deps, 'database' | 'wallClock' | 'vault' | 'config'>;

export type SignInResult =
  | { readonly ok: true; readonly token: string; readonly status: SessionStatus }
  | { readonly ok: false; readonly reason: 'invalid' | 'locked' }
  /** The pending sign-in is over (another request with a good code finished it): nothing done, nothing counted. */
  | { readonly ok: false; readonly reason: 'ended' };

/** What a step of sign-in learned about the member's credentials. */
export type Verdict = 'good' | 'bad';

/** The member's lockout after one more verdict: the failures counted, the lock set at the limit. */
export function afterVerdict(member: PortalUserRow, verdict: Verdict, at: Date): MemberChange {
  if (verdict === 'good') return { failedAttempts: 0, lockedUntil: null };
  const failures = member.failedAttempts + 1;
  return failures >= FAILURES_BEFORE_LOCKOUT ? { failedAttempts: 0, lockedUntil: new Date(at.getTime() + LOCKOUT_MS) } : { failedAttempts: failures };
}

export function isLocked(member: PortalUserRow, at: Date): boolean {
  return member.lockedUntil !== null && member.lockedUntil > at;
}

/** Whole seconds from `at` to `until` (a lock's end), at least 1: a Retry-After. */
export function secondsUntil(until: Date, at: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - at.getTime()) / 1000));
}

function firstStatus(member: PortalUserRow): SessionStatus {
  if (member.totpSecret) return 'second_factor';
  return SECOND_FACTOR_REQUIRED.includes(member.role) ? 'enrol' : 'active';
}

interface PasswordCheck {
  readonly row: PortalUserRow;
  readonly outcome: 'good' | 'invalid' | 'locked';
  /** Counted toward the lockout (null: refused before the password counted, or right with a code still due). */
  readonly verdict: Verdict | null;
}

/** Step one: e-mail and password. */
export async function signIn(deps: SignInDeps, attempt: { email: string; password: string; ip: string }): Promise<SignInResult> {
  const at = deps.wallClock.now();
  const found = await memberByEmail(deps.database.db, attempt.email.trim());
  // The hash is checked even for an unknown address, so the answer takes as long either way.
  const matches = await passwordMatches(found?.passwordHash ?? dummyHash(deps.config.passwordCost), attempt.password);
  if (!found) {
    const typed = emailProblem(attempt.email.trim()) ? '(not an e-mail address)' : attempt.email.trim();
    await recordAudit(deps.database, { merchantId: null, userId: null, email: typed, action: 'sign-in', outcome: 'refused', ip: attempt.ip, detail: { reason: 'unknown e-mail' } }, at);
    return { ok: false, reason: 'invalid' };
  }
  const merchantOpen = await merchantActive(deps.database.db, found.merchantId);
  return runUnitOfWork(deps.database, {
    lock: (tx) => memberById(tx, found.id, { lock: true }),
    check: (member): Decision<PasswordCheck, SignInResult> => {
      const row = member!;
      // The password checked was the member's current one: a reset in between makes it void.
      // A disabled merchant's members are refused like a disabled member, before the password counts.
      if (row.status !== 'active' || !merchantOpen || row.passwordHash !== found.passwordHash) return { change: { row, outcome: 'invalid', verdict: null } };
      if (isLocked(row, at)) return { change: { row, outcome: 'locked', verdict: null } };
      // A right password with a code still due proves half of it: the count of failures in a row
      // goes on until the code is right, or someone holding the password could guess codes four
      // at a time for ever, signing in again before the fifth.
      if (matches && firstStatus(row) === 'second_factor') return { change: { row, outcome: 'good', verdict: null } };
      return { change: { row, outcome: matches ? 'good' : 'invalid', verdict: matches ? 'good' : 'bad' } };
    },
    change: async (tx, { row, outcome, verdict }): Promise<SignInResult> => {
      const base = { merchantId: row.merchantId, userId: row.id, email: row.email, ip: attempt.ip, action: 'sign-in' };
      if (verdict) await updateMember(tx, row.id, MEMBER_MACHINE.stay(row.status), afterVerdict(row, verdict, at), at);
      if (outcome !== 'good') {
        const reason = outcome === 'locked' ? 'locked' : row.status !== 'active' ? `member ${row.status}` : !merchantOpen ? 'merchant disabled' : 'wrong password';
        const locks = verdict === 'bad' && row.failedAttempts + 1 >= FAILURES_BEFORE_LOCKOUT;
        await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason, ...(locks ? { locked: 'now' } : {}) } }, at);
        return { ok: false, reason: outcome === 'locked' ? 'locked' : 'invalid' };
      }
      const status = firstStatus(row);
      const token = await openSession(tx, row, status, at);
      await appendAudit(tx, { ...base, action: status === 'active' ? 'sign-in' : 'sign-in.password', outcome: 'ok' }, at);
      return { ok: true, token, status };
    },
  });
}

async function openSession(tx: Tx, member: PortalUserRow, status: SessionStatus, at: Date, reauthenticated = false): Promise<string> {
  const token = newToken();
  const limit = status === 'active' ? SESSION_LIMIT_MS : PENDING_SIGN_IN_MS;
  const session = { id: tokenId(token), userId: member.id, at, expiresAt: new Date(at.getTime() + limit), ...(reauthenticated ? { reauthAt: at } : {}) };
  await insertSession(tx, session, SESSION_MACHINE.enter(status));
  return token;
}

/** A recovery code is typed with dashes or is longer than a TOTP code. */
export function isRecoveryCode(code: string): boolean {
  return code.replace(/\s/g, '').length > 6;
}

/**
 * Step two: the TOTP code (or a recovery code) of a session whose password was checked. The
 * session becomes active under a new token; a wrong code counts toward the lockout.
 */
export async function completeSecondFactor(
  deps: SignInDeps,
  attempt: { session: PortalSessionRow; code: string; ip: string },
): Promise<SignInResult> {
  const at = deps.wallClock.now();
  return runUnitOfWork(deps.database, {
    lock: (tx) => memberById(tx, attempt.session.userId, { lock: true }),
    check: (member) => ({ change: member! }),
    change: async (tx, member): Promise<SignInResult> => {
      const base = { merchantId: member.merchantId, userId: member.id, email: member.email, ip: attempt.ip, action: 'sign-in' };
      if (member.status !== 'active' || !member.totpSecret || attempt.session.status !== 'second_factor') return { ok: false, reason: 'invalid' };
      // Read again under the member's lock: two requests with two good codes (a TOTP code and a
      // recovery code, or this step's and the next) each read the pending session before either
      // promoted it, and the second would open a second session, spending its code.
      if (!(await sessionWithMember(tx, attempt.session.id))) return { ok: false, reason: 'ended' };
      if (isLocked(member, at)) {
        await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason: 'locked' } }, at);
        return { ok: false, reason: 'locked' };
      }
      const recovery = isRecoveryCode(attempt.code);
      const step = recovery ? undefined : totpStep(deps.vault.open({ ciphertext: member.totpSecret, keyId: member.totpKeyId! }, member.id), attempt.code, at, member.totpLastStep);
      const good = recovery ? await useRecoveryCode(tx, member.id, recoveryCodeHash(attempt.code), at) : step !== undefined;
      await updateMember(tx, member.id, MEMBER_MACHINE.stay(member.status), { ...afterVerdict(member, good ? 'good' : 'bad', at), ...(step !== undefined ? { totpLastStep: step } : {}) }, at);
      if (!good) {
        await appendAudit(tx, { ...base, outcome: 'refused', detail: { reason: recovery ? 'wrong recovery code' : 'wrong code' } }, at);
        return { ok: false, reason: 'invalid' };
      }
      const token = await promote(tx, attempt.session, member, at);
      await appendAudit(tx, { ...base, outcome: 'ok', detail: { second_factor: recovery ? 'recovery code' : 'totp' } }, at);
      return { ok: true, token, status: 'active' };
    },
  });
}

/**
 * The pending session ends; an active one with a new token replaces it. Signing in with a code
 * does not count as re-authentication (a sensitive action asks again); enrolling a second factor
 * at sign-in does (`reauthenticated`), as the member has just typed its password and a code. The
 * pending session is remembered as finished, in the same transaction, so a step sent again with
 * its cookie is told from one of a sign-in that expired, by any process (isFinishedSignIn).
 */
export async function promote(tx: Tx, pending: PortalSessionRow, member: PortalUserRow, at: Date, options: { reauthenticated?: boolean } = {}): Promise<string> {
  SESSION_MACHINE.move(pending.status, 'active');
  await deleteSession(tx, pending.id);
  await insertFinishedSignIn(tx, pending.id, new Date(at.getTime() + FINISHED_SIGN_IN_REMEMBERED_MS));
  return openSession(tx, member, 'active', at, options.reauthenticated ?? false);
}
