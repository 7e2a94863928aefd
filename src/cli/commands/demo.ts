// demo: the sandbox demo merchant's credentials, created if the database has none yet.
import type { Command } from 'commander';
import { shellExports, usageError, type CommandContext } from '../io.ts';

// What the command runs, loaded when it is chosen (help needs only the options).
const demoMerchant = () => import('../../app/merchants/demo.ts');

export function demoCommands(program: Command, ctx: CommandContext): void {
  program
    .command('demo')
    .description("print the sandbox demo merchant's credentials (created if there is none); refused in live mode")
    .option('--json', 'print JSON')
    .option('--env', 'print shell exports (ACQUIRO_MERCHANT_ID, ACQUIRO_ACCOUNT_ID, ACQUIRO_SECRET_KEY) for eval')
    .action(async (opts: { json?: boolean; env?: boolean }) => {
      const deps = await ctx.deps();
      if (deps.config.mode !== 'sandbox') throw usageError('the demo merchant exists in sandbox mode only', 1);
      const { createDemoMerchant, findDemoMerchant } = await demoMerchant();
      const demo = (await findDemoMerchant(deps)) ?? (await createDemoMerchant(deps));
      if (opts.json) return ctx.out(`${JSON.stringify(demo)}\n`);
      if (opts.env) return ctx.out(shellExports(demo));
      ctx.out(`merchant_id ${demo.merchant_id}\naccount_id  ${demo.account_id}\nsecret_key  ${demo.secret_key}\nquery IPs   ${demo.query_ips.join(', ')}\n`);
    });
}
