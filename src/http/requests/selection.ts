// How a read request (query, refund search) says what to answer (docs/apm.md), parsed into the
// use case's Selection: a comma-separated list of at most 100 keys of one kind, or a time window
// (`start_time`, `end_time`, `YYYYMMDDhhmmss` UTC, both inclusive to the second) read 100 per
// `page` (1-based).
import { AppError } from '../../domain/errors.ts';
import type { Selection } from '../../app/batch/selection.ts';
import { invalid } from './validation.ts';
import { CHARGE_ORDER_NO } from '../../domain/subscriptions/subscription.ts';

export const KEYS_LIMIT = 100;
const MAX_PAGE = 100_000;

export function selectionOf<Key extends string>(body: Record<string, unknown>, keyFields: readonly Key[]): Selection<Key> {
  const given = keyFields.filter((field) => body[field] !== undefined);
  const window = body.start_time !== undefined || body.end_time !== undefined;
  const choices = `${keyFields.join(', ')}, or start_time and end_time`;
  if (given.length === 0 && !window) throw new AppError('missing_field', `one of ${choices} is required`, { field: keyFields[0] });
  if (given.length + (window ? 1 : 0) > 1) throw invalid(given[1] ?? 'start_time', `only one of ${choices}`);
  if (window) return windowOf(body);
  const field = given[0]!;
  return { kind: 'keys', field, keys: keysOf(body[field], field) };
}

function keysOf(value: unknown, field: string): string[] {
  if (typeof value !== 'string') throw invalid(field, 'a comma-separated list');
  const keys = value.split(',').map((key) => key.trim());
  if (keys.length > KEYS_LIMIT) {
    throw new AppError('batch_limit', `${field} holds ${keys.length} values: at most ${KEYS_LIMIT} per request`, { field });
  }
  // A subscription's recurring charge has the one order_no with a space (`ORD-1 R2-1`, docs/subscriptions.md).
  const isKey = (key: string) => /^[\x21-\x7e]{1,64}$/.test(key) || (field === 'order_no' && CHARGE_ORDER_NO.test(key));
  if (!keys.every(isKey)) throw invalid(field, 'a comma-separated list of values without spaces, each 1 to 64 characters');
  return keys;
}

function windowOf(body: Record<string, unknown>): Selection<never> {
  const from = timeOf(body, 'start_time');
  const to = timeOf(body, 'end_time');
  if (from > to) throw invalid('end_time', 'a time not before start_time');
  let page = 1;
  if (body.page !== undefined) {
    if (typeof body.page !== 'string' || !/^[1-9][0-9]{0,5}$/.test(body.page) || Number(body.page) > MAX_PAGE) {
      throw invalid('page', `a page number from 1 to ${MAX_PAGE}`);
    }
    page = Number(body.page);
  }
  // end_time names a whole second: everything up to its last millisecond is in the window.
  return { kind: 'window', from, to: new Date(to.getTime() + 999), page };
}

const TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

function timeOf(body: Record<string, unknown>, field: 'start_time' | 'end_time'): Date {
  const value = body[field];
  if (value === undefined) throw new AppError('missing_field', `${field} is required with ${field === 'start_time' ? 'end_time' : 'start_time'}`, { field });
  const match = typeof value === 'string' ? TIME.exec(value) : null;
  if (!match) throw invalid(field, 'a UTC time YYYYMMDDhhmmss');
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw invalid(field, 'a real UTC time YYYYMMDDhhmmss');
  }
  return date;
}
