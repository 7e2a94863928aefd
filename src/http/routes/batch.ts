// The Operation of the lifecycle routes: JSON answers, the batch list kept a list in XML bodies,
// and a refusal with return_status 0 and the code in return_message (src/app/batch/batch.ts).
import { batchRefusal } from '../../app/batch/batch.ts';
import type { Operation } from '../operation.ts';

export function batchOperation(name: string, list: string, options: { idempotencyKey?: boolean } = {}): Operation {
  return { name, lists: new Set([list]), batchList: list, format: 'json', errorAnswer: batchRefusal(list), ...options };
}
