// Transactions: the portal's first page after sign-in. Search, filters, export and the
// transaction's page come here.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { html } from '../../html.ts';
import { portalPage } from '../guard.ts';

export function transactionsRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/transactions',
    permission: 'transactions.view',
    title: 'Transactions',
    render: async () => html`<h1>Transactions</h1><div class="table-wrap"><p class="empty">No transactions to show yet.</p></div>`,
  });
}
