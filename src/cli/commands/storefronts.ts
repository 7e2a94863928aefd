// storefronts: the sites allowed to frame an account's hosted payment page (iFrame mode). They
// become the pages' CSP frame-ancestors; with none, no site may frame them (docs/api/checkout.md).
import type { Command } from 'commander';
import { hostSource } from '../../app/checkout/frame-ancestors.ts';
import { addStorefrontDomain, removeStorefrontDomain, storefrontDomains } from '../../db/repositories/accounts.ts';
import { show, usageError, type CommandDeps, type Output } from '../io.ts';
import { requireAccount } from './merchants.ts';

function domainOf(text: string): string {
  const source = hostSource(text);
  if (!source) throw usageError(`--domain ${text} is not a site such as https://shop.example, shop.example or *.example.com`);
  return source;
}

export function storefrontCommands(program: Command, deps: CommandDeps, io: Output): void {
  const storefronts = program.command('storefronts').description('sites allowed to frame the hosted payment page (iFrame mode)');
  const command = (name: string, description: string) =>
    storefronts.command(name).description(description).requiredOption('--merchant-id <id>').requiredOption('--account-id <id>').option('--json', 'print JSON');
  const domains = (accountId: string) => storefrontDomains(deps.database.db, accountId);

  command('add', 'allow a site to frame the hosted page')
    .requiredOption('--domain <site>', 'https://shop.example, shop.example or *.example.com (a port if not the default)')
    .action(async (opts: { merchantId: string; accountId: string; domain: string; json?: boolean }) => {
      const domain = domainOf(opts.domain);
      await requireAccount(deps, opts.merchantId, opts.accountId);
      await addStorefrontDomain(deps.database.db, opts.accountId, domain);
      show(io, Boolean(opts.json), { account_id: opts.accountId, storefront_domains: await domains(opts.accountId) }, () => `added ${domain}`);
    });
  command('remove', 'stop a site framing the hosted page')
    .requiredOption('--domain <site>')
    .action(async (opts: { merchantId: string; accountId: string; domain: string; json?: boolean }) => {
      const domain = domainOf(opts.domain);
      await requireAccount(deps, opts.merchantId, opts.accountId);
      await removeStorefrontDomain(deps.database.db, opts.accountId, domain);
      show(io, Boolean(opts.json), { account_id: opts.accountId, storefront_domains: await domains(opts.accountId) }, () => `removed ${domain}`);
    });
  command('list', 'list the sites').action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
    await requireAccount(deps, opts.merchantId, opts.accountId);
    const list = await domains(opts.accountId);
    show(io, Boolean(opts.json), { account_id: opts.accountId, storefront_domains: list }, () => (list.length > 0 ? list.join('\n') : 'no storefront may frame the page'));
  });
}
