// merchants, accounts, keys and query IPs.
import { Option, type Command } from 'commander';
import { normaliseCidr as normaliseCidrText } from '../../domain/ip.ts';
import { accountCommand, accountDeps, intBetween, shellExports, show, table, usageError, type CommandContext } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const credentials = () => import('../../app/merchants/credentials.ts');
const queryIps = () => import('../../db/repositories/query-ips.ts');

function normaliseCidr(text: string): string {
  const cidr = normaliseCidrText(text);
  if (!cidr) throw usageError(`--cidr ${text} is not an IP address or CIDR block`);
  return cidr;
}

/** The longest name, in characters: what the hosted page's title and a statement can show. */
const MAX_NAME = 100;

/** A name shown to shoppers (the hosted page's merchant, its descriptor) and operators: never blank, never a page long. */
const nonEmpty = (option: string) => (value: string) => {
  const name = value.trim();
  if (!name) throw usageError(`${option} must not be empty`);
  if ([...name].length > MAX_NAME) throw usageError(`${option} must be at most ${MAX_NAME} characters`);
  return name;
};

/** As ACQUIRO_RATE_LIMIT takes (src/config.ts). */
export const MAX_RATE_LIMIT = 9_999_999;

const captureMode = () =>
  new Option('--capture-mode <mode>', 'auto captures approved card payments; manual leaves them authorised').choices(['auto', 'manual']).default('auto');

export function merchantCommands(program: Command, ctx: CommandContext): void {
  const merchants = program.command('merchants').description('merchants and their first account');
  merchants
    .command('create')
    .description('create a merchant with one account and print its credentials')
    .requiredOption('--name <name>', 'merchant name', nonEmpty('--name'))
    .addOption(captureMode())
    .option('--rate-limit <n>', 'requests per second for the account', intBetween('--rate-limit', 1, MAX_RATE_LIMIT))
    .option('--fee-bps <n>', 'fee on captured amounts, in basis points', intBetween('--fee-bps', 0, 10_000))
    .option('--connector <name>', 'the connector that processes its payments (default: the sandbox simulator, refused in live mode)')
    // Two ways to print the credentials: one at a time (a script asking for JSON gets JSON).
    .addOption(new Option('--json', 'print JSON').conflicts('env'))
    .option('--env', 'print shell exports (ACQUIRO_MERCHANT_ID, ACQUIRO_ACCOUNT_ID, ACQUIRO_SECRET_KEY) for eval, as acquiro sign and call read them')
    .action(async (opts: { name: string; captureMode: 'auto' | 'manual'; rateLimit?: number; feeBps?: number; connector?: string; json?: boolean; env?: boolean }) => {
      const deps = await ctx.deps();
      const { assertConnectorUsable, createMerchant } = await credentials();
      assertConnectorUsable(deps, opts.connector ?? 'simulator');
      const created = await createMerchant(deps, opts.name, {
        captureMode: opts.captureMode,
        ...(opts.connector ? { connector: opts.connector } : {}),
        ...(opts.rateLimit ? { rateLimitPerSecond: opts.rateLimit } : {}),
        ...(opts.feeBps !== undefined ? { feeBps: opts.feeBps } : {}),
      });
      if (opts.env) return ctx.out(shellExports(created));
      show(ctx, Boolean(opts.json), created, () => `merchant_id ${created.merchant_id}\naccount_id  ${created.account_id}\nsecret_key  ${created.secret_key}`);
    });
  merchants
    .command('list')
    .description('list merchants and their accounts')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { listMerchants } = await credentials();
      const rows = await listMerchants(deps);
      show(ctx, Boolean(opts.json), rows, () => table(rows));
    });

  program
    .command('accounts')
    .description('accounts of a merchant')
    .command('create')
    .description('add an account to a merchant and print its credentials')
    .requiredOption('--merchant-id <id>')
    .option('--name <name>', 'account name', nonEmpty('--name'), 'default')
    .addOption(captureMode())
    .option('--rate-limit <n>', 'requests per second for the account', intBetween('--rate-limit', 1, MAX_RATE_LIMIT))
    .option('--fee-bps <n>', 'fee on captured amounts, in basis points', intBetween('--fee-bps', 0, 10_000))
    .option('--connector <name>', 'the connector that processes its payments (default: the sandbox simulator, refused in live mode)')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; name: string; captureMode: 'auto' | 'manual'; rateLimit?: number; feeBps?: number; connector?: string; json?: boolean }) => {
      const deps = await ctx.deps();
      const { assertConnectorUsable, createAccount } = await credentials();
      assertConnectorUsable(deps, opts.connector ?? 'simulator');
      const created = await createAccount(deps, opts.merchantId, {
        name: opts.name,
        ...(opts.connector ? { connector: opts.connector } : {}),
        captureMode: opts.captureMode,
        ...(opts.rateLimit ? { rateLimitPerSecond: opts.rateLimit } : {}),
        ...(opts.feeBps !== undefined ? { feeBps: opts.feeBps } : {}),
      });
      show(ctx, Boolean(opts.json), created, () => `account_id  ${created.account_id}\nsecret_key  ${created.secret_key}`);
    });

  const keys = program.command('keys').description('secret keys');
  keys
    .command('rotate')
    .description('issue a new secret key; the previous one keeps working for ACQUIRO_KEY_GRACE_HOURS (default 24 h)')
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
      const deps = await ctx.deps();
      const { rotateKey } = await credentials();
      const rotated = await rotateKey(deps, opts.merchantId, opts.accountId);
      show(ctx, Boolean(opts.json), rotated, () => `secret_key  ${rotated.secret_key}\nprevious key works until ${rotated.previous_key_expires_at}`);
    });
  keys
    .command('revoke')
    .description('stop the previous keys now (their grace period ends); only the current key works, on every process within a second')
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
      const deps = await ctx.deps();
      const { revokePreviousKeys } = await credentials();
      const revoked = await revokePreviousKeys(deps, opts.merchantId, opts.accountId);
      show(ctx, Boolean(opts.json), revoked, () => `${revoked.revoked} previous key(s) revoked`);
    });

  const ips = program.command('ips').description('IP addresses allowed to call the query and refund search operations');
  const ipCommand = (name: string, description: string) => accountCommand(ips, name, description);
  ipCommand('add', 'register an address or CIDR block')
    .requiredOption('--cidr <cidr>', 'an address (127.0.0.1) or block (10.0.0.0/8)')
    .action(async (opts: { merchantId: string; accountId: string; cidr: string; json?: boolean }) => {
      const cidr = normaliseCidr(opts.cidr);
      const deps = await accountDeps(ctx, opts);
      const { addQueryIp } = await queryIps();
      await addQueryIp(deps.database.db, opts.accountId, cidr);
      show(ctx, Boolean(opts.json), { account_id: opts.accountId, cidr }, () => `added ${cidr}`);
    });
  ipCommand('remove', 'remove an address or CIDR block')
    .requiredOption('--cidr <cidr>')
    .action(async (opts: { merchantId: string; accountId: string; cidr: string; json?: boolean }) => {
      const cidr = normaliseCidr(opts.cidr);
      const deps = await accountDeps(ctx, opts);
      const { removeQueryIp } = await queryIps();
      const removed = await removeQueryIp(deps.database.db, opts.accountId, cidr);
      show(ctx, Boolean(opts.json), { account_id: opts.accountId, cidr, removed }, () =>
        removed ? `removed ${cidr}` : `${cidr} was not registered`,
      );
    });
  ipCommand('list', 'list registered addresses').action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
    const deps = await accountDeps(ctx, opts);
    const { listQueryIps } = await queryIps();
    const rows = await listQueryIps(deps.database.db, opts.accountId);
    show(ctx, Boolean(opts.json), rows, () => table(rows));
  });
}
