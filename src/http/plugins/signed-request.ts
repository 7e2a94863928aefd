// Before any operation's handler: find the account the body names, check encryption_data with
// its keys, then count the request against the account's budgets. Unknown pair → 404, bad
// signature → 401, nothing stored. Failed authentications are counted per client address: past
// the limit the address is answered 429 before any account is looked up. While the gateway is
// busy, an account holding its share of the requests in flight is answered 429 (rate-limit.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AccountDirectory } from '../../app/accounts/directory.ts';
import type { AccountRow } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { matchingSecret, type SignedBody } from '../../domain/signature.ts';
import { normaliseBodyNoting } from '../body/decode.ts';
import { operationOf } from '../operation.ts';
import { safeCanonicalString } from '../signature-hint.ts';
import { FailureLimiter, FairShare, gatewayShare, RateLimiter, type Arrival } from './rate-limit.ts';

export interface SignedRequestOptions {
  readonly directory: AccountDirectory;
  readonly defaultRateLimit: number;
  /** Gateways alive on this database: each enforces its part of an account's limit. */
  readonly gateways?: () => number;
  /** Failed authentications per client address at once, and per minute after that. */
  readonly authFailureLimit: number;
  /** Requests in flight from which the gateway is busy and shares them out per account. */
  readonly busyInFlight: number;
  /** Sandbox only: a 401 shows the canonical string the gateway computed (signature-hint.ts). */
  readonly explainSignatures?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Counted as pending by the fair share until it is answered. */
    pendingShare?: Arrival | undefined;
    /** The account whose fair share this request holds until it is answered. */
    shareAccount?: string | undefined;
    /** The signed body as sent, kept only when normalising dropped empty or null fields from it. */
    sentFields?: Record<string, unknown> | undefined;
  }
}

const tooManyFailures = (retryAfter: number) =>
  new AppError('rate_limited', 'too many failed authentications from this address', { headers: { 'retry-after': String(retryAfter) } });

function identity(body: SignedBody, field: 'merchant_id' | 'account_id'): string {
  const value = body[field];
  if (value === undefined || value === null || value === '') throw new AppError('missing_field', `${field} is required`, { field });
  if (typeof value !== 'string' && typeof value !== 'number') throw new AppError('invalid_field', `${field} is invalid: expected text`, { field });
  return String(value);
}

const HINT_NOTE = 'card masked, security_code left out, fields this request does not define as ***';

/** The request fields of the route's operation, as the account that the body names would be read. */
function fieldsOf(request: FastifyRequest, account: AccountRow): TSchema {
  const schema = operationOf(request)!.schema;
  return typeof schema === 'function' ? schema((request.body ?? {}) as Record<string, unknown>, account) : schema;
}

/**
 * Whether `body` names an account whose key signs it. What tells a merchant's request from the
 * shopper's hand-off post to the same path: the hand-off echoes the merchant's fields and its
 * encryption_data, but adds fields (signInfo, gbc_id, allParams...) that signature never covers,
 * since a signed request holding them is refused (4019) before any hand-off page is made.
 */
async function signedByItsAccount(body: SignedBody, directory: AccountDirectory): Promise<boolean> {
  const ids = [body.merchant_id, body.account_id];
  if (!ids.every((id) => (typeof id === 'string' && id !== '') || typeof id === 'number')) return false;
  const found = await directory.lookup(String(ids[0]), String(ids[1]));
  return found !== null && matchingSecret(body, body.encryption_data, found.secrets) !== -1;
}

async function verify(request: FastifyRequest, directory: AccountDirectory, explain: boolean): Promise<void> {
  const body = (request.body ?? {}) as SignedBody;
  const merchantId = identity(body, 'merchant_id');
  const accountId = identity(body, 'account_id');
  const found = await directory.lookup(merchantId, accountId);
  if (!found) throw new AppError('account_not_found', 'unknown merchant_id/account_id');
  const index = matchingSecret(body, body.encryption_data, found.secrets);
  if (index === -1) {
    // Answer signed with the current key, so the merchant can tell the refusal came from us.
    request.signing = { account: found.account, secret: found.secrets[0]! };
    const missing = body.encryption_data === undefined || body.encryption_data === '';
    const message = missing ? 'encryption_data is required' : 'encryption_data does not match the body';
    const hint = explain ? `; sandbox: the gateway signed "${safeCanonicalString(body, fieldsOf(request, found.account))}" (${HINT_NOTE})` : '';
    throw new AppError('invalid_signature', message + hint, { field: 'encryption_data' });
  }
  request.signing = { account: found.account, secret: found.secrets[index]! };
  // Told only to a caller who signed with the account's key: a disabled merchant learns why.
  if (found.disabled) throw new AppError('account_disabled');
  const normalised = normaliseBodyNoting(body);
  request.body = normalised.body;
  // The fields dropped as empty are still checked by name (plugins/request-fields.ts).
  if (normalised.dropped) request.sentFields = body;
}

export function installSignedRequests(app: FastifyInstance, options: SignedRequestOptions): void {
  const limiter = new RateLimiter();
  // Each gateway holds its part of an address's failure budget, as of an account's rate limit.
  const failures = new FailureLimiter(() => gatewayShare(options.authFailureLimit, options.gateways?.() ?? 1));
  const share = new FairShare(options.busyInFlight);
  app.decorateRequest('signing', null);
  app.addHook('onRequest', async (request) => {
    if (!operationOf(request)) return;
    request.pendingShare = share.arrive();
  });
  app.addHook('preValidation', async (request) => {
    const operation = operationOf(request);
    if (!operation) return;
    try {
      const body = (request.body ?? {}) as SignedBody;
      if (operation.shopperPost?.(body) && !(await signedByItsAccount(body, options.directory))) return;
      const gate = failures.check(request.ip);
      if (!gate.allowed) throw tooManyFailures(gate.retryAfter);
      try {
        await verify(request, options.directory, options.explainSignatures === true);
      } catch (error) {
        if (error instanceof AppError && (error.codeName === 'account_not_found' || error.codeName === 'invalid_signature')) {
          const counted = failures.fail(request.ip);
          if (!counted.allowed) throw tooManyFailures(counted.retryAfter);
        }
        throw error;
      }
    } finally {
      // Its account is known now (or it is refused, or a shopper's): the fair share stops waiting for it.
      if (request.pendingShare) share.identified(request.pendingShare);
    }
    const account = request.signing!.account;
    const limit = account.rateLimitPerSecond ?? options.defaultRateLimit;
    const verdict = limiter.take(account.id, gatewayShare(limit, options.gateways?.() ?? 1));
    if (!verdict.allowed) {
      throw new AppError('rate_limited', `more than ${limit} requests per second for this account`, {
        headers: { 'retry-after': String(verdict.retryAfter) },
      });
    }
    if (!share.admit(account.id)) {
      throw new AppError('rate_limited', 'this account has had its share of the gateway while it is busy', {
        headers: { 'retry-after': '1' },
      });
    }
    request.shareAccount = account.id;
  });
  const release = async (request: { pendingShare?: Arrival | undefined; shareAccount?: string | undefined }) => {
    if (request.shareAccount !== undefined) share.done(request.shareAccount);
    request.shareAccount = undefined;
    if (!request.pendingShare) return;
    share.depart(request.pendingShare);
    request.pendingShare = undefined;
  };
  app.addHook('onResponse', release);
  app.addHook('onRequestAbort', release);
}
