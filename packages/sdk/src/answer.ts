// Reads an answer body: JSON, or XML whose root (`respon`) holds the fields. Lists keep their
// shape in XML even with one entry or none.
import { readXml } from './xml.js';

/** Fields of answers that are lists (dotted paths, list entries left out). */
export const ANSWER_LISTS: ReadonlySet<string> = new Set([
  'risk_reasons',
  'fraud_check_result',
  'capture_orders',
  'review_orders',
  'cancel_orders',
  'refund_orders',
  'orders_list',
  'orders_list.fraud_check_result',
  'refund_list',
  'payment_methods',
]);

/** The answer's fields; throws when the text is neither a JSON object nor XML. */
export function parseAnswer(text: string): Record<string, unknown> {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the JSON answer is not an object');
    return parsed as Record<string, unknown>;
  }
  if (trimmed.startsWith('<')) return readXml(trimmed, ANSWER_LISTS).fields;
  throw new Error('the answer is neither JSON nor XML');
}
