// The `acquiro` administration commands. They run against whichever database the process has,
// directly or inside the process that owns the embedded database, and write to `out`/`err` so
// that both paths print the same thing. Each area registers its commands from commands/.
import { Command, CommanderError, Help, type Option } from 'commander';
import { resealAll } from '../app/vault-reseal.ts';
import { CONFIG_VARIABLES } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { VERSION } from '../version.ts';
import { migrate } from '../db/client.ts';
import type { CommandResult } from '../db/ownership.ts';
import { accountSettingsCommands } from './commands/account-settings.ts';
import { balanceCommands } from './commands/balance.ts';
import { clockCommands } from './commands/clock.ts';
import { demoCommands } from './commands/demo.ts';
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
import type { CommandDeps, Output } from './io.ts';

export type { CommandDeps } from './io.ts';

function buildProgram(deps: CommandDeps, io: Output): Command {
  const program = new Command('acquiro')
    .description('Acquiro payment gateway administration')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    // Subcommands inherit this: an option the command cannot run without says so in its help.
    .configureHelp({ optionDescription: (option: Option) => describeOption(option) });

  merchantCommands(program, deps, io);
  accountSettingsCommands(program, deps, io);
  riskCommands(program, deps, io);
  notificationCommands(program, deps, io);
  ledgerCommands(program, deps, io);
  balanceCommands(program, deps, io);
  clockCommands(program, deps, io);
  storefrontCommands(program, deps, io);
  paymentCommands(program, deps, io);
  subscriptionCommands(program, deps, io);
  payoutCommands(program, deps, io);
  demoCommands(program, deps, io);
  signingCommands(program, io);
  userCommands(program, deps, io);

  program
    .command('vault')
    .description('secrets at rest')
    .command('reseal')
    .description('re-encrypt stored cards and secret keys with the active (first) key of ACQUIRO_VAULT_KEYS')
    .action(async () => {
      const done = await resealAll(deps);
      io.out(`resealed ${done.tokens} stored cards and ${done.keys} secret keys with vault key ${deps.vault.activeKeyId}\n`);
      if (done.connectors > 0) io.out(`resealed ${done.connectors} connector credentials\n`);
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const applied = await migrate(deps.database);
      io.out(applied.length ? `applied ${applied.join(', ')}\n` : 'the database is up to date\n');
    });
  program
    .command('serve')
    .description('run the gateway (as npm start does)')
    .option('--no-worker', 'run no background work in this process (as ACQUIRO_WORKERS=off): run `acquiro worker` beside it')
    .addHelpText('after', SETTINGS_HELP);
  program
    .command('worker')
    .description('run the periodic tasks (notification delivery, ...) without the HTTP server; start the servers with ACQUIRO_WORKERS=off')
    .addHelpText('after', SETTINGS_HELP);
  return program;
}

const SETTINGS_HELP = `
Settings come from the environment (.env.example lists each with its default; docs/operations.md explains them):
  ${CONFIG_VARIABLES.join('\n  ')}`;

function describeOption(option: Option): string {
  const text = new Help().optionDescription(option);
  return option.mandatory ? `${text} (required)`.trimStart() : text;
}

/** Runs one command line; never exits the process. */
export async function runCommand(argv: readonly string[], deps: CommandDeps, input: Pick<Output, 'stdin'> = {}): Promise<CommandResult> {
  let stdout = '';
  let stderr = '';
  const io: Output = { out: (text) => void (stdout += text), err: (text) => void (stderr += text), ...input };
  try {
    await buildProgram(deps, io).parseAsync([...argv], { from: 'user' });
    return { stdout, stderr, exitCode: 0 };
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code.startsWith('acquiro.') && error.message) stderr += `error: ${error.message}\n`;
      return { stdout, stderr, exitCode: error.exitCode };
    }
    if (error instanceof AppError) return { stdout, stderr: `${stderr}error: ${error.message}\n`, exitCode: 1 };
    throw error;
  }
}
