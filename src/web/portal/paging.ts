// Numbered pages of a portal list (`?page=N`, 1-based): which page the query string asks for, and
// the Previous / Next links under the list. A list reads one row past its page to know whether
// there is a next.
import type { Deps } from '../../app/context.ts';
import { merchantAccounts } from '../../db/repositories/portal-transactions.ts';
import { html, type Html } from '../html.ts';

/** The page `?page=` names: 1 to 9999, anything else the first. */
export function pageNumber(query: Readonly<Record<string, string>>): number {
  return /^[1-9][0-9]{0,3}$/.test(query.page ?? '') ? Number(query.page) : 1;
}

/** A page of rows read with one row more than `size` (`rows`), and whether there is a next page. */
export function pageOf<T>(rows: readonly T[], size: number): { rows: T[]; hasNext: boolean } {
  return { rows: rows.slice(0, size), hasNext: rows.length > size };
}

/** Previous and Next links (`link(n)` is page n's address), or nothing when there is one page. */
export function pager(label: string, page: number, hasNext: boolean, link: (n: number) => string): Html | '' {
  if (page === 1 && !hasNext) return '';
  return html`<nav class="pager" aria-label="${label}">${page > 1 ? html`<a rel="prev" href="${link(page - 1)}">Previous</a>` : ''}<span>Page ${page}</span>${hasNext ? html`<a rel="next" href="${link(page + 1)}">Next</a>` : ''}</nav>`;
}

/**
 * Each of the merchant's accounts (only the one `?account=` names, if any) with its page
 * `?page=N` of rows: `read(accountId, limit, offset)` is asked for one row past the page.
 */
export async function pagesPerAccount<T>(
  deps: Pick<Deps, 'database'>,
  merchantId: string,
  query: Readonly<Record<string, string>>,
  size: number,
  read: (accountId: string, limit: number, offset: number) => Promise<T[]>,
) {
  const page = pageNumber(query);
  const accounts = (await merchantAccounts(deps.database.db, merchantId)).filter((account) => !query.account || account.id === query.account);
  const lists = await Promise.all(accounts.map(async (account) => ({ account, ...pageOf(await read(account.id, size + 1, (page - 1) * size), size) })));
  return { page, lists };
}
