// The `acquiro` administration commands. They run against whichever database the process has,
// directly or inside the process that owns the embedded database, and write to `out`/`err` so
// that both paths print the same thing. Each area registers its commands from commands/: the
// tree of names, options and help is light, and each action loads the use cases it runs when it
// runs, after its arguments are checked and the database opened (`ctx.deps()`). So `--help`,
// `--version`, `sign` and `call` load commander and a few pure modules, nothing of the gateway.
import { inspect } from 'node:util';
import { Command, CommanderError, Help, type Option } from 'commander';
import { AppError } from '../domain/errors.ts';
import { sqlStateOf } from '../db/error-chain.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { CONFIG, UNAVAILABLE, UNEXPECTED } from '../exit-codes.ts';
import { VERSION } from '../version.ts';
import type { CommandResult } from '../db/ownership.ts';
import { accountSettingsCommands } from './commands/account-settings.ts';
import { balanceCommands } from './commands/balance.ts';
import { clockCommands } from './commands/clock.ts';
import { demoCommands } from './commands/demo.ts';
import { disputeCommands } from './commands/disputes.ts';
import { ledgerCommands } from './commands/ledger.ts';
import { merchantCommands } from './commands/merchants.ts';
import { notificationCommands } from './commands/notifications.ts';
import { paymentCommands } from './commands/payments.ts';
import { payoutCommands } from './commands/payouts.ts';
import { riskCommands } from './commands/risk.ts';
import { signingCommands } from './commands/signing.ts';
import { storefrontCommands } from './commands/storefronts.ts';
import { subscriptionCommands } from './commands/subscriptions.ts';
import { userCommands } from './commands/users.ts';
import { show, usageError, type CommandContext, type CommandDeps, type Output } from './io.ts';

export type { CommandDeps } from './io.ts';

function buildProgram(ctx: CommandContext): Command {
  const program = new Command('acquiro')
    .description('Acquiro payment gateway administration')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride()
    // Read by runCommand when a command fails unexpectedly: the error in full, which may quote a
    // statement's values (merchants' data), only when the operator asks for it.
    .option('--verbose', 'when a command fails unexpectedly, print the error in full (it may hold merchants\' data)')
    .configureOutput({ writeOut: ctx.out, writeErr: ctx.err })
    // Subcommands inherit this: an option the command cannot run without says so in its help.
    .configureHelp({ optionDescription: (option: Option) => describeOption(option) });

  merchantCommands(program, ctx);
  accountSettingsCommands(program, ctx);
  riskCommands(program, ctx);
  notificationCommands(program, ctx);
  ledgerCommands(program, ctx);
  balanceCommands(program, ctx);
  clockCommands(program, ctx);
  storefrontCommands(program, ctx);
  paymentCommands(program, ctx);
  subscriptionCommands(program, ctx);
  payoutCommands(program, ctx);
  disputeCommands(program, ctx);
  demoCommands(program, ctx);
  signingCommands(program, ctx);
  userCommands(program, ctx);

  const vault = program.command('vault').description('secrets at rest');
  vault
    .command('reseal')
    .description('re-encrypt stored cards and secret keys with the active (first) key of ACQUIRO_VAULT_KEYS')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { resealAll, unopenedKeyIds } = await import('../app/vault-reseal.ts');
      // A key missing from the configuration is the operator's to add, not an unexpected failure
      // halfway through: refused before anything is resealed (exit 78, naming the variable).
      const missing = await unopenedKeyIds(deps);
      if (missing.length > 0) {
        throw usageError(
          `ACQUIRO_VAULT_KEYS does not hold vault key ${missing.join(', ')}, which sealed rows of this database: ` +
            'list it after the active key and run `acquiro vault reseal` again; nothing was resealed',
          CONFIG,
        );
      }
      const done = await resealAll(deps);
      show(ctx, Boolean(opts.json), { vault_key: deps.vault.activeKeyId, ...done }, () =>
        [
          `resealed ${done.tokens} stored cards and ${done.keys} secret keys with vault key ${deps.vault.activeKeyId}`,
          ...(done.connectors > 0 ? [`resealed ${done.connectors} connector credentials`] : []),
        ].join('\n'),
      );
    });

  vault
    .command('fingerprint-key')
    .description('print the key card and request fingerprints are made with now, to set as ACQUIRO_FINGERPRINT_KEY (required in live mode) before a vault key rotation')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const key = deps.vault.fingerprintKeyText;
      const from = deps.config.fingerprintKey ? 'ACQUIRO_FINGERPRINT_KEY' : `derived from vault key ${deps.vault.activeKeyId}`;
      show(ctx, Boolean(opts.json), { fingerprint_key: key, from }, () => `ACQUIRO_FINGERPRINT_KEY=${key}\n(${from}: keep it secret, as the vault keys)`);
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { migrate } = await import('../db/client.ts');
      // Opening the database for this command may have applied them already (`migrated`).
      const applied = [...(deps.migrated ?? []), ...(await migrate(deps.database))];
      show(ctx, Boolean(opts.json), { applied }, () => (applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date'));
    });

  // src/cli/main.ts runs these two (they run until stopped); here they have their help. It lists the
  // settings, which come with the configuration (config.ts, which the other commands' help does
  // not need): added when one of the two is chosen.
  const serve = program
    .command('serve')
    .description('run the gateway (as npm start does)')
    .option('--no-worker', 'run no background work in this process (as ACQUIRO_WORKERS=off): run `acquiro worker` beside it');
  const worker = program
    .command('worker')
    .description('run the periodic tasks (notification delivery, ...) without the HTTP server; start the servers with ACQUIRO_WORKERS=off');
  program.hook('preSubcommand', async (_program, chosen) => {
    if (chosen === serve || chosen === worker) {
      const { CONFIG_VARIABLES } = await import('../config.ts');
      chosen.addHelpText('after', settingsHelp(CONFIG_VARIABLES));
    }
  });
  return program;
}

const settingsHelp = (variables: readonly string[]) => `
Settings come from the environment (.env.example lists each with its default; docs/operations.md explains them):
  ${variables.join('\n  ')}`;

/** Commander's refusals of a command line (an unknown option, a missing or invalid value...): exit 2, as our own. */
const USAGE_ERRORS = new Set([
  'commander.conflictingOption',
  'commander.excessArguments',
  'commander.invalidArgument',
  'commander.missingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.optionMissingArgument',
  'commander.unknownCommand',
  'commander.unknownOption',
]);

/**
 * One line for an error that is neither a refusal nor a usage error. Drizzle's message quotes the
 * statement and its parameters (a merchant's name, an order number...) and the driver's may quote
 * a value, so neither is printed unless --verbose asks: the SQLSTATE says what kind of error it was.
 */
function unexpected(error: unknown, verbose: boolean): { stderr: string; exitCode: number } {
  const detail = verbose ? `${inspect(error, { depth: 6 })}\n` : '';
  if (isDatabaseUnavailable(error)) {
    return { stderr: `${detail}error: the database could not be reached; nothing more was done: run the command again once it is back\n`, exitCode: UNAVAILABLE };
  }
  const sqlState = sqlStateOf(error);
  const what = sqlState ? `the database refused a statement of the command (SQLSTATE ${sqlState})` : `the command failed unexpectedly (${error instanceof Error ? error.name : typeof error})`;
  const more = verbose ? '' : ': run it again with --verbose to print the error in full (it may quote merchants\' data)';
  return { stderr: `${detail}error: ${what}${more}\n`, exitCode: UNEXPECTED };
}

function describeOption(option: Option): string {
  const text = new Help().optionDescription(option);
  return option.mandatory ? `${text} (required)`.trimStart() : text;
}

/**
 * Runs one command line; never exits the process. `deps` are the database's, or a function that
 * opens them, called when a command first needs them (never for help or a refused argument).
 */
export async function runCommand(
  argv: readonly string[],
  deps: CommandDeps | (() => Promise<CommandDeps>),
  input: Pick<Output, 'stdin'> = {},
): Promise<CommandResult> {
  let stdout = '';
  let stderr = '';
  let opened: Promise<CommandDeps> | undefined;
  // Opening the database fails for its opener to handle (a configuration to fix, a data directory
  // another process took): such an error goes back to the caller as it is.
  let openFailure: unknown;
  const open = () =>
    (typeof deps === 'function' ? deps() : Promise.resolve(deps)).catch((error: unknown) => {
      openFailure = error;
      throw error;
    });
  const ctx: CommandContext = {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    deps: () => (opened ??= open()),
    ...input,
  };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return { stdout, stderr, exitCode: 0 };
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code.startsWith('acquiro.') && error.message) stderr += `error: ${error.message}\n`;
      // A group named without one of its commands prints its help as an error ('commander.help', exit 1 by commander): a usage error too.
      const usage = USAGE_ERRORS.has(error.code) || (error.code === 'commander.help' && error.exitCode !== 0);
      return { stdout, stderr, exitCode: usage ? 2 : error.exitCode };
    }
    if (error instanceof AppError) return { stdout, stderr: `${stderr}error: ${error.message}\n`, exitCode: 1 };
    if (openFailure !== undefined && error === openFailure) throw error;
    const failure = unexpected(error, program.opts<{ verbose?: boolean }>().verbose === true);
    return { stdout, stderr: stderr + failure.stderr, exitCode: failure.exitCode };
  }
}
