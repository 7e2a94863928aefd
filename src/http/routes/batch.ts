// The Operation of the lifecycle routes: JSON answers, the batch list kept a list in XML bodies,
// and a refusal with return_status 0 and the code in return_message (src/http/batch/run.ts).
import Type, { type TSchema } from 'typebox';
import type { FastifyReply } from 'fastify';
import { batchRefusal, metTheDatabaseAway, type BatchAnswer } from '../batch/run.ts';
import { sendAnswer, type Operation } from '../operation.ts';
import { answerNotKept } from '../plugins/idempotency.ts';

export function batchOperation(name: string, list: string, schema: TSchema, options: { idempotencyKey?: boolean } = {}): Operation {
  return { name, lists: new Set([list]), batchList: list, format: 'json', schema, errorAnswer: batchRefusal(list), ...options };
}

/** The fields of every signed request's envelope; the operations check their values themselves. */
const ENVELOPE = { merchant_id: Type.String(), account_id: Type.String(), encryption_data: Type.String() };

/**
 * A batch request: the envelope and the list of 1 to `limit` orders, each with the fields `order`
 * defines. The bounds describe the request (docs/openapi.json); runBatch enforces them (4010).
 */
export function batchRequest(list: string, order: TSchema, limit: number): TSchema {
  return Type.Object({ ...ENVELOPE, [list]: Type.Array(order, { minItems: 1, maxItems: limit }) });
}

/** A read request (query, refund search): the envelope, the keys it selects by, or a time window. */
export function readRequest(keys: readonly string[]): TSchema {
  const fields = [...keys, 'start_time', 'end_time', 'page'].map((field) => [field, Type.Optional(Type.String())]);
  return Type.Object({ ...ENVELOPE, ...Object.fromEntries(fields) });
}

/**
 * A batch's answer, 200. One of whose orders met the database away (`9503`) is not kept under the
 * request's Idempotency-Key: the same request sent again with it does what this one did not.
 */
export function sendBatchAnswer(reply: FastifyReply, answer: BatchAnswer): FastifyReply {
  if (metTheDatabaseAway(answer)) answerNotKept(reply.request);
  return sendAnswer(reply, 200, answer);
}
