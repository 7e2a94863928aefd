// notifications: the delivery log of each event, and replay (docs/notifications.md).
import { Option, type Command } from 'commander';
import type { ReplayResult } from '../../app/notifications/deliver.ts';
import type { DeliveryStatus } from '../../db/schema.ts';
import { listLimit, MAX_LIST, show, table, usageError, type CommandContext } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const delivery = () => import('../../app/notifications/deliver.ts');
const deliveryLog = () => import('../../db/repositories/notifications.ts');

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'no_target'];

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function notificationCommands(program: Command, ctx: CommandContext): void {
  const notifications = program.command('notifications').description("events sent to merchants' notify_url: delivery log and replay");

  notifications
    .command('list')
    .description('list events, newest first, with their delivery status')
    .option('--merchant-id <id>')
    .option('--account-id <id>')
    .addOption(new Option('--status <status>').choices(STATUSES))
    .option('--limit <n>', `at most this many (up to ${MAX_LIST})`, listLimit, 50)
    .option('--before <notify_id>', 'only events older than this one (the next page)')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId?: string; accountId?: string; status?: DeliveryStatus; limit: number; before?: string; json?: boolean }) => {
      const deps = await ctx.deps();
      const [{ requireNamed }, { listNotifications, findNotification }] = await Promise.all([import('../account.ts'), deliveryLog()]);
      await requireNamed(deps, { merchantId: opts.merchantId, accountId: opts.accountId });
      // A cursor that names no event would list from the newest again, as if it were the next page.
      if (opts.before !== undefined && !(await findNotification(deps.database.db, opts.before))) throw usageError(`--before ${opts.before} is no notification`, 1);
      const rows = await listNotifications(deps.database.db, {
        limit: opts.limit,
        ...(opts.merchantId ? { merchantId: opts.merchantId } : {}),
        ...(opts.accountId ? { accountId: opts.accountId } : {}),
        ...(opts.status ? { status: opts.status } : {}),
        ...(opts.before ? { before: opts.before } : {}),
      });
      const printable = rows.map((row) => ({ ...row, next_attempt_at: iso(row.next_attempt_at), delivered_at: iso(row.delivered_at), created_at: iso(row.created_at) }));
      show(ctx, Boolean(opts.json), printable, () =>
        table(printable.map(({ notify_url: _url, merchant_id: _merchant, delivered_at: _delivered, ...rest }) => rest)),
      );
    });

  notifications
    .command('show')
    .description('one event: its body as recorded and every delivery attempt')
    .argument('<notify_id>')
    .option('--json', 'print JSON')
    .action(async (notifyId: string, opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { findNotification } = await deliveryLog();
      const found = await findNotification(deps.database.db, notifyId);
      if (!found) throw usageError(`no notification ${notifyId}`, 1);
      const { attempts, payload, ...event } = found;
      const printable = {
        ...event,
        next_attempt_at: iso(event.next_attempt_at),
        delivered_at: iso(event.delivered_at),
        created_at: iso(event.created_at),
        payload,
        attempts: attempts.map((a) => ({ ...a, started_at: iso(a.started_at) })),
      };
      show(ctx, Boolean(opts.json), printable, () => {
        const head = Object.entries(event).map(([key, value]) => `${key.padEnd(16)}${value instanceof Date ? value.toISOString() : (value ?? '')}`);
        const log = printable.attempts.map(({ response_excerpt: _excerpt, notify_time: _time, ...a }) => a);
        return `${head.join('\n')}\n\n${table(log)}`;
      });
    });

  notifications
    .command('replay')
    .description('send an event again now: the same notify_id, a fresh notify_time and signature; if that fails, its retry schedule starts over')
    .argument('<notify_id>')
    .option('--json', 'print JSON')
    .action(async (notifyId: string, opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { replayNotification } = await delivery();
      const result = await replayNotification(deps, notifyId, {});
      if ('refused' in result) throw usageError(refusal(notifyId, result.refused), 1);
      show(ctx, Boolean(opts.json), { ...result, nextAttemptAt: iso(result.nextAttemptAt), deliveredAt: iso(result.deliveredAt ?? null) }, () => describe(result));
      if (result.outcome !== 'delivered') throw usageError(`${notifyId} was not acknowledged`, 1);
    });
}

function refusal(notifyId: string, why: Extract<ReplayResult, { refused: unknown }>['refused']): string {
  switch (why) {
    case 'not_found':
      return `no notification ${notifyId}`;
    case 'no_target':
      return `${notifyId} has no notify_url: there is nowhere to send it`;
    case 'in_flight':
      return `an attempt to send ${notifyId} is in flight; try again in a minute`;
  }
}

function describe(result: Exclude<ReplayResult, { refused: unknown }>): string {
  const answer = result.httpStatus ? `HTTP ${result.httpStatus}` : (result.error ?? 'no answer');
  const timing = result.latencyMs !== undefined ? ` in ${result.latencyMs} ms` : '';
  const next = result.nextAttemptAt ? `; next attempt at ${result.nextAttemptAt.toISOString()}` : '';
  return `${result.notifyId} attempt ${result.attempt}: ${result.outcome}, ${answer}${timing}${next}`;
}
