// What every command module shares: what a command is given, argument parsers, printing.
// Light on purpose: `acquiro --help` loads this, commander and the command modules, and no more.
import { CommanderError, type Command } from 'commander';
import type { Deps } from '../app/context.ts';

export type CommandDeps = Pick<Deps, 'database' | 'vault' | 'config' | 'clock' | 'wallClock'> &
  Partial<Pick<Deps, 'connectors' | 'log'>> & {
    /** The migrations the command's own opening of the database applied (`acquiro migrate` names them). */
    readonly migrated?: readonly string[];
  };

export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** The process's standard input, for commands that run in the calling process (sign, call). */
  stdin?(): Promise<string>;
}

/**
 * What a command's action is given. `deps()` opens the database (and what comes with it) at the
 * first call: an action checks its arguments first, and loads its use cases after, so that a
 * refusal costs neither.
 */
export interface CommandContext extends Output {
  deps(): Promise<CommandDeps>;
}

/** The deps, once the account named is known to be the merchant's (exit 1 otherwise). */
export async function accountDeps(ctx: CommandContext, names: { merchantId: string; accountId: string }): Promise<CommandDeps> {
  const deps = await ctx.deps();
  const { requireAccount } = await import('./account.ts');
  await requireAccount(deps, names.merchantId, names.accountId);
  return deps;
}

/** A refusal the user can act on: printed as `error: <message>`, with this exit code. */
export function usageError(message: string, exitCode = 2): CommanderError {
  return new CommanderError(exitCode, 'acquiro.usage', message);
}

/** Exit 1 with nothing more to say: the command has printed why. */
export function quietFailure(): CommanderError {
  return new CommanderError(1, 'acquiro.quiet', '');
}

export const positiveInt = (name: string) => (value: string) => {
  if (!/^[1-9][0-9]*$/.test(value)) throw usageError(`${name} must be a positive integer`);
  return Number(value);
};

/** A whole number within the bounds its column or rule takes (a value past them was the database's failed statement). */
export const intBetween = (name: string, min: number, max: number) => (value: string) => {
  if (!/^[0-9]{1,16}$/.test(value) || Number(value) < min || Number(value) > max) throw usageError(`${name} must be a whole number from ${min} to ${max}`);
  return Number(value);
};

/** The most rows a list command prints at once; past it, page (--before) or filter. */
export const MAX_LIST = 1000;

/** A list's --limit: 1 to MAX_LIST, never cut down in silence (the operator would take a page for all). */
export const listLimit = (value: string) => {
  const limit = positiveInt('--limit')(value);
  if (limit > MAX_LIST) throw usageError(`--limit must be at most ${MAX_LIST}`);
  return limit;
};

export const nonNegativeInt = (name: string) => (value: string) => {
  if (!/^[0-9]+$/.test(value)) throw usageError(`${name} must be a whole number`);
  return Number(value);
};

export function show(io: Output, json: boolean, value: unknown, human: () => string): void {
  io.out(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** Credentials as `export` lines for a shell's eval: the variables `acquiro sign` and `call` read. */
export function shellExports(credentials: { merchant_id: string; account_id: string; secret_key: string }): string {
  return `export ACQUIRO_MERCHANT_ID=${credentials.merchant_id}\nexport ACQUIRO_ACCOUNT_ID=${credentials.account_id}\nexport ACQUIRO_SECRET_KEY=${credentials.secret_key}\n`;
}

export function table(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)';
  const keys = Object.keys(rows[0]!);
  const text = (value: unknown) => (value instanceof Date ? value.toISOString() : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value ?? ''));
  const cells = rows.map((row) => keys.map((key) => text(row[key])));
  const widths = keys.map((key, i) => Math.max(key.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: readonly string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(keys), ...cells.map(line)].join('\n');
}

/** A command about one account of a merchant: `--merchant-id` and `--account-id` required, `--json` to print JSON. */
export const accountCommand = (group: Command, name: string, description: string): Command =>
  group.command(name).description(description).requiredOption('--merchant-id <id>').requiredOption('--account-id <id>').option('--json', 'print JSON');
