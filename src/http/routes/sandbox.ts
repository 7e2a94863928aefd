// The sandbox's simulated third parties, served by the gateway in sandbox mode only: the issuer's
// 3-D Secure challenge (/sandbox/acs/:payment) and the APM provider's page (/sandbox/apm/:payment).
// Their answers complete the payment through the core use cases, and the shopper goes on: back
// to the hosted page, or to the merchant's return_url with the signed outcome.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDirectory } from '../../app/accounts/directory.ts';
import { completeApm, type IssuerAnswer } from '../../app/apm/complete.ts';
import { frameAncestors } from '../../app/checkout/request.ts';
import { returnUrlOf, shopperNextUrl } from '../../app/checkout/return-to-merchant.ts';
import type { Deps } from '../../app/context.ts';
import { completeChallenge } from '../../app/threeds/complete.ts';
import { answerChallenge, challengeWindowOf } from '../../connectors/simulator/acs.ts';
import { sandboxMethod, SANDBOX_BANKS } from '../../connectors/simulator/apm.ts';
import { accountById, merchantName, paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { maskFrom } from '../../domain/card.ts';
import { exponentOf } from '../../domain/money.ts';
import { formatMoney } from '../../web/i18n.ts';
import { messagePage } from '../../web/pages/message.ts';
import { acsPage } from '../../web/pages/sandbox/acs.ts';
import { issuerPage } from '../../web/pages/sandbox/issuer.ts';
import { originOf } from '../../web/security.ts';
import { languageOf, pageErrorHandler, redirect, sendPage } from '../page.ts';

type Params = { Params: { payment: string } };
const ANSWERS: readonly IssuerAnswer[] = ['approve', 'decline', 'abandon'];

export function sandboxRoutes(app: FastifyInstance, deps: Deps, directory: AccountDirectory): void {
  const { baseUrl } = deps.config;
  const options = { errorHandler: pageErrorHandler(deps) };

  app.get<Params>('/sandbox/acs/:payment', options, async (request, reply) => {
    const payment = await paymentById(deps.database.db, request.params.payment);
    if (!payment) return sendPage(reply, closed(request, undefined, 404));
    if (payment.status !== 'requires_authentication') return challengeOver(request, reply, payment);
    return sendPage(reply, await challenge(payment, false));
  });

  app.post<Params>('/sandbox/acs/:payment', options, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const payment = await paymentById(deps.database.db, request.params.payment);
    if (!payment) return sendPage(reply, closed(request, undefined, 404));
    if (payment.status !== 'requires_authentication') return challengeOver(request, reply, payment);
    const result = answerChallenge({ cancel: body.action === 'cancel', code: typeof body.code === 'string' ? body.code.trim() : '' });
    if (!result) return sendPage(reply, await challenge(payment, true));
    const after = (await completeChallenge(deps, payment.id, { ...result })) ?? payment;
    return goOn(request, reply, after, await shopperNextUrl(deps, directory, after));
  });

  app.get<Params>('/sandbox/apm/:payment', options, async (request, reply) => {
    const payment = await paymentById(deps.database.db, request.params.payment);
    const method = payment?.kind === 'apm' ? sandboxMethod(payment.paymentMethod) : undefined;
    if (!payment || !method) return sendPage(reply, closed(request, undefined, 404));
    if (payment.status !== 'requires_redirect') return sendPage(reply, closed(request, payment));
    const stored = payment.request as Record<string, unknown>;
    const bank = SANDBOX_BANKS.find((candidate) => candidate.code === stored.bank_code);
    return sendPage(
      reply,
      issuerPage({
        baseUrl,
        postUrl: `${baseUrl}/sandbox/apm/${payment.id}`,
        method,
        merchantName: await merchantName(deps.database.db, payment.merchantId),
        orderNo: payment.orderNo,
        amount: money(payment),
        ...(bank ? { bankName: bank.name } : {}),
        ...(method.type === 'wallet' && payment.shopperEmail ? { walletEmail: payment.shopperEmail } : {}),
        ...(method.type === 'voucher'
          ? { voucher: { number: voucherNumber(payment.id), due: (payment.expiresAt ?? payment.createdAt).toISOString().slice(0, 16).replace('T', ' ') + ' UTC' } }
          : {}),
        ...(await framing(payment)),
      }),
    );
  });

  app.post<Params>('/sandbox/apm/:payment', options, async (request, reply) => {
    const action = ((request.body ?? {}) as Record<string, unknown>).action;
    const payment = await paymentById(deps.database.db, request.params.payment);
    if (!payment || payment.kind !== 'apm') return sendPage(reply, closed(request, undefined, 404));
    const after = ANSWERS.includes(action as IssuerAnswer) ? ((await completeApm(deps, payment.id, action as IssuerAnswer)) ?? payment) : payment;
    return goOn(request, reply, after, await returnUrlOf(deps, directory, after));
  });

  async function challenge(payment: PaymentRow, wrongCode: boolean) {
    const stored = payment.request as Record<string, unknown>;
    return acsPage({
      baseUrl,
      postUrl: `${baseUrl}/sandbox/acs/${payment.id}`,
      merchantName: await merchantName(deps.database.db, payment.merchantId),
      amount: money(payment),
      card: payment.cardBin && payment.cardLast4 && payment.cardLength ? maskFrom(payment.cardBin, payment.cardLast4, payment.cardLength) : '',
      window: challengeWindowOf(stored.challenge_window_size),
      wrongCode,
      ...(await framing(payment)),
    });
  }

  /** Who may frame the page (the account's storefronts) and where its form may lead (the merchant). */
  async function framing(payment: PaymentRow) {
    const account = await accountById(deps.database.db, payment.accountId);
    const stored = payment.request as Record<string, unknown>;
    const text = (name: string) => (typeof stored[name] === 'string' ? (stored[name] as string) : undefined);
    return {
      frameAncestors: account ? frameAncestors(account, text('storefront_domains')) : [],
      formTargets: [...originOf(text('return_url')), ...originOf(text('cancel_url'))],
    };
  }

  /**
   * A challenge already answered (or expired): the shopper of a direct payment goes on to the
   * merchant with the outcome. A hosted-page payment's page URL is given only to whoever just
   * completed the challenge, never to a later visitor of this URL.
   */
  async function challengeOver(request: FastifyRequest, reply: FastifyReply, payment: PaymentRow) {
    const next = payment.kind === 'checkout' ? undefined : await returnUrlOf(deps, directory, payment);
    return goOn(request, reply, payment, next);
  }

  function goOn(request: FastifyRequest, reply: FastifyReply, payment: PaymentRow, next: string | undefined) {
    if (next) return redirect(reply, next);
    return sendPage(reply, closed(request, payment));
  }

  /** Not found; or nothing left to do here: a finished challenge, or a payment with its outcome. */
  function closed(request: FastifyRequest, payment: PaymentRow | undefined, status = 200) {
    const lang = languageOf(request, (payment?.request ?? {}) as Record<string, unknown>).lang;
    if (status === 404) return messagePage({ baseUrl, lang, status, title: 'notFoundTitle', text: 'notFoundText', sandbox: true });
    if (payment?.kind === 'apm') return messagePage({ baseUrl, lang, status, title: 'closedTitle', text: 'closedText', sandbox: true });
    return messagePage({ baseUrl, lang, status, title: 'doneTitle', text: 'doneText', sandbox: true });
  }
}

function money(payment: PaymentRow): string {
  return formatMoney(payment.amount, payment.currency, exponentOf(payment.currency), 'en-US');
}

/** A voucher's printable number: the transaction id's digits and letters in groups of five. */
function voucherNumber(paymentId: string): string {
  return paymentId.slice(1).match(/.{1,5}/g)!.join(' ');
}
