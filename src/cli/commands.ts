// The `acquiro` administration commands. They run against whichever database the process has,
// directly or inside the process that owns the embedded database, and write to `out`/`err` so
// that both paths print the same thing. Each area registers its commands from commands/.
import { Command, CommanderError } from 'commander';
import { resealAll } from '../app/vault-reseal.ts';
import { AppError } from '../domain/errors.ts';
import { migrate } from '../db/client.ts';
import type { CommandResult } from '../db/ownership.ts';
import { accountSettingsCommands } from './commands/account-settings.ts';
import { balanceCommands } from './commands/balance.ts';
import { ledgerCommands } from './commands/ledger.ts';
import { merchantCommands } from './commands/merchants.ts';
import { notificationCommands } from './commands/notifications.ts';
import { riskCommands } from './commands/risk.ts';
import { storefrontCommands } from './commands/storefronts.ts';
import type { CommandDeps, Output } from './io.ts';

export type { CommandDeps } from './io.ts';

function buildProgram(deps: CommandDeps, io: Output): Command {
  const program = new Command('acquiro')
    .description('Acquiro payment gateway administration')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  merchantCommands(program, deps, io);
  accountSettingsCommands(program, deps, io);
  riskCommands(program, deps, io);
  notificationCommands(program, deps, io);
  ledgerCommands(program, deps, io);
  balanceCommands(program, deps, io);
  storefrontCommands(program, deps, io);

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
  program.command('serve').description('run the gateway (as npm start does)');
  program.command('worker').description('run the periodic tasks (notification delivery, ...) without the HTTP server');
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
