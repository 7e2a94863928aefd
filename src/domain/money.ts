// Money is an integer count of the currency's minor units, always paired with its currency.
// Decimal strings exist only at the edges: parseAmount on the way in, formatAmount on the way out.
import cc from 'currency-codes';

export interface Money {
  readonly minor: number;
  readonly currency: string;
}

// ISO 4217 codes that are not money a card or wallet can move: precious metals, bond-market and
// drawing-right units, test codes, and the fund codes (units of account such as Chile's CLF or the
// next-day dollar USN), which no card network settles.
const NOT_TENDER = new Set([
  ...['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX'],
  ...['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW'],
]);

const EXPONENTS: ReadonlyMap<string, number> = new Map(
  cc
    .codes()
    .filter((code) => !NOT_TENDER.has(code))
    .map((code) => [code, cc.code(code)!.digits] as const),
);

/** Largest amount, in minor units, the gateway accepts: leaves headroom for sums of many amounts. */
export const MAX_MINOR = 1e14;

export function isCurrency(code: string): boolean {
  return EXPONENTS.has(code);
}

/** Number of decimal places of the currency's minor unit (USD 2, JPY 0, KWD 3). */
export function exponentOf(currency: string): number {
  const exponent = EXPONENTS.get(currency);
  if (exponent === undefined) throw new Error(`not a currency: ${currency}`);
  return exponent;
}

export type AmountProblem = 'format' | 'precision' | 'zero' | 'too_large';

// Any number of whole digits: one past MAX_MINOR is too large, whatever its length, not malformed.
const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d{1,6}))?$/;

/**
 * Parses a decimal string ("10.00", "10.5", "1000") into minor units of `currency`.
 * Decimals beyond the currency's exponent are accepted only when they are zeros ("1000.00" JPY).
 */
export function parseAmount(text: string, currency: string): { minor: number } | { problem: AmountProblem } {
  const match = DECIMAL.exec(text);
  if (!match) return { problem: 'format' };
  const exponent = exponentOf(currency);
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  if (/[1-9]/.test(fraction.slice(exponent))) return { problem: 'precision' };
  const digits = whole + fraction.slice(0, exponent).padEnd(exponent, '0');
  const minor = Number(digits);
  if (minor === 0) return { problem: 'zero' };
  if (minor > MAX_MINOR) return { problem: 'too_large' };
  return { minor };
}

/** Formats minor units as the decimal string merchants send and receive ("10.00", "1000", "1.500"). */
export function formatAmount(minor: number, currency: string): string {
  const exponent = exponentOf(currency);
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  if (exponent === 0) return sign + digits;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

export function money(minor: number, currency: string): Money {
  if (!Number.isSafeInteger(minor)) throw new Error(`minor units must be a safe integer: ${minor}`);
  return { minor, currency };
}
