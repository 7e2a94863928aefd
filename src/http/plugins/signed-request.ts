// Before any operation's handler: find the account the body names, check encryption_data with
// its keys, then count the request against the account's per-second budget. Unknown pair → 404, bad signature → 401, nothing stored.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccountDirectory } from '../../app/accounts/directory.ts';
import { AppError } from '../../domain/errors.ts';
import { matchingSecret, type SignedBody } from '../../domain/signature.ts';
import { normaliseBody } from '../body/decode.ts';
import { operationOf } from '../operation.ts';
import { safeCanonicalString } from '../signature-hint.ts';
import { RateLimiter } from './rate-limit.ts';

export interface SignedRequestOptions {
  readonly directory: AccountDirectory;
  readonly defaultRateLimit: number;
  /** Sandbox only: a 401 shows the canonical string the gateway computed (signature-hint.ts). */
  readonly explainSignatures?: boolean;
}

function identity(body: SignedBody, field: 'merchant_id' | 'account_id'): string {
  const value = body[field];
  if (value === undefined || value === null || value === '') throw new AppError('missing_field', `${field} is required`, { field });
  if (typeof value !== 'string' && typeof value !== 'number') throw new AppError('invalid_field', `${field} is invalid: expected text`, { field });
  return String(value);
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
    const hint = explain ? `; sandbox: the gateway signed "${safeCanonicalString(body)}" (card masked, security_code left out)` : '';
    throw new AppError('invalid_signature', message + hint, { field: 'encryption_data' });
  }
  request.signing = { account: found.account, secret: found.secrets[index]! };
  // Told only to a caller who signed with the account's key: a disabled merchant learns why.
  if (found.disabled) throw new AppError('account_disabled');
  request.body = normaliseBody(body);
}

export function installSignedRequests(app: FastifyInstance, options: SignedRequestOptions): void {
  const limiter = new RateLimiter();
  app.decorateRequest('signing', null);
  app.addHook('preValidation', async (request) => {
    const operation = operationOf(request);
    if (!operation || operation.shopperPost?.((request.body ?? {}) as Record<string, unknown>)) return;
    await verify(request, options.directory, options.explainSignatures === true);
    const account = request.signing!.account;
    const limit = account.rateLimitPerSecond ?? options.defaultRateLimit;
    const verdict = limiter.take(account.id, limit);
    if (!verdict.allowed) {
      throw new AppError('rate_limited', `more than ${limit} requests per second for this account`, {
        headers: { 'retry-after': String(verdict.retryAfter) },
      });
    }
  });
}
