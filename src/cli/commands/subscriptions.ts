// `acquiro subscriptions list|show|cancel` and `acquiro accounts dunning show|set`: an operator's
// view of an account's subscriptions and their charges, a cancel, and the retry schedule of
// declined charges (docs/subscriptions.md).
import type { Command } from 'commander';
import { codeText } from '../../domain/errors.ts';
import { keepsRetryMinimum, MAX_RETRY_DAYS, RETRY_MINIMUM_RULE, validRetryDays } from '../../domain/subscriptions/subscription.ts';
import type { DunningView } from '../../app/subscriptions/manage.ts';
import { accountCommand, listLimit, MAX_LIST, show, table, usageError, type CommandContext } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const manage = () => import('../../app/subscriptions/manage.ts');

interface AccountOptions {
  merchantId: string;
  accountId: string;
  json?: boolean;
}

const dunningText = (view: DunningView) =>
  `account ${view.account_id}: declined charges retried ${view.retry_days === 'default' ? 'on the default schedule (1, 3 and 7 days after the due time for monthly and longer intervals; 1/7, 3/7 and 5/7 of the period for shorter ones)' : `${view.retry_days.join(', ')} days after the due time`}, never at or after the next cycle`;

function retryDays(value: string): number[] {
  if (!/^[0-9]+(,[0-9]+)*$/.test(value)) throw usageError(`--retry-days ${value} must be whole days separated by commas, such as 1,3,7`);
  const days = value.split(',').map(Number);
  if (!validRetryDays(days)) throw usageError(`--retry-days ${value} must be up to ${MAX_RETRY_DAYS} ascending whole days from 1 to 366, such as 1,3,7`);
  if (!keepsRetryMinimum(days)) throw usageError(`--retry-days ${value}: ${RETRY_MINIMUM_RULE}`);
  return days;
}

export function subscriptionCommands(program: Command, ctx: CommandContext): void {
  const subscriptions = program.command('subscriptions').description("an account's subscriptions (recurring contracts) and their charges");
  const command = (name: string, description: string) => accountCommand(subscriptions, name, description);
  command('list', "the account's subscriptions, newest first")
    .option('--limit <n>', `at most this many (up to ${MAX_LIST})`, listLimit, 100)
    .action(async (opts: AccountOptions & { limit: number }) => {
      const deps = await ctx.deps();
      const { listAccountSubscriptions } = await manage();
      const rows = await listAccountSubscriptions(deps, opts.merchantId, opts.accountId, opts.limit);
      show(ctx, Boolean(opts.json), rows, () => table(rows.map(({ recurring_id, status, contract_name, period, contract_amount, currency, cycles_paid, next_charge_at }) => ({ recurring_id, status, contract_name, period, contract_amount, currency, cycles_paid, next_charge_at }))));
    });
  command('show', 'one subscription and every attempt at its charges')
    .requiredOption('--recurring-id <id>')
    .action(async (opts: AccountOptions & { recurringId: string }) => {
      const deps = await ctx.deps();
      const { showSubscription } = await manage();
      const view = await showSubscription(deps, opts.merchantId, opts.accountId, opts.recurringId);
      const { charges, ...fields } = view;
      show(ctx, Boolean(opts.json), view, () => `${Object.entries(fields).map(([key, value]) => `${key}: ${value}`).join('\n')}\n\n${table(charges)}`);
    });
  command('cancel', 'cancel a subscription: no charge is started for it again (a charge in flight follows its course)')
    .requiredOption('--recurring-id <id>')
    .action(async (opts: AccountOptions & { recurringId: string }) => {
      const deps = await ctx.deps();
      const { cancelAccountSubscription } = await manage();
      const outcome = await cancelAccountSubscription(deps, opts.merchantId, opts.accountId, opts.recurringId);
      if (outcome.status === 'refused') {
        // Not found names what the operator gave, as `show` does; the other refusals keep the API's words.
        throw usageError(outcome.code === 'subscription_not_found' ? `no subscription ${opts.recurringId} on account ${opts.accountId}` : codeText(outcome.code), 1);
      }
      show(ctx, Boolean(opts.json), { recurring_id: outcome.subscription.id, status: outcome.subscription.status }, () => `subscription ${outcome.subscription.id} ${outcome.subscription.status}`);
    });

  const accounts = program.commands.find((c) => c.name() === 'accounts') ?? program.command('accounts').description('accounts of a merchant');
  const dunning = accounts.command('dunning').description("how an account's declined recurring charges are retried");
  dunning
    .command('show')
    .description("print the account's retry schedule")
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: AccountOptions) => {
      const deps = await ctx.deps();
      const { showDunning } = await manage();
      const view = await showDunning(deps, opts.merchantId, opts.accountId);
      show(ctx, Boolean(opts.json), view, () => dunningText(view));
    });
  dunning
    .command('set')
    .description('set the retry days (after the due time), or go back to the default')
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .option('--retry-days <days>', 'ascending whole days, such as 1,3,7 (at most 10 retries; at least 3 within 27 days, the last of those at least 7)', retryDays)
    .option('--default', 'the default schedule')
    .option('--json', 'print JSON')
    .action(async (opts: AccountOptions & { retryDays?: number[]; default?: boolean }) => {
      if (Boolean(opts.retryDays) === Boolean(opts.default)) throw usageError('give either --retry-days or --default');
      const deps = await ctx.deps();
      const { setDunning } = await manage();
      const view = await setDunning(deps, opts.merchantId, opts.accountId, opts.retryDays ?? null);
      show(ctx, Boolean(opts.json), view, () => dunningText(view));
    });
}
