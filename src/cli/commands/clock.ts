// `acquiro clock advance|show`: the sandbox's test clock (docs/sandbox.md, Test clock). An advance
// moves business time forward for every server, worker and command on this database, with no
// restart; what falls due is taken within seconds. Refused in live mode.
import type { Command } from 'commander';
import { MAX_LEAD_DAYS } from '../../app/clock/test-clock.ts';
import { positiveInt, show, usageError, type CommandContext } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const testClock = () => import('../../app/clock/test-clock.ts');

const HOUR_MS = 3_600_000;

export function clockCommands(program: Command, ctx: CommandContext): void {
  const clock = program.command('clock').description("the sandbox's test clock: business time (due charges, expiries, settlement), never the wall clock");
  clock
    .command('advance')
    .description('move business time forward for every process on this database (refused in live mode)')
    .option('--days <n>', 'whole days to move forward', positiveInt('--days'))
    .option('--hours <n>', 'whole hours to move forward', positiveInt('--hours'))
    .option('--json', 'print JSON')
    .action(async (opts: { days?: number; hours?: number; json?: boolean }) => {
      if (opts.days === undefined && opts.hours === undefined) throw usageError('say how far: --days N or --hours N (positive whole numbers)');
      const ms = ((opts.days ?? 0) * 24 + (opts.hours ?? 0)) * HOUR_MS;
      // The advance's own bound, checked before the database is opened (the total is checked there).
      if (!Number.isSafeInteger(ms) || ms > MAX_LEAD_DAYS * 24 * HOUR_MS) throw usageError(`the test clock runs at most ${MAX_LEAD_DAYS} days ahead of the wall clock`);
      const deps = await ctx.deps();
      const { advanceTestClock, formatInstant } = await testClock();
      const now = formatInstant(await advanceTestClock(deps, ms));
      show(ctx, Boolean(opts.json), { business_time: now }, () => now);
    });
  clock
    .command('show')
    .description('print business time now, as ISO 8601 with a numeric offset')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { formatInstant, testClockNow } = await testClock();
      const now = formatInstant(await testClockNow(deps));
      show(ctx, Boolean(opts.json), { business_time: now }, () => now);
    });
}
