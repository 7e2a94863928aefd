// `acquiro merchants disable|enable`, `acquiro accounts fees show|set|remove`, `accounts
// settings show|set` (rate limit, capture mode) and `accounts connector show|set`: what an
// operator changes on a merchant already taking payments. Every process sees it at once.
import { Option, type Command } from 'commander';
import type { ConnectorView } from '../../app/merchants/connector.ts';
import type { AccountSettingsView, FeesView, Status } from '../../app/merchants/settings.ts';
import { formatAmount, isCurrency, parseAmount } from '../../domain/money.ts';
import { accountCommand, intBetween, show, usageError, type CommandContext } from '../io.ts';
import { MAX_RATE_LIMIT } from './merchants.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const settings = () => import('../../app/merchants/settings.ts');
const connectors = () => import('../../app/merchants/connector.ts');

export const sub = (program: Command, name: string, description: string): Command =>
  program.commands.find((c) => c.name() === name) ?? program.command(name).description(description);

/** An ISO 4217 code, as the fee and rate commands take it (a fee of no currency would be none to set or remove). */
export function currencyCode(option: string, code: string): string {
  if (!isCurrency(code)) throw usageError(`${option} ${code} is not an ISO 4217 currency code`);
  return code;
}

export function percentToBps(text: string): number {
  if (!/^(100|[0-9]{1,2})(\.[0-9]{1,2})?$/.test(text) || Number(text) > 100) throw usageError(`--percent ${text} is a percentage from 0 to 100 with at most two decimals`);
  return Math.round(Number(text) * 100);
}

/** `--rate-limit`: requests per second, as at creation, or `default` (the gateway's, ACQUIRO_RATE_LIMIT). */
function rateLimit(value: string): number | 'default' {
  // Kept as the word: commander takes a parser's null for an option given without a value.
  if (value === 'default') return value;
  try {
    return intBetween('--rate-limit', 1, MAX_RATE_LIMIT)(value);
  } catch {
    throw usageError(`--rate-limit must be a whole number from 1 to ${MAX_RATE_LIMIT}, or default`);
  }
}

const settingsText = (view: AccountSettingsView) =>
  `account ${view.account_id}: capture ${view.capture_mode}, rate limit ${view.rate_limit_per_second === null ? "the gateway's default (ACQUIRO_RATE_LIMIT)" : `${view.rate_limit_per_second} requests per second`}`;

function feesText(view: FeesView): string {
  const lines = Object.entries(view.currencies)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, fee]) => `${currency}  ${formatAmount(fee.fixed, currency)} + ${(fee.bps / 100).toFixed(2)}%`);
  return [...lines, `other currencies  ${(view.default_bps / 100).toFixed(2)}%`].join('\n');
}

export function accountSettingsCommands(program: Command, ctx: CommandContext): void {
  const merchants = sub(program, 'merchants', 'merchants and their first account');
  for (const [name, status] of [['disable', 'disabled'], ['enable', 'active']] as const satisfies readonly (readonly [string, Status])[]) {
    merchants
      .command(name)
      .description(
        status === 'disabled'
          ? "refuse every request of a merchant (or of one account) from now on, with code 4410; nothing is deleted"
          : 'accept requests of a disabled merchant (or account) again',
      )
      .requiredOption('--merchant-id <id>')
      .option('--account-id <id>', 'only this account of the merchant')
      .option('--json', 'print JSON')
      .action(async (opts: { merchantId: string; accountId?: string; json?: boolean }) => {
        const deps = await ctx.deps();
        const { setStatus } = await settings();
        const done = await setStatus(deps, opts.merchantId, opts.accountId, status);
        show(ctx, Boolean(opts.json), done, () => `${opts.accountId ? `account ${opts.accountId}` : `merchant ${opts.merchantId}`} ${status === 'active' ? 'enabled' : 'disabled'}`);
      });
  }

  const fees = sub(program, 'accounts', 'accounts of a merchant').command('fees').description('fees on captured payments, per currency: fixed plus a percentage');
  const feeCommand = (name: string, description: string) => accountCommand(fees, name, description);
  feeCommand('show', "print the account's fees").action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
    const deps = await ctx.deps();
    const { showFees } = await settings();
    const view = await showFees(deps, opts.merchantId, opts.accountId);
    show(ctx, Boolean(opts.json), view, () => feesText(view));
  });
  feeCommand('set', 'set the fee of one currency')
    .requiredOption('--currency <code>', 'ISO 4217 currency code')
    .option('--fixed <amount>', 'fixed part per capture, e.g. 0.30', '0')
    .option('--percent <p>', 'percentage of the captured amount, e.g. 2.9', '0')
    .action(async (opts: { merchantId: string; accountId: string; currency: string; fixed: string; percent: string; json?: boolean }) => {
      currencyCode('--currency', opts.currency);
      const parsed = /^0+(\.0+)?$/.test(opts.fixed) ? { minor: 0 } : parseAmount(opts.fixed, opts.currency);
      if ('problem' in parsed) throw usageError(`--fixed ${opts.fixed} is not an amount in ${opts.currency}`);
      const fee = { fixed: parsed.minor, bps: percentToBps(opts.percent) };
      const deps = await ctx.deps();
      const { setCurrencyFee } = await settings();
      const { had: _had, ...view } = await setCurrencyFee(deps, opts.merchantId, opts.accountId, opts.currency, fee);
      show(ctx, Boolean(opts.json), view, () => feesText(view));
    });
  feeCommand('remove', "remove one currency's fee: it pays the account's default percentage again")
    .requiredOption('--currency <code>', 'ISO 4217 currency code')
    .action(async (opts: { merchantId: string; accountId: string; currency: string; json?: boolean }) => {
      const code = currencyCode('--currency', opts.currency);
      const deps = await ctx.deps();
      const { removeCurrencyFee } = await settings();
      const result = await removeCurrencyFee(deps, opts.merchantId, opts.accountId, code);
      // As ips remove and storefronts remove: a currency with no fee (a typo) is said, not taken for removed.
      const said = result.removed ? `removed the ${code} fee: it pays the default percentage` : `${code} had no fee of its own: nothing removed`;
      show(ctx, Boolean(opts.json), result, () => `${said}\n${feesText(result)}`);
    });

  const accountSettings = sub(program, 'accounts', 'accounts of a merchant').command('settings').description("an account's rate limit and capture mode");
  const settingsCommand = (name: string, description: string) => accountCommand(accountSettings, name, description);
  settingsCommand('show', "print the account's capture mode and rate limit").action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
    const deps = await ctx.deps();
    const { showAccountSettings } = await settings();
    const view = await showAccountSettings(deps, opts.merchantId, opts.accountId);
    show(ctx, Boolean(opts.json), view, () => settingsText(view));
  });
  settingsCommand('set', 'change the rate limit or the capture mode (or both): every running process applies it from its next request')
    .option('--rate-limit <n>', "requests per second for the account, or default (the gateway's, ACQUIRO_RATE_LIMIT)", rateLimit)
    .addOption(new Option('--capture-mode <mode>', 'auto captures approved card payments; manual leaves them authorised').choices(['auto', 'manual']))
    .action(async (opts: { merchantId: string; accountId: string; rateLimit?: number | 'default'; captureMode?: 'auto' | 'manual'; json?: boolean }) => {
      if (opts.rateLimit === undefined && opts.captureMode === undefined) throw usageError('give --rate-limit, --capture-mode or both');
      const deps = await ctx.deps();
      const { setAccountSettings } = await settings();
      const view = await setAccountSettings(deps, opts.merchantId, opts.accountId, {
        ...(opts.captureMode ? { captureMode: opts.captureMode } : {}),
        ...(opts.rateLimit !== undefined ? { rateLimitPerSecond: opts.rateLimit === 'default' ? null : opts.rateLimit } : {}),
      });
      show(ctx, Boolean(opts.json), view, () => settingsText(view));
    });

  const connector = sub(program, 'accounts', 'accounts of a merchant').command('connector').description("the connector that processes an account's payments, and its credentials");
  const connectorText = (view: ConnectorView) => `account ${view.account_id}: connector ${view.connector}, credentials ${view.credentials.join(', ') || '(none)'}`;
  connector
    .command('show')
    .description('print the connector and the names of its stored credentials (never their values)')
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
      const deps = await ctx.deps();
      const { showConnector } = await connectors();
      const view = await showConnector(deps, opts.merchantId, opts.accountId);
      show(ctx, Boolean(opts.json), view, () => connectorText(view));
    });
  connector
    .command('set')
    .description("route the account to a connector, with its credentials sealed by the vault (refused for the simulator in live mode); without --credentials-file, another connector gets none: the previous one's are dropped")
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .requiredOption('--connector <name>', 'a connector registered in this mode')
    .option('--credentials-file <path>', 'a JSON object of text values (API keys): read from a file only its owner may read (chmod 600), or - for standard input; never typed on the command line')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; accountId: string; connector: string; credentialsFile?: string; json?: boolean }) => {
      const credentials = opts.credentialsFile ? await readCredentials(ctx, opts.credentialsFile) : undefined;
      const deps = await ctx.deps();
      const { setConnector } = await connectors();
      const view = await setConnector(deps, opts.merchantId, opts.accountId, opts.connector, credentials);
      const dropped = view.dropped_credentials.length
        ? `\ndropped the previous connector's credentials (${view.dropped_credentials.join(', ')}): they are never sent to ${view.connector}; store its own with --credentials-file`
        : '';
      show(ctx, Boolean(opts.json), view, () => connectorText(view) + dropped);
    });
}

/** The credentials of `--credentials-file`: the file's, or standard input's for `-` (src/cli/main.ts reads a file there). */
async function readCredentials(ctx: CommandContext, path: string): Promise<Record<string, string>> {
  const { FROM_STDIN, parseCredentials, readCredentialsText } = await import('../credentials-file.ts');
  if (path !== FROM_STDIN) return parseCredentials(await readCredentialsText(path), path);
  if (!ctx.stdin) throw usageError('--credentials-file - reads the credentials on standard input, and runs only from a shell');
  return parseCredentials(await ctx.stdin(), 'on standard input');
}
