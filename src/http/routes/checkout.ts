// POST /v1/checkout, the redirect / iFrame payment: the merchant's signed request is answered
// with the hand-off page; the shopper's browser posts that page back (signInfo, no merchant
// signature) and lands on the hosted payment page, /checkout/:session/:token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { AccountDirectory } from '../../app/accounts/directory.ts';
import { PAYMENT_LISTS } from '../requests/order.ts';
import { handOffFields } from '../encoders/handoff.ts';
import { hostedPageState, type HostedOrder } from '../../app/checkout/page-state.ts';
import { abandon, payWithCard, type PayResult } from '../../app/checkout/pay.ts';
import { frameAncestors } from '../../app/checkout/frame-ancestors.ts';
import { CheckoutRequest, checkoutCommand, checkoutRepeatKey, REFUSED } from '../requests/checkout.ts';
import { createCheckout, openHandOff, pageUrlOf, recordedCheckout, sessionOfPage, signInfoOf, type CheckoutSession } from '../../app/checkout/session.ts';
import type { Deps } from '../../app/context.ts';
import { accountById, merchantName, paymentById } from '../../db/repositories/checkout.ts';
import type { AccountRow, CheckoutSessionRow } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { handOffPage } from '../../web/pages/handoff.ts';
import { hostedPage } from '../../web/pages/hosted.ts';
import { messagePage } from '../../web/pages/message.ts';
import { outcomePage } from '../../web/pages/outcome.ts';
import { toIssuerPage } from '../../web/pages/to-issuer.ts';
import { originOf } from '../../web/security.ts';
import { paymentRefusal } from '../encoders/payment.ts';
import type { Operation } from '../operation.ts';
import { signingOf } from '../operation.ts';
import { languageOf, pageErrorHandler, redirect, sendPage } from '../page.ts';

export const checkoutOperation: Operation = {
  name: 'checkout',
  lists: PAYMENT_LISTS,
  // Refusals before the hand-off page are answered like /v1/authorise's: XML respon with result_info.
  format: 'xml',
  // The card group is known here only to be refused with its own reason (checkoutCommand).
  schema: Type.Object({ ...CheckoutRequest.properties, ...Object.fromEntries(REFUSED.map((field) => [field, Type.Optional(Type.Unknown())])) }),
  errorAnswer: paymentRefusal,
  // A body holding signInfo whose signature does not verify: a signed one is the merchant's (4019).
  shopperPost: (body) => typeof body.signInfo === 'string',
};

interface PageParams {
  readonly session: string;
  readonly token: string;
}

export function checkoutRoutes(app: FastifyInstance, deps: Deps, directory: AccountDirectory): void {
  const { baseUrl } = deps.config;
  const sandbox = deps.config.mode === 'sandbox';

  app.post('/v1/checkout', { config: { operation: checkoutOperation } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    // The shopper's hand-off is the post that holds signInfo and no merchant's signature (signed-request.ts).
    if (!request.signing) return handOff(request, reply, body);
    const { account } = signingOf(request);
    const { session, payment } = await checkout(account, body);
    const fields = handOffFields({
      account,
      merchantName: await merchantName(deps.database.db, account.merchantId),
      session,
      body,
      signInfo: signInfoOf(deps, session),
      sourceIp: request.ip,
    });
    const page = handOffPage({
      baseUrl,
      lang: languageOf(request, payment.request).lang,
      fields,
      frameAncestors: frameAncestors(account, payment.request.storefront_domains as string | undefined),
    });
    return sendPage(reply, page);
  });

  /**
   * The merchant's order: a new session, or the one its repeat finds. A body refused by the checks
   * (checkoutCommand) that repeats an order recorded with the same fields is answered with that
   * order's session: a check added or tightened since (a storefront domain the account no longer
   * declares) refuses new orders, never the retry of one already accepted.
   */
  async function checkout(account: AccountRow, body: Record<string, unknown>): Promise<CheckoutSession> {
    let command;
    try {
      command = checkoutCommand(body, account, deps.clock.now());
    } catch (error) {
      const key = error instanceof AppError ? checkoutRepeatKey(body) : undefined;
      const recorded = key && (await recordedCheckout(deps, account, key.orderNo, key.identity));
      if (recorded) return recorded;
      throw error;
    }
    return createCheckout(deps, account, command);
  }

  /** The shopper's browser posts the hand-off page: the hosted page, once, or a page saying why not. */
  async function handOff(request: FastifyRequest, reply: FastifyReply, posted: Record<string, unknown>) {
    const opened = await openHandOff(deps, posted.signInfo as string);
    if (opened.ok) return redirect(reply, pageUrlOf(deps, opened.session));
    request.log.info({ reason: opened.reason }, 'hand-off refused');
    const lang = languageOf(request, posted).lang;
    const [status, title, text] = (
      {
        forged: [403, 'forgedTitle', 'forgedText'],
        expired: [410, 'expiredTitle', 'expiredText'],
        replayed: [409, 'replayTitle', 'replayText'],
      } as const
    )[opened.reason];
    return sendPage(reply, messagePage({ baseUrl, lang, status, title, text, sandbox }));
  }

  // The page token is the shopper's key to the page: never in a log line.
  const pageRoute = { errorHandler: pageErrorHandler(deps), config: { secretParams: ['token'] } };

  app.get<{ Params: PageParams }>('/checkout/:session/:token', pageRoute, async (request, reply) => {
    const session = await openSession(request.params);
    if (!session) return sendPage(reply, notFound(request));
    return show(request, session, reply);
  });

  // The card form's and the cancel button's URLs opened as pages (the address bar after a refused
  // card form, restored or reloaded with Enter): back to the page, which shows where the payment is.
  for (const path of ['/checkout/:session/:token/pay', '/checkout/:session/:token/cancel']) {
    app.get<{ Params: PageParams }>(path, pageRoute, async (request, reply) => {
      const session = await openSession(request.params);
      if (!session) return sendPage(reply, notFound(request));
      return redirect(reply, pageUrlOf(deps, session));
    });
  }

  app.post<{ Params: PageParams }>('/checkout/:session/:token/pay', pageRoute, async (request, reply) => {
    const session = await openSession(request.params);
    if (!session) return sendPage(reply, notFound(request));
    const result: PayResult = await payWithCard(deps, session, (request.body ?? {}) as Record<string, unknown>);
    if (result.kind === 'invalid') return show(request, session, reply, { problems: result.problems, holderName: result.holderName });
    return redirect(reply, pageUrlOf(deps, session));
  });

  app.post<{ Params: PageParams }>('/checkout/:session/:token/cancel', pageRoute, async (request, reply) => {
    const session = await openSession(request.params);
    if (!session) return sendPage(reply, notFound(request));
    const payment = await paymentById(deps.database.db, session.paymentId);
    if (payment?.status === 'requires_redirect') await abandon(deps, payment);
    return redirect(reply, pageUrlOf(deps, session));
  });

  /**
   * The session a page URL names, while its account and merchant are enabled: an operator's
   * `merchants disable` stops the hosted page as it refuses the API (4410), from the next request
   * on every process (the account directory), so a shopper is not charged for a merchant that no
   * longer takes payments. Enabled again, the page works until the session expires.
   */
  async function openSession(params: PageParams): Promise<CheckoutSessionRow | null> {
    const session = await sessionOfPage(deps, params.session, params.token);
    if (!session) return null;
    const account = await accountById(deps.database.db, session.accountId);
    return account && (await directory.find(account.merchantId, account.id)) ? session : null;
  }

  function notFound(request: FastifyRequest) {
    return messagePage({ baseUrl, lang: languageOf(request).lang, status: 404, title: 'notFoundTitle', text: 'notFoundText', sandbox });
  }

  async function show(
    request: FastifyRequest,
    session: CheckoutSessionRow,
    reply: FastifyReply,
    invalid?: Omit<Extract<PayResult, { kind: 'invalid' }>, 'kind'>,
  ) {
    const state = await hostedPageState(deps, directory, session);
    const order: HostedOrder = state.order;
    const language = languageOf(request, order.request);
    const common = { baseUrl, lang: language.lang, merchantName: order.merchantName, frameAncestors: order.frameAncestors, sandbox };
    // Not a 303: this answer ends the card form's submission (pay → 303 → here), and the card
    // page's form-action would block a redirect to the issuer's origin (src/web/pages/to-issuer.ts).
    if (state.kind === 'authenticate') return sendPage(reply, toIssuerPage({ ...common, actionUrl: state.url }));
    const orderPage = { baseUrl, language, sandbox, merchantName: order.merchantName, orderNo: order.payment.orderNo, total: order.total, frameAncestors: order.frameAncestors };
    if (state.kind === 'return') {
      if (state.url) return redirect(reply, state.url);
      // No return_url (nor cancel_url): the outcome is shown here; the merchant has the notification.
      return sendPage(reply, outcomePage({ ...orderPage, outcome: state.outcome, resultCode: order.payment.resultCode ?? '' }));
    }
    if (state.kind === 'expired') {
      return sendPage(reply, messagePage({ ...common, status: 410, title: 'expiredTitle', text: 'expiredText', ...(state.url ? { returnUrl: state.url } : {}) }));
    }
    if (state.kind === 'processing') {
      return sendPage(reply, messagePage({ ...common, status: 200, title: 'processingTitle', text: 'processingText', refreshSeconds: 2 }));
    }
    const pageUrl = pageUrlOf(deps, session);
    const returnOrigins = [...originOf(order.request.return_url as string | undefined), ...originOf(order.request.cancel_url as string | undefined)];
    return sendPage(
      reply,
      hostedPage({
        ...orderPage,
        lines: order.lines,
        breakdown: order.breakdown,
        payUrl: `${pageUrl}/pay`,
        cancelUrl: `${pageUrl}/cancel`,
        formTargets: returnOrigins,
        ...(state.lastResultCode ? { refusal: { code: state.lastResultCode, attemptsLeft: state.attemptsLeft } } : {}),
        ...(invalid ? { problems: invalid.problems, holderName: invalid.holderName, status: 400 } : {}),
      }),
    );
  }
}
