// The one-time link `acquiro users create|reset` prints: its holder sets a password. Using it ends
// the member's sessions and lockout; a used, superseded or expired link does nothing.
import { MEMBER_MACHINE } from '../../domain/members.ts';
import { deleteSessionsOf } from '../../db/repositories/portal-sessions.ts';
import { addressTaken, linkHolder, memberById, retireLinks, updateMember } from '../../db/repositories/portal-users.ts';
import { isUniqueViolation } from '../../db/unique.ts';
import type { PortalUserRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { appendAudit } from './audit.ts';
import { hashPassword, passwordProblem, sentTokenId, tokenId } from './credentials.ts';
import { PortalRefusal } from './refusal.ts';

type LinkDeps = Pick<Deps, 'database' | 'wallClock' | 'config'>;

/** The member a link is for while it is usable (the page asks before showing the form). */
export async function linkMember(deps: LinkDeps, token: string | undefined): Promise<PortalUserRow | undefined> {
  const id = sentTokenId(token);
  if (!id) return undefined;
  const userId = await linkHolder(deps.database.db, id, deps.wallClock.now());
  const member = userId ? await memberById(deps.database.db, userId) : undefined;
  return member?.status === 'disabled' ? undefined : member;
}

export async function setPasswordWithLink(deps: LinkDeps, command: { token: string; password: string; ip: string }): Promise<PortalUserRow> {
  const weak = passwordProblem(command.password);
  if (weak) throw new PortalRefusal(weak, { field: 'password' });
  const passwordHash = await hashPassword(command.password, deps.config.passwordCost);
  const at = deps.wallClock.now();
  const gone = () => new PortalRefusal('this link has been used, replaced or has expired: ask for a new one', { status: 404 });
  // Any merchant may invite an address (the inviter is not told whether another merchant's staff
  // uses it), but sign-in takes the address alone: only one member signs in with it. Told here, to
  // the link's holder, who is meant to be the address's owner.
  const taken = () => new PortalRefusal('this e-mail address already signs in to the portal of another merchant, and an address signs in to one merchant only: ask to be invited at another address', { status: 409 });
  const setting = runUnitOfWork(deps.database, {
    lock: async (tx) => {
      const userId = await linkHolder(tx, tokenId(command.token), at, { lock: true });
      const member = userId ? await memberById(tx, userId, { lock: true }) : undefined;
      return member ? { member, taken: member.status === 'invited' && (await addressTaken(tx, member.email, member.id)) } : undefined;
    },
    check: (found) => {
      if (!found || found.member.status === 'disabled') throw gone();
      if (found.taken) throw taken();
      return { change: { member: found.member, move: MEMBER_MACHINE.move(found.member.status, 'active') } };
    },
    change: async (tx, { member, move }) => {
      await updateMember(tx, member.id, move, { passwordHash, failedAttempts: 0, lockedUntil: null }, at);
      await retireLinks(tx, member.id, at);
      await deleteSessionsOf(tx, member.id);
      await appendAudit(tx, { merchantId: member.merchantId, userId: member.id, email: member.email, ip: command.ip, action: 'password.set', target: member.id, outcome: 'ok' }, at);
      return member;
    },
  });
  // Two merchants' invitations of one address used at once: the unique index lets the first in.
  return setting.catch((error: unknown) => {
    throw isUniqueViolation(error, 'portal_users_email') ? taken() : error;
  });
}
