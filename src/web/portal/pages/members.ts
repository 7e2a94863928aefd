// Members (owners and admins): who has access, invite one (a one-time link to hand over), change
// a role, disable. Each change asks for a fresh re-authentication, and the use case writes the
// audit row in the transaction of the change. An admin cannot touch an owner or make one.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { changeRole, createMember, disableMember, listMembers } from '../../../app/portal/members.ts';
import { ROLES } from '../../../domain/members.ts';
import type { PortalUserRow } from '../../../db/schema.ts';
import { html, type Html } from '../../html.ts';
import { formOf, portalAction, portalPage, type PortalContext } from '../guard.ts';
import { csrfField } from '../layout.ts';

type MemberParams = { Params: { id: string } };

function roleSelect(name: string, id: string, selected: string, allowed: readonly string[]): Html {
  return html`<select name="${name}" id="${id}">${allowed.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${role}</option>`)}</select>`;
}

function rolesFor(context: PortalContext): readonly string[] {
  return context.member.role === 'owner' ? ROLES : ROLES.filter((role) => role !== 'owner');
}

function memberRow(context: PortalContext, member: PortalUserRow): Html {
  const self = member.id === context.member.userId;
  const untouchable = self || member.status === 'disabled' || (context.member.role !== 'owner' && member.role === 'owner');
  return html`<tr id="member-${member.id}">
<td>${member.email}</td>
<td>${member.role}</td>
<td>${member.status}</td>
<td>${member.totpSecret ? 'on' : 'off'}</td>
<td>${untouchable
    ? ''
    : html`<form method="post" action="/portal/members/${member.id}/role" class="inline-form">${csrfField(context.csrfToken)}<label class="visually-hidden" for="role-${member.id}">Role of ${member.email}</label>${roleSelect('role', `role-${member.id}`, member.role, rolesFor(context))} <button class="button small secondary" type="submit">Change role</button></form>
<form method="post" action="/portal/members/${member.id}/disable" class="inline-form" data-confirm="Disable ${member.email}? This cannot be undone.">${csrfField(context.csrfToken)}<button class="button small danger" type="submit">Disable</button></form>`}</td>
</tr>`;
}

export function membersRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/members',
    permission: 'members.view',
    title: 'Members',
    render: async (context) => {
      const members = await listMembers(deps, context.member.merchantId);
      return html`<h1>Members</h1>
<section class="panel">
<h2>Invite a member</h2>
<form method="post" action="/portal/members/invite" class="filters">
${csrfField(context.csrfToken)}
<div class="field"><label for="invite-email">E-mail</label><input id="invite-email" name="email" type="email" required maxlength="254"></div>
<div class="field"><label for="invite-role">Role</label>${roleSelect('role', 'invite-role', 'viewer', rolesFor(context))}</div>
<div class="field"><button class="button small" type="submit">Invite</button></div>
</form>
</section>
<div class="table-wrap"><table class="data">
<thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Two-step</th><th scope="col">Change</th></tr></thead>
<tbody>${members.map((member) => memberRow(context, member))}</tbody>
</table></div>`;
    },
  });

  portalAction(app, deps, {
    path: '/members/invite',
    permission: 'members.change',
    audit: 'member.create',
    reauth: true,
    handle: async (context, request) => {
      const form = formOf(request);
      const created = await createMember(deps, { merchantId: context.member.merchantId, email: form.email ?? '', role: form.role ?? '', actor: context.actor, actorRole: context.member.role });
      return {
        audited: true,
        title: 'Member invited',
        page: html`<h1>Member invited</h1>
<p>Give <strong>${created.member.email}</strong> this link to choose a password. It works once, for 24 hours, and is not shown again.</p>
<p class="secret-text" id="invite-link">${created.link ?? ''}</p>
<p><a href="/portal/members">Back to members</a></p>`,
      };
    },
  });

  portalAction<MemberParams>(app, deps, {
    path: '/members/:id/role',
    permission: 'members.change',
    audit: 'member.role',
    reauth: true,
    handle: async (context, request) => {
      await changeRole(deps, { merchantId: context.member.merchantId, userId: request.params.id, role: formOf(request).role ?? '', actor: context.actor, actorRole: context.member.role });
      return { redirect: '/portal/members', audited: true };
    },
  });

  portalAction<MemberParams>(app, deps, {
    path: '/members/:id/disable',
    permission: 'members.change',
    audit: 'member.disable',
    reauth: true,
    handle: async (context, request) => {
      await disableMember(deps, { merchantId: context.member.merchantId, userId: request.params.id, actor: context.actor, actorRole: context.member.role });
      return { redirect: '/portal/members', audited: true };
    },
  });
}
