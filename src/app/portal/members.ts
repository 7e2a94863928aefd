// A merchant's staff: created (by the CLI, or invited by an owner or admin in the portal) with a
// one-time link to set a password, listed, given another role, reset (a new link), disabled. Every
// change is one unit of work: the member's row and the acting member's locked (an invitation locks
// the acting member's), its move checked with MEMBER_MACHINE, the row written, its sessions ended
// where the change calls for it, and the audit row appended.
import { MEMBER_MACHINE, isRole, type Role } from '../../domain/members.ts';
import { newId } from '../../domain/ids.ts';
import type { Tx } from '../../db/client.ts';
import { deleteSessionsOf } from '../../db/repositories/portal-sessions.ts';
import {
  insertLink,
  insertMember,
  lockMembersOf,
  memberById,
  membersByEmail,
  membersOf,
  merchantExists,
  retireLinks,
  updateMember,
} from '../../db/repositories/portal-users.ts';
import type { PortalUserRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { appendAudit } from './audit.ts';
import { hashPassword, newToken, passwordProblem, tokenId } from './credentials.ts';
import { PortalRefusal, type Actor } from './refusal.ts';
import { LINK_LIFETIME_MS } from './timers.ts';

type MemberDeps = Pick<Deps, 'database' | 'wallClock' | 'config'>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailProblem(email: string): string | undefined {
  return email.length > 254 || !EMAIL.test(email) ? 'enter an e-mail address such as ana@shop.example' : undefined;
}

/** The page where a link's holder sets a password: the token travels in the query, which no log line carries. */
export function setPasswordUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/portal/set-password?token=${token}`;
}

async function newLink(tx: Tx, userId: string, at: Date): Promise<string> {
  const token = newToken();
  await retireLinks(tx, userId, at);
  await insertLink(tx, { id: tokenId(token), userId, expiresAt: new Date(at.getTime() + LINK_LIFETIME_MS), at });
  return token;
}

export interface CreateMember {
  readonly merchantId: string;
  readonly email: string;
  readonly role: string;
  /** Set at once (`--password-stdin`); without it the member is invited with a link. */
  readonly password?: string;
  readonly actor: Actor;
  /** The inviting member's role: an admin may not make an owner. */
  readonly actorRole?: Role;
}

export interface CreatedMember {
  readonly member: PortalUserRow;
  /** The one-time link to set a password, when none was given. */
  readonly link?: string;
}

export async function createMember(deps: MemberDeps, command: CreateMember): Promise<CreatedMember> {
  const email = command.email.trim();
  const problem = emailProblem(email);
  if (problem) throw new PortalRefusal(problem, { field: 'email' });
  if (!isRole(command.role)) throw new PortalRefusal('the role is one of owner, admin, operator, viewer', { field: 'role' });
  const role: Role = command.role;
  if (command.actorRole === 'admin' && role === 'owner') throw new PortalRefusal('only an owner may make an owner', { field: 'role', status: 403 });
  if (command.password !== undefined) {
    const weak = passwordProblem(command.password);
    if (weak) throw new PortalRefusal(weak, { field: 'password' });
  }
  if (!(await merchantExists(deps.database.db, command.merchantId))) throw new PortalRefusal(`no merchant ${command.merchantId}`, { field: 'merchant_id', status: 404 });
  const passwordHash = command.password === undefined ? null : await hashPassword(command.password, deps.config.passwordCost);
  const at = deps.wallClock.now();
  return deps.database.db.transaction(async (tx) => {
    // The inviting member as it stands, locked: one demoted or disabled since its session was read
    // (or while this waited for the demotion's lock) is refused, as a change by it is.
    const actorId = command.actor.userId;
    if (actorId !== null) checkActor((await lockMembersOf(tx, command.merchantId, [actorId]))[0], command);
    const entry = MEMBER_MACHINE.enter(passwordHash ? 'active' : 'invited');
    // Refused only for the merchant's own member with this address, or (a password given, by the
    // CLI) for an address another member signs in with: an invitation is unique within its
    // merchant alone (0030), so inviting another merchant's member is answered as any invitation.
    const member = await insertMember(tx, { id: newId('PU', at.getTime()), merchantId: command.merchantId, email, role, passwordHash, at }, entry);
    if (!member) throw new PortalRefusal('a member with this e-mail address exists already', { field: 'email', status: 409 });
    const token = passwordHash ? undefined : await newLink(tx, member.id, at);
    await appendAudit(tx, { merchantId: member.merchantId, ...actorOf(command.actor), action: 'member.create', target: `${member.id} ${member.email}`, outcome: 'ok', detail: { role } }, at);
    return { member, ...(token ? { link: setPasswordUrl(deps.config.baseUrl, token) } : {}) };
  });
}

/** Refuses an acting member no longer active with the role its session read when the request began. */
function checkActor(row: PortalUserRow | undefined, command: { readonly actorRole?: Role | undefined }): void {
  if (row?.status !== 'active' || row.role !== command.actorRole) {
    throw new PortalRefusal('your role or access changed while this was on its way: sign in again', { status: 403 });
  }
}

function actorOf(actor: Actor) {
  return { userId: actor.userId, email: actor.email, ip: actor.ip };
}

export function listMembers(deps: Pick<Deps, 'database'>, merchantId: string): Promise<PortalUserRow[]> {
  return membersOf(deps.database.db, merchantId);
}

/** The member named by id or e-mail, within the merchant when one is given (the portal always gives it). */
export async function findMember(deps: Pick<Deps, 'database'>, ref: { merchantId?: string; userId?: string; email?: string }): Promise<PortalUserRow> {
  const db = deps.database.db;
  const rows = ref.userId ? [await memberById(db, ref.userId)] : ref.email ? await membersByEmail(db, ref.email) : [];
  const found = rows.filter((row): row is PortalUserRow => row !== undefined && (ref.merchantId === undefined || row.merchantId === ref.merchantId));
  if (found.length === 0) throw new PortalRefusal('no such member', { status: 404 });
  // Several merchants may have invited one address: an e-mail alone does not say which is meant.
  if (found.length > 1) throw new PortalRefusal(`${found.length} members have this e-mail address (invited by more than one merchant): name one with --user-id`, { status: 409 });
  return found[0]!;
}

interface MemberChangeCommand {
  readonly merchantId: string;
  readonly userId: string;
  readonly actor: Actor;
  /** The acting member's role: an admin may not change or disable an owner, nor make one. */
  readonly actorRole?: Role;
}

/** One change to a member, as a unit of work: lock, check, write, audit. */
async function changeMember<T>(
  deps: MemberDeps,
  command: MemberChangeCommand,
  action: string,
  decide: (member: PortalUserRow, at: Date) => { apply: (tx: Tx, member: PortalUserRow) => Promise<T>; detail?: Record<string, string> },
): Promise<T> {
  const at = deps.wallClock.now();
  const actorId = command.actor.userId;
  return runUnitOfWork(deps.database, {
    // The acting member is locked with the target: two owners demoting or disabling each other at
    // the same moment would otherwise both pass, each on the role its session read when its
    // request began, and leave the merchant with no owner. Locked in id order (lockMembersOf),
    // the second waits for the first and then sees its actor as the first left it.
    lock: async (tx) => {
      const rows = await lockMembersOf(tx, command.merchantId, actorId === null ? [command.userId] : [command.userId, actorId]);
      return { member: rows.find((row) => row.id === command.userId), actor: rows.find((row) => row.id === actorId) };
    },
    check: ({ member, actor }) => {
      if (!member) throw new PortalRefusal('no such member', { status: 404 });
      if (actorId !== null) checkActor(actor, command);
      if (command.actorRole === 'admin' && member.role === 'owner') throw new PortalRefusal('only an owner may change an owner', { status: 403 });
      return { change: { member, decision: decide(member, at) } };
    },
    change: async (tx, { member, decision }) => {
      const result = await decision.apply(tx, member);
      await appendAudit(tx, { merchantId: member.merchantId, ...actorOf(command.actor), action, target: `${member.id} ${member.email}`, outcome: 'ok', ...(decision.detail ? { detail: decision.detail } : {}) }, at);
      return result;
    },
  });
}

export async function disableMember(deps: MemberDeps, command: MemberChangeCommand): Promise<void> {
  if (command.actor.userId === command.userId) throw new PortalRefusal('you cannot disable yourself', { status: 403 });
  await changeMember(deps, command, 'member.disable', (member, at) => {
    if (member.status === 'disabled') throw new PortalRefusal('the member is disabled already', { status: 409 });
    const move = MEMBER_MACHINE.move(member.status, 'disabled');
    return {
      apply: async (tx) => {
        await updateMember(tx, member.id, move, {}, at);
        await retireLinks(tx, member.id, at);
        await deleteSessionsOf(tx, member.id);
      },
    };
  });
}

export async function changeRole(deps: MemberDeps, command: MemberChangeCommand & { readonly role: string }): Promise<void> {
  if (!isRole(command.role)) throw new PortalRefusal('the role is one of owner, admin, operator, viewer', { field: 'role' });
  const role: Role = command.role;
  if (command.actorRole === 'admin' && role === 'owner') throw new PortalRefusal('only an owner may make an owner', { field: 'role', status: 403 });
  if (command.actor.userId === command.userId) throw new PortalRefusal('you cannot change your own role', { status: 403 });
  await changeMember(deps, command, 'member.role', (member, at) => {
    if (member.status === 'disabled') throw new PortalRefusal('the member is disabled', { status: 409 });
    const move = MEMBER_MACHINE.stay(member.status);
    // A new role takes effect at once: the member's sessions end, so no page keeps the old rights.
    return {
      apply: async (tx) => {
        await updateMember(tx, member.id, move, { role }, at);
        await deleteSessionsOf(tx, member.id);
      },
      detail: { from: member.role, to: role },
    };
  });
}

/** A new one-time link to set a password; the member's earlier links stop working. */
export async function resetMember(deps: MemberDeps, command: MemberChangeCommand): Promise<string> {
  return changeMember(deps, command, 'member.reset', (member, at) => {
    if (member.status === 'disabled') throw new PortalRefusal('the member is disabled', { status: 409 });
    return { apply: async (tx) => setPasswordUrl(deps.config.baseUrl, await newLink(tx, member.id, at)) };
  });
}
