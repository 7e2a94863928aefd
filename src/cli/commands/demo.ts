// demo: the sandbox demo merchant's credentials, created if the database has none yet.
import { Option, type Command } from 'commander';
import { shellExports, usageError, type CommandContext } from '../io.ts';

// What the command runs, loaded when it is chosen (help needs only the options).
const demoMerchant = () => import('../../app/merchants/demo.ts');

export function demoCommands(program: Command, ctx: CommandContext): void {
  program
    .command('demo')
    .description("print the sandbox demo merchant's credentials (created if there is none); refused in live mode")
    // Two ways to print the credentials: one at a time (a script asking for JSON gets JSON).
    .addOption(new Option('--json', 'print JSON').conflicts('env'))
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
