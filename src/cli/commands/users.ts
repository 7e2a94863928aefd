// users: the merchant portal's staff (docs/portal.md). `create` prints a one-time link to set a
// password (there is no mail server: the operator hands it over), or with --password-stdin sets
// the password read from standard input. `reset` prints a new link; `disable` ends the member's
// sessions for good. And `audit verify`: the audit log's hash chain, checked from the first row.
import { Option, type Command } from 'commander';
import type { KeptHead } from '../../app/portal/audit.ts';
import { CLI_ACTOR, PortalRefusal } from '../../app/portal/refusal.ts';
import type { PortalUserRow } from '../../db/schema.ts';
import { ROLES } from '../../domain/members.ts';
import { CONFIG } from '../../exit-codes.ts';
import { quietFailure, show, table, usageError, type CommandContext, type CommandDeps } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const audit = () => import('../../app/portal/audit.ts');
const members = () => import('../../app/portal/members.ts');

function listed(member: PortalUserRow) {
  return {
    user_id: member.id,
    merchant_id: member.merchantId,
    email: member.email,
    role: member.role,
    status: member.status,
    second_factor: member.totpSecret !== null,
    locked_until: member.lockedUntil?.toISOString() ?? null,
    created_at: member.createdAt.toISOString(),
  };
}

/** `--expect-last 1842:<64 hex digits>`. */
function keptHead(text: string): KeptHead {
  const match = /^([1-9][0-9]{0,15}):([0-9a-fA-F]{64})$/.exec(text);
  if (!match) throw usageError(`--expect-last ${text} is not <seq>:<hash> as audit verify prints it`);
  return { seq: Number(match[1]), hash: match[2]!.toLowerCase() };
}

/** What the command line gave for the fields a refusal may be about. */
interface Given {
  readonly email?: string | undefined;
  readonly role?: string | undefined;
}

/** The option a refusal's field came from, as the refusal's prefix (the portal shows it beside the field instead). */
function optionOf(field: string | undefined, given: Given): string {
  switch (field) {
    case 'email':
      return `--email ${given.email ?? ''}: `;
    case 'role':
      return `--role ${given.role ?? ''}: `;
    case 'password':
      return '--password-stdin: '; // never the password
    default:
      return '';
  }
}

/** A refusal of the use case, printed as the CLI's own, naming its option: exit 1 (2 for bad input). */
async function refusals<T>(work: () => Promise<T>, given: Given = {}): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PortalRefusal) throw usageError(`${optionOf(error.field, given)}${error.message}`, error.status === 400 ? 2 : 1);
    throw error;
  }
}

/**
 * A set-password link is handed to a person, who signs in where it points: in live mode only with
 * ACQUIRO_BASE_URL set, not the listening address (exit 78, before anything is stored).
 */
async function requireLinkBase(deps: CommandDeps): Promise<void> {
  const problem = (await import('../../config.ts')).liveBaseUrlProblem(deps.config);
  if (problem) throw usageError(problem, CONFIG);
}

/** The member named by --user-id or --email, and the deps it was found with. */
async function namedMember(ctx: CommandContext, opts: { userId?: string; email?: string }): Promise<{ deps: CommandDeps; found: PortalUserRow }> {
  if (!opts.userId && !opts.email) throw usageError('name the member with --user-id or --email');
  const deps = await ctx.deps();
  const { findMember } = await members();
  const named = opts.userId ? `--user-id ${opts.userId}` : `--email ${opts.email}`;
  const found = await refusals(async () => {
    try {
      return await findMember(deps, { ...(opts.userId ? { userId: opts.userId } : {}), ...(opts.email ? { email: opts.email } : {}) });
    } catch (error) {
      if (error instanceof PortalRefusal && error.status === 404) throw new PortalRefusal(`no member with ${named}`, { status: 404 });
      throw error;
    }
  });
  return { deps, found };
}

export function userCommands(program: Command, ctx: CommandContext): void {
  const users = program.command('users').description('staff members of the merchant portal (/portal)');
  // One way to name the member: given both, --user-id was used and --email ignored, whoever it named.
  const which = (command: Command) =>
    command
      .addOption(new Option('--user-id <id>').conflicts('email'))
      .option('--email <address>')
      .option('--json', 'print JSON');

  users
    .command('create')
    .description('add a member; prints a one-time link to set a password (and a second factor at first sign-in)')
    .requiredOption('--merchant-id <id>')
    .requiredOption('--email <address>')
    .requiredOption('--role <role>', ROLES.join('|'))
    .option('--password-stdin', 'set the password read from standard input instead of printing a link (sandbox and tests)')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; email: string; role: string; passwordStdin?: boolean; json?: boolean }) => {
      let password: string | undefined;
      if (opts.passwordStdin) {
        if (!ctx.stdin) throw usageError('--password-stdin reads the password on standard input, and runs only from a shell');
        password = (await ctx.stdin()).replace(/\r?\n$/, '');
      }
      const deps = await ctx.deps();
      if (password === undefined) await requireLinkBase(deps);
      const { createMember } = await members();
      const created = await refusals(
        () => createMember(deps, { merchantId: opts.merchantId, email: opts.email, role: opts.role, ...(password !== undefined ? { password } : {}), actor: CLI_ACTOR }),
        opts,
      );
      show(ctx, Boolean(opts.json), { ...listed(created.member), set_password_url: created.link ?? null }, () =>
        created.link
          ? `created ${created.member.id} (${created.member.email}, ${created.member.role})\nset-password link (one use, 24 hours): ${created.link}`
          : `created ${created.member.id} (${created.member.email}, ${created.member.role}) with the password given`,
      );
    });

  users
    .command('list')
    .description("a merchant's members")
    .requiredOption('--merchant-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; json?: boolean }) => {
      const deps = await ctx.deps();
      const [{ requireNamed }, { listMembers }] = await Promise.all([import('../account.ts'), members()]);
      // A merchant that does not exist is refused (exit 1), not listed as one with no member.
      await requireNamed(deps, { merchantId: opts.merchantId });
      const rows = (await listMembers(deps, opts.merchantId)).map(listed);
      show(ctx, Boolean(opts.json), { members: rows }, () => table(rows));
    });

  which(users.command('disable').description('disable a member for good: its sessions and links end')).action(async (opts: { userId?: string; email?: string; json?: boolean }) => {
    const { deps, found } = await namedMember(ctx, opts);
    const { disableMember } = await members();
    await refusals(() => disableMember(deps, { merchantId: found.merchantId, userId: found.id, actor: CLI_ACTOR }));
    show(ctx, Boolean(opts.json), { user_id: found.id, status: 'disabled' }, () => `disabled ${found.id} (${found.email})`);
  });

  which(users.command('reset').description("print a new one-time link to set the member's password; earlier links stop working")).action(
    async (opts: { userId?: string; email?: string; json?: boolean }) => {
      const { deps, found } = await namedMember(ctx, opts);
      await requireLinkBase(deps);
      const { resetMember } = await members();
      const link = await refusals(() => resetMember(deps, { merchantId: found.merchantId, userId: found.id, actor: CLI_ACTOR }));
      show(ctx, Boolean(opts.json), { user_id: found.id, set_password_url: link }, () => `set-password link for ${found.email} (one use, 24 hours): ${link}`);
    },
  );

  which(users.command('role').description("change a member's role (its sessions end)"))
    .requiredOption('--role <role>', ROLES.join('|'))
    .action(async (opts: { userId?: string; email?: string; role: string; json?: boolean }) => {
      const { deps, found } = await namedMember(ctx, opts);
      const { changeRole } = await members();
      await refusals(() => changeRole(deps, { merchantId: found.merchantId, userId: found.id, role: opts.role, actor: CLI_ACTOR }), { role: opts.role });
      show(ctx, Boolean(opts.json), { user_id: found.id, role: opts.role }, () => `${found.email} is now ${opts.role}`);
    });

  program
    .command('audit')
    .description("the portal's audit log")
    .command('verify')
    .description('check the hash chain of the audit log from its first row; exit 1 naming the first row that breaks it')
    .option('--expect-last <seq:hash>', 'a head printed by an earlier run and kept elsewhere: rows removed from the end are found against it', keptHead)
    .option('--json', 'print JSON')
    .action(async (opts: { expectLast?: KeptHead; json?: boolean }) => {
      const deps = await ctx.deps();
      const { verifyAudit } = await audit();
      const result = await verifyAudit(deps.database, opts.expectLast);
      if (result.ok) {
        const last = result.last ? `${result.last.seq}:${result.last.hash}` : null;
        show(ctx, Boolean(opts.json), { ok: true, rows: result.rows, last }, () => `audit log intact: ${result.rows} rows${last ? `\nlast ${last}` : ''}`);
        return;
      }
      show(ctx, Boolean(opts.json), { ok: false, rows: result.rows, broken_seq: result.seq, reason: result.reason }, () => `audit log broken at row ${result.seq}: ${result.reason} (${result.rows} rows before it are intact)`);
      throw quietFailure();
    });
}
