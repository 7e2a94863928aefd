// `Idempotency-Key` on operations that move money without an order_no of their own to key on
// (capture, cancel, review, refund). The first request with a key claims it and its answer is
// kept; a repeat with the same body, for instance after a lost answer, gets that answer and does
// nothing again; a repeat with another body is refused (4016); a repeat that arrives while the
// first is still running waits for its answer.
//
// The running request holds the key: its process's presence id and a lease on the wall clock,
// renewed while it runs. When that process is gone (SIGKILL, crash, deploy: it no longer beats,
// src/app/processes/presence.ts) or the lease ran out, a waiting repeat takes the key over (one
// conditional UPDATE: of N repeats one takes it, the others wait for its answer) and runs the
// request again. Its orders find what the dead request claimed under the key's scope (a capture,
// void or refund claimed under `scope:position`) and answer that instead of doing it again.
// Keys are kept for KEY_DAYS days of wall time (idempotency repository).
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { isRunningHere } from '../../app/processes/presence.ts';
import { AppError } from '../../domain/errors.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import { canonicalString, type SignedBody } from '../../domain/signature.ts';
import {
  claimKey,
  completeKey,
  findKey,
  releaseKey,
  renewKey,
  takeOverKey,
  type IdempotencyRow,
  type KeyClaim,
  type KeyHold,
} from '../../db/repositories/idempotency.ts';
import { operationOf } from '../operation.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;
/** How long a repeat waits for a running first request before 409 `4017`. */
const WAIT_MS = 15_000;
/** A holder's lease (wall time), renewed every third of it while its request runs. */
export const HOLD_MS = 60_000;
const RENEW_MS = HOLD_MS / 3;
/** How often a waiting repeat tries to take the key over (the first try is at once). */
const TAKEOVER_EVERY_MS = 250;
/** How often keys left held while the database was away are tried again (lettingGoLater). */
const LET_GO_RETRY_MS = 1_000;
/** At most this many are remembered; past it a key waits for its lease to run out, as before. */
const LET_GO_MOST = 10_000;

/** The key this request holds while it runs. */
interface HeldKey {
  readonly key: string;
  readonly scope: string;
  readonly renewal: NodeJS.Timeout;
  /** Its answer is not kept: the key is let go when it is sent (answerNotKept). */
  readonly letGo?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: HeldKey | null;
  }
}

/** This process among the others: the gateway's presence, whose id holds the keys it runs. */
export interface KeyHolder {
  readonly id: string;
}

/**
 * The prefix under which a keyed request's orders are claimed (the key's scope); undefined for a
 * request without a key. Order i of the batch is claimed under `${scope}:${i}`.
 */
export function orderKeyScope(request: FastifyRequest): string | undefined {
  return request.idempotency?.scope;
}

/**
 * This request's answer is not kept under its key, though not a 5xx: a batch some of whose orders
 * met the database away (`9503`). The key is let go as after a 5xx, so the same request sent again
 * with the same key finds what this one did and does the orders it did not.
 */
export function answerNotKept(request: FastifyRequest): void {
  if (request.idempotency) request.idempotency = { ...request.idempotency, letGo: true };
}

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!KEY.test(key)) {
    throw new AppError('invalid_field', 'Idempotency-Key is invalid: expected 1 to 255 visible ASCII characters', { field: 'Idempotency-Key' });
  }
  return key;
}

export function installIdempotency(app: FastifyInstance, deps: Pick<Deps, 'database' | 'vault' | 'wallClock' | 'log'>, self: KeyHolder): void {
  const db = deps.database.db;
  const hold = (): KeyHold => ({ holder: self.id, heldUntil: new Date(deps.wallClock.now().getTime() + HOLD_MS) });
  const later = lettingGoLater(deps, self);
  app.addHook('onClose', async () => later.stop());

  /** This request holds `row` now: it renews the lease until its answer is sent. */
  function keep(request: FastifyRequest, row: IdempotencyRow): undefined {
    const renewal = setInterval(() => {
      renewKey(db, row.accountId, row.key, hold())
        .then((still) => {
          if (!still) clearInterval(renewal);
        })
        .catch((error: unknown) => deps.log.warn({ err: error, account: row.accountId }, 'Idempotency-Key lease not renewed'));
    }, RENEW_MS);
    renewal.unref();
    request.idempotency = { key: row.key, scope: row.scope, renewal };
    return undefined;
  }

  /** Waits for the key's holder: its answer, or the key taken over once the holder is gone. */
  async function waitOrTakeOver(request: FastifyRequest, reply: FastifyReply, claim: KeyClaim): Promise<FastifyReply | undefined> {
    const deadline = Date.now() + WAIT_MS;
    let nextTry = 0;
    for (;;) {
      const held = await findKey(db, claim.accountId, claim.key);
      if (!held) {
        // Purged meanwhile (past its KEY_DAYS): the key is new again.
        const claimed = await claimKey(db, { ...claim, ...hold() });
        if (claimed) return keep(request, claimed);
        continue;
      }
      if (held.requestFingerprint !== claim.requestFingerprint) throw new AppError('idempotency_key_reused', undefined, { field: 'Idempotency-Key' });
      if (held.status === 'done') {
        return reply.code(held.httpStatus!).type(held.contentType!).header('idempotent-replayed', 'true').send(held.answer);
      }
      if (Date.now() >= nextTry) {
        nextTry = Date.now() + TAKEOVER_EVERY_MS;
        const runsHere = held.holder !== null && isRunningHere(held.holder);
        const taken = await takeOverKey(db, { ...claim, ...hold(), from: held, runsHere, wallNow: deps.wallClock.now() });
        if (taken) {
          deps.log.info({ account: claim.accountId, from: held.holder }, 'Idempotency-Key taken over from a request that is gone');
          return keep(request, taken);
        }
      }
      if (Date.now() > deadline) throw new AppError('idempotency_key_in_use');
      await sleep(25);
    }
  }

  app.decorateRequest('idempotency', null);
  app.addHook('preHandler', async (request, reply) => {
    const operation = operationOf(request);
    if (!operation?.idempotencyKey || !request.signing) return;
    const key = keyOf(request);
    if (key === undefined) return;
    const claim: KeyClaim = {
      accountId: request.signing.account.id,
      key,
      operation: operation.name,
      requestFingerprint: deps.vault.fingerprint(`${operation.name}\n${canonicalString(request.body as SignedBody)}`),
      createdAt: deps.wallClock.now(),
    };
    const claimed = await claimKey(db, { ...claim, ...hold() });
    if (claimed) return keep(request, claimed);
    return waitOrTakeOver(request, reply, claim);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const held = request.idempotency;
    if (!held) return payload;
    request.idempotency = null;
    clearInterval(held.renewal);
    const accountId = request.signing!.account.id;
    // A fault leaves the outcome unclear to us too: the key is let go, and the merchant's retry
    // with the same body takes it over and finds what this request claimed.
    try {
      if (reply.statusCode >= 500 || held.letGo) await releaseKey(db, accountId, held.key, self.id);
      else {
        await completeKey(db, accountId, held.key, self.id, keptAnswer(reply, payload));
      }
    } catch (error) {
      // The database away: the answer is sent as it is (a batch's says what it did; never turned
      // into a 503 that says nothing was stored). The key stays held, no longer renewed, and is
      // let go (or given its answer) as soon as the database is back; should this process stop
      // first, once its lease runs out. Either way a retry with it then finds what this request
      // claimed.
      if (!isDatabaseUnavailable(error)) throw error;
      const answer = reply.statusCode >= 500 || held.letGo ? undefined : keptAnswer(reply, payload);
      later.add({ accountId, key: held.key, answer });
      deps.log.warn({ code: '9503', account: accountId }, 'database unavailable: Idempotency-Key let go once it is back');
    }
    return payload;
  });
  // Whatever became of the answer, the lease is no longer renewed once the request is over.
  app.addHook('onResponse', async (request) => {
    if (request.idempotency) clearInterval(request.idempotency.renewal);
  });
}

function keptAnswer(reply: FastifyReply, payload: unknown): KeptAnswer {
  return { httpStatus: reply.statusCode, contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'), answer: String(payload) };
}

type KeptAnswer = Parameters<typeof completeKey>[4];

/** A key this process still holds though its request is over: let go, or given its answer. */
interface Unfinished {
  readonly accountId: string;
  readonly key: string;
  readonly answer: KeptAnswer | undefined;
}

/**
 * Keys whose request ended while the database was away. Without this a key stayed held until its
 * lease ran out (60 s), and the merchant's retry in that minute was answered 4017 though nothing
 * ran. Tried every second until the database answers; each update names this process as the
 * holder, so a key taken over meanwhile is left alone.
 */
function lettingGoLater(deps: Pick<Deps, 'database' | 'log'>, self: KeyHolder) {
  const db = deps.database.db;
  const unfinished = new Map<string, Unfinished>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  async function retry(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (const [id, { accountId, key, answer }] of unfinished) {
        try {
          if (answer) await completeKey(db, accountId, key, self.id, answer);
          else await releaseKey(db, accountId, key, self.id);
        } catch (error) {
          if (isDatabaseUnavailable(error)) return; // still away: the next round tries again
          deps.log.warn({ err: error, account: accountId }, 'Idempotency-Key not let go: free once its lease ends');
        }
        unfinished.delete(id);
      }
    } finally {
      running = false;
      if (unfinished.size === 0) stop();
    }
  }

  function stop(): void {
    clearInterval(timer);
    timer = undefined;
  }

  return {
    add(item: Unfinished): void {
      if (unfinished.size >= LET_GO_MOST) return;
      unfinished.set(`${item.accountId}\n${item.key}`, item);
      timer ??= setInterval(() => void retry(), LET_GO_RETRY_MS).unref();
    },
    stop,
  };
}
