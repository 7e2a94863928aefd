// Reading what a member typed into a portal form or a search's query string. Each reader refuses
// a bad value with a PortalRefusal naming the field (400), before any use case runs.
import type { FastifyRequest } from 'fastify';
import { PortalRefusal } from '../../app/portal/refusal.ts';
import { AppError } from '../../domain/errors.ts';
import { formatAmount, isCurrency } from '../../domain/money.ts';
import { checkAmount } from '../../http/requests/validation.ts';

/** The query string's single text values (a repeated name keeps its first). */
export function queryOf(request: FastifyRequest): Record<string, string> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && first.trim() !== '') values[name] = first.trim();
  }
  return values;
}

export function textField(values: Record<string, string>, name: string, options: { max: number; pattern?: RegExp; hint: string }): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (value.length > options.max || (options.pattern && !options.pattern.test(value))) throw new PortalRefusal(`${name} is invalid: expected ${options.hint}`, { field: name });
  return value;
}

export function choiceField<T extends string>(values: Record<string, string>, name: string, choices: readonly T[]): T | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) throw new PortalRefusal(`${name} is invalid: expected one of ${choices.join(', ')}`, { field: name });
  return value as T;
}

export function currencyField(values: Record<string, string>, name = 'currency'): string | undefined {
  const value = values[name]?.toUpperCase();
  if (value === undefined) return undefined;
  if (!isCurrency(value)) throw new PortalRefusal(`${name} is invalid: expected an ISO 4217 currency code such as EUR`, { field: name });
  return value;
}

/** A positive decimal amount in `currency`, in minor units: the API's own amount check. */
export function amountField(values: Record<string, string>, name: string, currency: string): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  try {
    return checkAmount(value, currency, name);
  } catch (error) {
    if (error instanceof AppError) throw new PortalRefusal(error.info, { field: name });
    throw error;
  }
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day (YYYY-MM-DD) as the UTC midnight that starts it. */
export function dayField(values: Record<string, string>, name: string): Date | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const match = DAY.exec(value);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : undefined;
  if (!date || date.toISOString().slice(0, 10) !== value) throw new PortalRefusal(`${name} is invalid: expected a date such as 2026-11-22`, { field: name });
  return date;
}

export function positiveIntField(values: Record<string, string>, name: string): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,5}$/.test(value)) throw new PortalRefusal(`${name} is invalid: expected a whole number from 1`, { field: name });
  return Number(value);
}

export const DAY_MS = 86_400_000;

/**
 * The midnight that ends `day` (the bound "before" of a period that includes it). The database
 * reads stamps up to the year 9999 as this code writes them, so the period of 9999-12-31 ends at
 * its start: a `to` that far means "no end", and must not fail the search.
 */
export function endOfDay(day: Date): Date {
  return new Date(Math.min(day.getTime() + DAY_MS, LAST_DAY));
}

const LAST_DAY = Date.UTC(9999, 11, 31);

/** Money for people: "12.50 EUR". */
export function moneyText(minor: number, currency: string): string {
  return `${formatAmount(minor, currency)} ${currency}`;
}

/** A time for people, in UTC to the minute. */
export function timeText(date: Date | null | undefined): string {
  return date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';
}
