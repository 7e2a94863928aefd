// risk settings per account, and blocklists.
import { Option, type Command } from 'commander';
import type { BlockKind } from '../../app/risk/settings.ts';
import { formatAmount, isCurrency } from '../../domain/money.ts';
import { accountCommand, show, table, usageError, type CommandContext } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const settings = () => import('../../app/risk/settings.ts');

/**
 * Settings as an operator reads them: amount limits in their currency's decimals, as `risk set`
 * takes them (USD 1000.00 printed as 100000 read as a hundred times the limit). --json keeps minor units.
 */
function readable<T extends { amountLimits?: unknown }>(values: T): T {
  if (values.amountLimits === undefined) return values;
  const limits = values.amountLimits as Record<string, Record<string, unknown>>;
  // An override stored before `risk set` checked it may name no currency: printed as it is.
  const amount = (minor: unknown, currency: string) => (isCurrency(currency) && Number.isSafeInteger(minor) ? formatAmount(minor as number, currency) : minor);
  const amounts = Object.fromEntries(
    Object.entries(limits).map(([currency, levels]) => [currency, Object.fromEntries(Object.entries(levels).map(([level, minor]) => [level, amount(minor, currency)]))]),
  );
  return { ...values, amountLimits: amounts };
}

/**
 * Runs a check that needs no database (a value's syntax or range): what it refuses is a refused
 * argument, exit 2, before the database is opened. A refusal by the stored settings stays exit 1.
 */
async function asArguments(check: (module: Awaited<ReturnType<typeof settings>>) => void): Promise<void> {
  const [module, { AppError }] = await Promise.all([settings(), import('../../domain/errors.ts')]);
  try {
    check(module);
  } catch (error) {
    if (error instanceof AppError) throw usageError(error.message);
    throw error;
  }
}

/** Settings that do not work as meant (or an entry they leave without effect): one line each. */
const warnings = (problems: readonly string[]) => problems.map((problem) => `\nwarning: ${problem}`).join('');

interface AccountOpts {
  merchantId: string;
  accountId: string;
  json?: boolean;
}

export function riskCommands(program: Command, ctx: CommandContext): void {
  const risk = program.command('risk').description("an account's risk rules (docs/risk.md)");
  const forAccount = (name: string, description: string) => accountCommand(risk, name, description);

  forAccount('show', 'print the effective settings and the overrides').action(async (opts: AccountOpts) => {
    const deps = await ctx.deps();
    const { effectiveRiskSettings } = await settings();
    const effective = await effectiveRiskSettings(deps, opts.merchantId, opts.accountId);
    const readably = { overrides: readable(effective.overrides), effective: readable(effective.effective) };
    show(ctx, Boolean(opts.json), effective, () => JSON.stringify(readably, null, 2) + warnings(effective.problems));
  });
  forAccount('set', 'override settings: --set velocityCard.limit=5 --set amountLimits.USD.review=1000.00')
    .requiredOption('--set <path=value...>', 'one or more assignments')
    .action(async (opts: AccountOpts & { set: string[] }) => {
      await asArguments(({ parseAssignments }) => parseAssignments(opts.set));
      const deps = await ctx.deps();
      const { setRiskSettings, settingProblems } = await settings();
      const effective = await setRiskSettings(deps, opts.merchantId, opts.accountId, opts.set);
      const problems = settingProblems(effective).map((problem) => problem.message);
      show(ctx, Boolean(opts.json), effective, () => `updated; effective settings:\n${JSON.stringify(readable(effective), null, 2)}${warnings(problems)}`);
    });
  forAccount('unset', 'remove overrides, each back to its default: velocityCard.limit amountLimits.USD.review (amountLimits.USD: both)')
    .argument('<path...>', 'settings, as risk set names them')
    .action(async (paths: string[], opts: AccountOpts) => {
      await asArguments(({ checkUnsetPaths }) => checkUnsetPaths(paths));
      const deps = await ctx.deps();
      const { unsetRiskSettings, settingProblems } = await settings();
      const { effective, removed, absent } = await unsetRiskSettings(deps, opts.merchantId, opts.accountId, paths);
      const problems = settingProblems(effective).map((problem) => problem.message);
      const said = [removed.length > 0 ? `unset ${removed.join(', ')}` : 'nothing unset', ...(absent.length > 0 ? [`not overridden (the default applies): ${absent.join(', ')}`] : [])];
      show(ctx, Boolean(opts.json), effective, () => `${said.join('; ')}\neffective settings:\n${JSON.stringify(readable(effective), null, 2)}${warnings(problems)}`);
    });
  forAccount('reset', 'drop every override: back to the defaults').action(async (opts: AccountOpts) => {
    const deps = await ctx.deps();
    const { setRiskSettings } = await settings();
    const effective = await setRiskSettings(deps, opts.merchantId, opts.accountId, 'reset');
    show(ctx, Boolean(opts.json), effective, () => 'reset to the defaults');
  });

  const blocklist = program.command('blocklist').description('values refused by the blocklist rule (one account, or all with no account given)');
  const kind = () => new Option('--kind <kind>', 'what to block').choices(['card', 'email', 'ip', 'bin', 'country']).makeOptionMandatory();
  const entry = (name: string, description: string) =>
    blocklist
      .command(name)
      .description(description)
      .addOption(kind())
      .requiredOption('--value <value>', 'the email, IP, BIN, country code, or for a card the transaction_id of a payment made with it')
      .option('--merchant-id <id>')
      .option('--account-id <id>')
      .option('--json', 'print JSON');
  type EntryOpts = { kind: BlockKind; value: string; merchantId?: string; accountId?: string; note?: string; json?: boolean };
  // One account (both ids) or every account (neither): a merchant id alone was stored as a block
  // of every merchant's payments, and an account id alone was never checked against its merchant.
  const toEntry = (opts: EntryOpts) => {
    if (Boolean(opts.merchantId) !== Boolean(opts.accountId)) throw usageError('name one account with --merchant-id and --account-id, or neither for every account');
    // A card is named by a payment of one account: without one, the arguments alone are wrong.
    if (opts.kind === 'card' && !opts.accountId) throw usageError('blocking a card needs --merchant-id and --account-id with the transaction id');
    return {
      kind: opts.kind,
      value: opts.value,
      ...(opts.accountId ? { accountId: opts.accountId } : {}),
      ...(opts.merchantId ? { merchantId: opts.merchantId } : {}),
      ...(opts.note ? { note: opts.note } : {}),
    };
  };
  entry('add', 'block a value')
    .option('--note <text>', 'why')
    .action(async (opts: EntryOpts) => {
      const entry = toEntry(opts);
      // A value no payment can carry is a bad argument, refused before the database is opened (a
      // card is named by a payment, which only the database knows).
      if (entry.kind !== 'card') {
        const { blockValue } = await import('../../domain/blocklist.ts');
        const checked = blockValue(entry.kind, entry.value);
        if ('problem' in checked) throw usageError(checked.problem);
      }
      const deps = await ctx.deps();
      const { addToBlocklist } = await settings();
      const added = await addToBlocklist(deps, entry);
      const what = `${opts.kind} ${opts.value}`;
      const said = added.added
        ? `blocked ${what}`
        : 'previousNote' in added
          ? `${what} was already blocked; its note replaced (was: ${added.previousNote ?? 'none'}): ${added.note}`
          : `${what} was already blocked; ${added.note === null ? 'nothing changed' : `its note kept: ${added.note}`}`;
      show(ctx, Boolean(opts.json), added, () => said + warnings(added.problems));
    });
  entry('remove', 'unblock a value').action(async (opts: EntryOpts) => {
    const scoped = toEntry(opts);
    const deps = await ctx.deps();
    const { removeFromBlocklist } = await settings();
    const removed = await removeFromBlocklist(deps, scoped);
    show(ctx, Boolean(opts.json), { removed }, () => (removed ? `unblocked ${opts.kind} ${opts.value}` : 'no such entry'));
  });
  blocklist
    .command('list')
    .description('list entries (with --account-id: that account and the gateway-wide ones)')
    .option('--account-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: { accountId?: string; json?: boolean }) => {
      const deps = await ctx.deps();
      const [{ requireNamed }, { listBlocklist }] = await Promise.all([import('../account.ts'), settings()]);
      // An account that does not exist is refused (exit 1): its list would be the gateway-wide entries alone.
      await requireNamed(deps, { accountId: opts.accountId });
      const rows = await listBlocklist(deps, opts.accountId);
      show(ctx, Boolean(opts.json), rows, () => table(rows));
    });
}
