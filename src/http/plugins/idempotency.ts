// `Idempotency-Key` on operations that move money without an order_no of their own to key on
// (capture, cancel, review, refund). The first request with a key claims it and its answer is
// kept; a repeat with the same body, for instance after a lost answer, gets that answer and does
// nothing again; a repeat with another body is refused (4016); a repeat that arrives while the
// first is still running waits for its answer. Keys are kept for KEY_DAYS days (idempotency repository).
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { AppError } from '../../domain/errors.ts';
import { canonicalString, type SignedBody } from '../../domain/signature.ts';
import { claimKey, completeKey, findKey, releaseKey } from '../../db/repositories/idempotency.ts';
import { operationOf } from '../operation.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;
const WAIT_MS = 15_000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!KEY.test(key)) {
    throw new AppError('invalid_field', 'Idempotency-Key is invalid: expected 1 to 255 printable characters', { field: 'Idempotency-Key' });
  }
  return key;
}

async function replay(deps: Pick<Deps, 'database'>, request: FastifyRequest, reply: FastifyReply, key: string, fingerprint: string): Promise<FastifyReply> {
  const accountId = request.signing!.account.id;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const held = await findKey(deps.database.db, accountId, key);
    if (!held) throw new AppError('idempotency_key_in_use', 'the first request with this Idempotency-Key failed; send it again');
    if (held.requestFingerprint !== fingerprint) throw new AppError('idempotency_key_reused', undefined, { field: 'Idempotency-Key' });
    if (held.status === 'done') {
      return reply.code(held.httpStatus!).type(held.contentType!).header('idempotent-replayed', 'true').send(held.answer);
    }
    if (Date.now() > deadline) throw new AppError('idempotency_key_in_use');
    await sleep(25);
  }
}

export function installIdempotency(app: FastifyInstance, deps: Pick<Deps, 'database' | 'vault' | 'clock'>): void {
  app.decorateRequest('idempotencyKey', null);
  app.addHook('preHandler', async (request, reply) => {
    const operation = operationOf(request);
    if (!operation?.idempotencyKey || !request.signing) return;
    const key = keyOf(request);
    if (key === undefined) return;
    const fingerprint = deps.vault.fingerprint(`${operation.name}\n${canonicalString(request.body as SignedBody)}`);
    const accountId = request.signing.account.id;
    const claimed = await claimKey(deps.database.db, { accountId, key, operation: operation.name, requestFingerprint: fingerprint, createdAt: deps.clock.now() });
    if (claimed) {
      request.idempotencyKey = key;
      return;
    }
    return replay(deps, request, reply, key, fingerprint);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyKey;
    if (!key) return payload;
    const accountId = request.signing!.account.id;
    // A fault leaves the outcome unclear to us too: the key is freed so the merchant can retry.
    if (reply.statusCode >= 500) await releaseKey(deps.database.db, accountId, key);
    else {
      await completeKey(deps.database.db, accountId, key, {
        httpStatus: reply.statusCode,
        contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        answer: String(payload),
      });
    }
    return payload;
  });
}
