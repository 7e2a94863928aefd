// The sandbox's simulated third parties, served by the gateway in sandbox mode only: the issuer's
// 3-D Secure challenge (/sandbox/acs/:payment/:session) and the APM provider's page
// (/sandbox/apm/:payment/:session). Their answers complete the payment through the core use
// cases, and the shopper goes on: back to the hosted page, or to the merchant's return_url with
// the signed outcome. Like a real issuer's pages, they belong to the shopper's session: the page
// opens only with the session token of the URL the shopper was sent to, its form posts that
// token back (checked in constant time), and a post from another site is refused. Whoever lacks
// the token gets the page "not found" and nothing else: no outcome, no URL.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDirectory } from '../../app/accounts/directory.ts';
import { apmAsOpened, completeApm, type IssuerAnswer } from '../../app/apm/complete.ts';
import { frameAncestors } from '../../app/checkout/frame-ancestors.ts';
import { returnUrlOf, shopperNextUrl } from '../../app/checkout/return-to-merchant.ts';
import type { Deps } from '../../app/context.ts';
import { completeChallenge } from '../../app/threeds/complete.ts';
import { answerChallenge, challengeWindowOf } from '../../connectors/simulator/acs.ts';
import { sandboxMethod, SANDBOX_BANKS } from '../../connectors/simulator/apm.ts';
import { accountById, merchantName, paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { maskFrom } from '../../domain/card.ts';
import { exponentOf } from '../../domain/money.ts';
import { sameSecret } from '../../domain/signature.ts';
import { formatMoney } from '../../web/i18n.ts';
import { messagePage } from '../../web/pages/message.ts';
import { acsPage } from '../../web/pages/sandbox/acs.ts';
import { issuerPage } from '../../web/pages/sandbox/issuer.ts';
import { isCrossSite, originOf } from '../../web/security.ts';
import { languageOf, pageErrorHandler, redirect, sendPage } from '../page.ts';

type Params = { Params: { payment: string } };
type SessionParams = { Params: { payment: string; session: string } };

/** The session token of the page URL the shopper was given (kept as the payment's action URL). */
function sessionOf(payment: PaymentRow): string | undefined {
  return payment.actionUrl ? /\/([A-Za-z0-9_-]{32})$/.exec(payment.actionUrl)?.[1] : undefined;
}

/** The payment, when `session` is the token of the page the shopper was given for it. */
function ofSession(payment: PaymentRow | null | undefined, session: unknown): PaymentRow | undefined {
  const expected = payment ? sessionOf(payment) : undefined;
  return expected !== undefined && typeof session === 'string' && sameSecret(expected, session) ? payment! : undefined;
}
const ANSWERS: readonly IssuerAnswer[] = ['approve', 'decline', 'abandon'];

export function sandboxRoutes(app: FastifyInstance, deps: Deps, directory: AccountDirectory): void {
  const { baseUrl } = deps.config;
  const options = { errorHandler: pageErrorHandler(deps) };
  // The session token of a page's URL is the shopper's key to it: never in a log line.
  const sessionPage = { ...options, config: { secretParams: ['session'] } };

  // Without a session token there is no page: the same answer as a wrong token.
  for (const path of ['/sandbox/acs/:payment', '/sandbox/apm/:payment']) {
    app.get<Params>(path, options, async (request, reply) => sendPage(reply, closed(request, undefined, 404)));
  }

  app.get<SessionParams>('/sandbox/acs/:payment/:session', sessionPage, async (request, reply) => {
    const payment = ofSession(await paymentById(deps.database.db, request.params.payment), request.params.session);
    if (!payment) return sendPage(reply, closed(request, undefined, 404));
    if (payment.status !== 'requires_authentication') return sendPage(reply, closed(request, payment));
    return sendPage(reply, await challenge(request, payment, false));
  });

  app.post<Params>('/sandbox/acs/:payment', options, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (isCrossSite(request.headers, baseUrl)) return sendPage(reply, closed(request, undefined, 403));
    const payment = ofSession(await paymentById(deps.database.db, request.params.payment), body.session);
    if (!payment) return sendPage(reply, closed(request, undefined, 404));
    if (payment.status !== 'requires_authentication') return challengeOver(request, reply, payment);
    // NFKC: a code typed in full-width digits ("１２３４", a Chinese or Japanese input method's) is the same code.
    const result = answerChallenge({ cancel: body.action === 'cancel', code: typeof body.code === 'string' ? body.code.normalize('NFKC').trim() : '' });
    if (!result) return sendPage(reply, await challenge(request, payment, true));
    const after = (await completeChallenge(deps, payment.id, { ...result })) ?? payment;
    return goOn(request, reply, after, await shopperNextUrl(deps, directory, after));
  });

  app.get<SessionParams>('/sandbox/apm/:payment/:session', sessionPage, async (request, reply) => {
    const found = ofSession(await paymentById(deps.database.db, request.params.payment), request.params.session);
    const method = found?.kind === 'apm' ? sandboxMethod(found.paymentMethod) : undefined;
    if (!found || !method) return sendPage(reply, closed(request, undefined, 404));
    // Past the method's deadline the page is closed, even before expire-abandoned-payments has run.
    const payment = await apmAsOpened(deps, found);
    if (payment.status !== 'requires_redirect') return sendPage(reply, closed(request, payment));
    const stored = payment.request as Record<string, unknown>;
    const bank = SANDBOX_BANKS.find((candidate) => candidate.code === stored.bank_code);
    const language = languageOf(request, stored);
    return sendPage(
      reply,
      issuerPage({
        baseUrl,
        lang: language.lang,
        postUrl: `${baseUrl}/sandbox/apm/${payment.id}`,
        session: request.params.session,
        method,
        merchantName: await merchantName(deps.database.db, payment.merchantId),
        orderNo: payment.orderNo,
        amount: money(payment, language.locale),
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
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (isCrossSite(request.headers, baseUrl)) return sendPage(reply, closed(request, undefined, 403));
    const payment = ofSession(await paymentById(deps.database.db, request.params.payment), body.session);
    if (!payment || payment.kind !== 'apm') return sendPage(reply, closed(request, undefined, 404));
    const action = body.action;
    // Any other post ("pay later") leaves the payment waiting, unless its deadline has passed.
    const after = ANSWERS.includes(action as IssuerAnswer)
      ? ((await completeApm(deps, payment.id, action as IssuerAnswer)) ?? payment)
      : await apmAsOpened(deps, payment);
    return goOn(request, reply, after, await returnUrlOf(deps, directory, after));
  });

  async function challenge(request: FastifyRequest, payment: PaymentRow, wrongCode: boolean) {
    const stored = payment.request as Record<string, unknown>;
    const language = languageOf(request, stored);
    return acsPage({
      baseUrl,
      lang: language.lang,
      postUrl: `${baseUrl}/sandbox/acs/${payment.id}`,
      session: sessionOf(payment)!,
      merchantName: await merchantName(deps.database.db, payment.merchantId),
      amount: money(payment, language.locale),
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
   * A challenge answered meanwhile (a second post of the shopper's own form): the shopper of a
   * direct payment goes on to the merchant with the outcome. A hosted-page payment's page URL is
   * given only to whoever just completed the challenge.
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
    if (status === 404 || status === 403) return messagePage({ baseUrl, lang, status, title: 'notFoundTitle', text: 'notFoundText', sandbox: true });
    if (payment?.kind === 'apm') return messagePage({ baseUrl, lang, status, title: 'closedTitle', text: 'closedText', sandbox: true });
    return messagePage({ baseUrl, lang, status, title: 'doneTitle', text: 'doneText', sandbox: true });
  }
}

function money(payment: PaymentRow, locale: string): string {
  return formatMoney(payment.amount, payment.currency, exponentOf(payment.currency), locale);
}

/** A voucher's printable number: the transaction id's digits and letters in groups of five. */
function voucherNumber(paymentId: string): string {
  return paymentId.slice(1).match(/.{1,5}/g)!.join(' ');
}
