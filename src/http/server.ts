// Builds the HTTP server: body parsing, signature and rate limits, error answers, then routes.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { AccountDirectory } from '../app/accounts/directory.ts';
import type { Deps } from '../app/context.ts';
import { Presence } from '../app/processes/presence.ts';
import { limitConnectionsPerClient, timeoutOptions } from './connections.ts';
import { loggedPath } from './logged-path.ts';
import { BODY_LIMIT, installBodyParsing } from './plugins/body.ts';
import { installErrorHandling } from './plugins/errors.ts';
import { installIdempotency } from './plugins/idempotency.ts';
import { installMetrics } from './metrics/plugin.ts';
import { installUrlTextCheck } from './plugins/url-text.ts';
import { installRequestFields } from './plugins/request-fields.ts';
import { installSignedRequests } from './plugins/signed-request.ts';
import { installStopping } from './plugins/stopping.ts';
import { assetRoutes } from './routes/assets.ts';
import { authoriseRoutes } from './routes/authorise.ts';
import { checkoutRoutes } from './routes/checkout.ts';
import { optimiseRoutes } from './routes/optimise.ts';
import { payoutRoutes } from './routes/payout.ts';
import { sandboxRoutes } from './routes/sandbox.ts';
import { healthRoutes, type Readiness } from './routes/health.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { cancelRoutes } from './routes/cancel.ts';
import { cancelSubscriptionRoutes } from './routes/cancel-subscription.ts';
import { captureRoutes } from './routes/capture.ts';
import { queryRoutes } from './routes/query.ts';
import { refundRoutes } from './routes/refund.ts';
import { refundSearchRoutes } from './routes/refund-search.ts';
import { reviewRoutes } from './routes/review.ts';
import { portalPlugin } from '../web/portal/plugin.ts';

export interface Server {
  readonly app: FastifyInstance;
  readonly directory: AccountDirectory;
  /** This gateway among the others on the database (heartbeat, gateways alive, cache version). */
  readonly presence: Presence;
  /** /health answers 503 until `ready` (a started process sets it when its start-up is done). */
  readonly readiness: Readiness;
}

export async function buildServer(deps: Deps, options: { ready?: boolean } = {}): Promise<Server> {
  const readiness: Readiness = { ready: options.ready ?? true };
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // One line per request is written by the onResponse hook below, with the account it served.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    trustProxy: deps.config.trustedProxies.length > 0 ? [...deps.config.trustedProxies] : false,
    // Requests arriving while it stops are refused in each route's own format (plugins/stopping.ts).
    return503OnClosing: false,
    ...timeoutOptions(deps.config),
  });
  limitConnectionsPerClient(app.server, deps.config.maxConnectionsPerClient, deps.config.trustedProxies);
  const directory = new AccountDirectory(deps);
  // Without the listener (behind a transaction pooler without DATABASE_DIRECT_URL), changes reach
  // the cache through the version the heartbeat reads every second.
  const unwatch = await directory.watch().catch((error: unknown) => {
    deps.log.warn({ err: error }, 'account changes will be seen through the heartbeat only');
    return async () => {};
  });
  const presence = new Presence(deps, 'gateway', (version) => directory.noteVersion(version));
  await presence.start();
  installBodyParsing(app);
  installUrlTextCheck(app);
  app.addHook('onClose', async () => {
    await presence.stop();
    await unwatch();
  });
  installErrorHandling(app);
  installSignedRequests(app, {
    directory,
    defaultRateLimit: deps.config.rateLimitPerSecond,
    gateways: () => presence.gateways,
    authFailureLimit: deps.config.authFailureLimit,
    busyInFlight: deps.config.busyInFlight,
    explainSignatures: deps.config.mode === 'sandbox',
  });
  // Registered after the signature check: preValidation hooks run in this order.
  installStopping(app);
  installRequestFields(app);
  installIdempotency(app, deps, presence);
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      // The path only, less its credentials: a query string is request data, and a shopper's page token is a key (logged-path.ts).
      { method: request.method, url: loggedPath(request), status: reply.statusCode, ms: Math.round(reply.elapsedTime), account: request.signing?.account.id },
      'request',
    );
  });

  installMetrics(app, deps);
  healthRoutes(app, deps, readiness);
  authoriseRoutes(app, deps);
  captureRoutes(app, deps);
  reviewRoutes(app, deps);
  cancelRoutes(app, deps);
  refundRoutes(app, deps);
  queryRoutes(app, deps);
  refundSearchRoutes(app, deps);
  cancelSubscriptionRoutes(app, deps);
  checkoutRoutes(app, deps, directory);
  if (deps.config.mode === 'sandbox') sandboxRoutes(app, deps, directory);
  optimiseRoutes(app, deps);
  payoutRoutes(app, deps);
  assetRoutes(app);
  openApiRoutes(app);
  await app.register(portalPlugin(deps, { gateways: () => presence.gateways }), { prefix: '/portal' });
  return { app, directory, presence, readiness };
}
