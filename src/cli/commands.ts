// The `acquiro` administration commands. They run against whichever database the process has,
// directly or inside the process that owns the embedded database, and write to `out`/`err` so
// that both paths print the same thing.
import { Command, CommanderError, Option } from 'commander';
import ipaddr from 'ipaddr.js';
import { and, asc, eq } from 'drizzle-orm';
import type { Deps } from '../app/context.ts';
import { createAccount, createMerchant, listMerchants, rotateKey } from '../app/merchants/credentials.ts';
import { AppError } from '../domain/errors.ts';
import { migrate } from '../db/client.ts';
import { accountIps, accounts } from '../db/schema.ts';
import type { CommandResult } from '../db/ownership.ts';

export type CommandDeps = Pick<Deps, 'database' | 'vault' | 'config' | 'clock'>;

interface Output {
  out(text: string): void;
  err(text: string): void;
}

const positiveInt = (name: string) => (value: string) => {
  if (!/^[1-9][0-9]*$/.test(value)) throw new CommanderError(2, 'acquiro.invalidArgument', `${name} must be a positive integer`);
  return Number(value);
};

function show(io: Output, json: boolean, value: unknown, human: () => string): void {
  io.out(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

function table(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)';
  const keys = Object.keys(rows[0]!);
  const cells = rows.map((row) => keys.map((key) => (row[key] instanceof Date ? (row[key] as Date).toISOString() : String(row[key] ?? ''))));
  const widths = keys.map((key, i) => Math.max(key.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: readonly string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(keys), ...cells.map(line)].join('\n');
}

function normaliseCidr(text: string): string {
  try {
    if (text.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(text);
      return `${address.toString()}/${bits}`;
    }
    const address = ipaddr.process(text);
    return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    throw new CommanderError(2, 'acquiro.invalidArgument', `--cidr ${text} is not an IP address or CIDR block`);
  }
}

async function requireAccount(deps: CommandDeps, merchantId: string, accountId: string): Promise<void> {
  const [row] = await deps.database.db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)));
  if (!row) throw new CommanderError(1, 'acquiro.notFound', `no account ${accountId} under merchant ${merchantId}`);
}

function buildProgram(deps: CommandDeps, io: Output): Command {
  const program = new Command('acquiro')
    .description('Acquiro payment gateway administration')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  const captureMode = () => new Option('--capture-mode <mode>', 'auto captures approved card payments; manual leaves them authorised').choices(['auto', 'manual']).default('auto');

  const merchants = program.command('merchants').description('merchants and their first account');
  merchants
    .command('create')
    .description('create a merchant with one account and print its credentials')
    .requiredOption('--name <name>', 'merchant name')
    .addOption(captureMode())
    .option('--rate-limit <n>', 'requests per second for the account', positiveInt('--rate-limit'))
    .option('--fee-bps <n>', 'fee on captured amounts, in basis points', (v) => (/^[0-9]{1,5}$/.test(v) ? Number(v) : NaN))
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; captureMode: 'auto' | 'manual'; rateLimit?: number; feeBps?: number; json?: boolean }) => {
      const created = await createMerchant(deps, opts.name, {
        captureMode: opts.captureMode,
        ...(opts.rateLimit ? { rateLimitPerSecond: opts.rateLimit } : {}),
        ...(opts.feeBps !== undefined && !Number.isNaN(opts.feeBps) ? { feeBps: opts.feeBps } : {}),
      });
      show(io, Boolean(opts.json), created, () => `merchant_id ${created.merchant_id}\naccount_id  ${created.account_id}\nsecret_key  ${created.secret_key}`);
    });
  merchants
    .command('list')
    .description('list merchants and their accounts')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows = await listMerchants(deps);
      show(io, Boolean(opts.json), rows, () => table(rows));
    });

  program
    .command('accounts')
    .description('accounts of a merchant')
    .command('create')
    .description('add an account to a merchant and print its credentials')
    .requiredOption('--merchant-id <id>')
    .option('--name <name>', 'account name', 'default')
    .addOption(captureMode())
    .option('--rate-limit <n>', 'requests per second for the account', positiveInt('--rate-limit'))
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; name: string; captureMode: 'auto' | 'manual'; rateLimit?: number; json?: boolean }) => {
      const created = await createAccount(deps, opts.merchantId, {
        name: opts.name,
        captureMode: opts.captureMode,
        ...(opts.rateLimit ? { rateLimitPerSecond: opts.rateLimit } : {}),
      });
      show(io, Boolean(opts.json), created, () => `account_id  ${created.account_id}\nsecret_key  ${created.secret_key}`);
    });

  program
    .command('keys')
    .description('secret keys')
    .command('rotate')
    .description(`issue a new secret key; the previous one keeps working for ACQUIRO_KEY_GRACE_HOURS (${deps.config.keyGraceHours} h)`)
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
      const rotated = await rotateKey(deps, opts.merchantId, opts.accountId);
      show(io, Boolean(opts.json), rotated, () => `secret_key  ${rotated.secret_key}\nprevious key works until ${rotated.previous_key_expires_at}`);
    });

  const ips = program.command('ips').description('IP addresses allowed to call the query operation');
  const ipCommand = (name: string, description: string) =>
    ips.command(name).description(description).requiredOption('--merchant-id <id>').requiredOption('--account-id <id>').option('--json', 'print JSON');
  ipCommand('add', 'register an address or CIDR block')
    .requiredOption('--cidr <cidr>', 'an address (127.0.0.1) or block (10.0.0.0/8)')
    .action(async (opts: { merchantId: string; accountId: string; cidr: string; json?: boolean }) => {
      const cidr = normaliseCidr(opts.cidr);
      await requireAccount(deps, opts.merchantId, opts.accountId);
      await deps.database.db.insert(accountIps).values({ accountId: opts.accountId, cidr }).onConflictDoNothing();
      show(io, Boolean(opts.json), { account_id: opts.accountId, cidr }, () => `added ${cidr}`);
    });
  ipCommand('remove', 'remove an address or CIDR block')
    .requiredOption('--cidr <cidr>')
    .action(async (opts: { merchantId: string; accountId: string; cidr: string; json?: boolean }) => {
      const cidr = normaliseCidr(opts.cidr);
      await requireAccount(deps, opts.merchantId, opts.accountId);
      const removed = await deps.database.db
        .delete(accountIps)
        .where(and(eq(accountIps.accountId, opts.accountId), eq(accountIps.cidr, cidr)))
        .returning();
      show(io, Boolean(opts.json), { account_id: opts.accountId, cidr, removed: removed.length > 0 }, () =>
        removed.length > 0 ? `removed ${cidr}` : `${cidr} was not registered`,
      );
    });
  ipCommand('list', 'list registered addresses').action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
    await requireAccount(deps, opts.merchantId, opts.accountId);
    const rows = await deps.database.db
      .select({ cidr: accountIps.cidr, created_at: accountIps.createdAt })
      .from(accountIps)
      .where(eq(accountIps.accountId, opts.accountId))
      .orderBy(asc(accountIps.cidr));
    show(io, Boolean(opts.json), rows, () => table(rows));
  });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const applied = await migrate(deps.database);
      io.out(applied.length ? `applied ${applied.join(', ')}\n` : 'the database is up to date\n');
    });

  program.command('serve').description('run the gateway (as npm start does)');
  return program;
}

/** Runs one command line; never exits the process. */
export async function runCommand(argv: readonly string[], deps: CommandDeps): Promise<CommandResult> {
  let stdout = '';
  let stderr = '';
  const io: Output = { out: (text) => void (stdout += text), err: (text) => void (stderr += text) };
  try {
    await buildProgram(deps, io).parseAsync([...argv], { from: 'user' });
    return { stdout, stderr, exitCode: 0 };
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code.startsWith('acquiro.')) stderr += `error: ${error.message}\n`;
      return { stdout, stderr, exitCode: error.exitCode };
    }
    if (error instanceof AppError) return { stdout, stderr: `${stderr}error: ${error.message}\n`, exitCode: 1 };
    throw error;
  }
}
