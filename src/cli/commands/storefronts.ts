// storefronts: the sites allowed to frame an account's hosted payment page (iFrame mode). They
// become the pages' CSP frame-ancestors; with none, no site may frame them (docs/api/checkout.md).
// A change goes through the portal's use case, which tells every process to drop its cached account.
import type { Command } from 'commander';
import { hostSource } from '../../app/checkout/frame-ancestors.ts';
import { accountCommand, accountDeps, show, usageError, type CommandContext, type CommandDeps } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const access = () => import('../../app/merchants/access.ts');
const accounts = () => import('../../db/repositories/accounts.ts');

function domainOf(text: string): string {
  const source = hostSource(text);
  if (!source) throw usageError(`--domain ${text} is not a site such as https://shop.example, shop.example or *.example.com`);
  return source;
}

export function storefrontCommands(program: Command, ctx: CommandContext): void {
  const storefronts = program.command('storefronts').description('sites allowed to frame the hosted payment page (iFrame mode)');
  const command = (name: string, description: string) => accountCommand(storefronts, name, description);
  const domains = async (deps: CommandDeps, accountId: string) => {
    const { storefrontDomains } = await accounts();
    return storefrontDomains(deps.database.db, accountId);
  };

  command('add', 'allow a site to frame the hosted page')
    .requiredOption('--domain <site>', 'https://shop.example, shop.example or *.example.com (a port if not the default)')
    .action(async (opts: { merchantId: string; accountId: string; domain: string; json?: boolean }) => {
      const domain = domainOf(opts.domain);
      const deps = await accountDeps(ctx, opts);
      const { changeStorefront } = await access();
      await changeStorefront(deps, opts.merchantId, opts.accountId, 'add', domain);
      show(ctx, Boolean(opts.json), { account_id: opts.accountId, storefront_domains: await domains(deps, opts.accountId) }, () => `added ${domain}`);
    });
  command('remove', 'stop a site framing the hosted page')
    .requiredOption('--domain <site>')
    .action(async (opts: { merchantId: string; accountId: string; domain: string; json?: boolean }) => {
      const domain = domainOf(opts.domain);
      const deps = await accountDeps(ctx, opts);
      // A site not on the list (https://shop.example added, shop.example named) is said to be so,
      // with what may still frame the page: "removed" would leave the operator thinking it stopped.
      const removed = (await domains(deps, opts.accountId)).includes(domain);
      if (removed) {
        const { changeStorefront } = await access();
        await changeStorefront(deps, opts.merchantId, opts.accountId, 'remove', domain);
      }
      const left = await domains(deps, opts.accountId);
      show(ctx, Boolean(opts.json), { account_id: opts.accountId, removed, storefront_domains: left }, () =>
        removed ? `removed ${domain}` : `${domain} was not on the list: ${left.length > 0 ? `${left.join(', ')} may frame the page` : 'no storefront may frame the page'}`,
      );
    });
  command('list', 'list the sites').action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
    const deps = await accountDeps(ctx, opts);
    const list = await domains(deps, opts.accountId);
    show(ctx, Boolean(opts.json), { account_id: opts.accountId, storefront_domains: list }, () => (list.length > 0 ? list.join('\n') : 'no storefront may frame the page'));
  });
}
