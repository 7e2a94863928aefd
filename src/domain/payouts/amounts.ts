// What a payout moves: the transfer in both currencies, the fee, and who pays it. Pure arithmetic
// on integers of minor units, with the exchange rate kept as an exact fraction (a decimal string
// such as "0.9213" becomes 9213/10000), so no figure ever passes through a binary float.
//
// Rules (docs/payouts.md):
// - The amount the merchant names is exact; the other follows by the rate. Converting into the
//   beneficiary's currency rounds down, into the payer's rounds up, to the minor unit: the
//   beneficiary never receives more than the payer paid for.
// - fee = fixed + percentage of the transfer's source amount (rounded half up to the minor unit)
//   + the SWIFT charge when swift_charge_option is PAYER. Fees are in the source currency.
// - fee_paid_by PAYER: the payer pays transfer + fee; the beneficiary receives the transfer.
//   BENEFICIARY: the payer pays the transfer; the beneficiary receives (transfer − fee) converted.
import { exponentOf, MAX_MINOR, type Money } from '../money.ts';

/** payment-currency units per source-currency unit, as an exact fraction. */
export interface Rate {
  readonly numerator: bigint;
  readonly denominator: bigint;
  /** The decimal text the rate came from, stored and echoed as `fx_rate`. */
  readonly text: string;
}

const RATE = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,12}))?$/;

/** A positive decimal rate such as "1", "0.9213" or "153.27"; null when it is not one. */
export function parseRate(text: string): Rate | null {
  const match = RATE.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? '';
  const numerator = BigInt(match[1]! + fraction);
  if (numerator === 0n) return null;
  return { numerator, denominator: 10n ** BigInt(fraction.length), text };
}

/** Decimal places of a rate derived as the inverse of the opposite pair's. */
export const INVERSE_RATE_DECIMALS = 12;

/**
 * The rate from B to A when only A to B is configured: 1 / rate, rounded half up to
 * INVERSE_RATE_DECIMALS places (trailing zeros dropped). That decimal, not the exact inverse, is the
 * rate used, stored and echoed, so `fx_rate` reproduces the amounts. Null when it rounds to zero.
 */
export function inverseRate(rate: Rate): Rate | null {
  const scale = 10n ** BigInt(INVERSE_RATE_DECIMALS);
  const scaled = (2n * rate.denominator * scale + rate.numerator) / (2n * rate.numerator);
  const whole = (scaled / scale).toString();
  const fraction = (scaled % scale).toString().padStart(INVERSE_RATE_DECIMALS, '0').replace(/0+$/, '');
  return parseRate(fraction ? `${whole}.${fraction}` : whole);
}

export const PARITY: Rate = { numerator: 1n, denominator: 1n, text: '1' };

export interface FeeSchedule {
  /** Fixed part, in minor units of the source currency. */
  readonly fixedMinor: number;
  /** Percentage of the transfer's source amount, in basis points (1 % = 100). */
  readonly basisPoints: number;
  /** Added when swift_charge_option is PAYER, in minor units of the source currency. */
  readonly swiftChargeMinor: number;
}

export type FeePaidBy = 'PAYER' | 'BENEFICIARY';

export interface PayoutAmountsInput {
  /** Exactly one of the two: the transfer in the beneficiary's or in the payer's currency. */
  readonly payment?: Money;
  readonly source?: Money;
  readonly paymentCurrency: string;
  readonly sourceCurrency: string;
  /** Required when the currencies differ; ignored (parity) when they are the same. */
  readonly rate?: Rate;
  readonly fees: FeeSchedule;
  readonly feePaidBy: FeePaidBy;
  readonly payerPaysSwiftCharge: boolean;
}

export interface PayoutAmounts {
  /** The transfer in the payer's currency, before any fee. */
  readonly transferSource: Money;
  /** The transfer in the beneficiary's currency. */
  readonly transferPayment: Money;
  readonly fee: Money;
  readonly amountPayerPays: Money;
  readonly amountBeneficiaryReceives: Money;
  readonly rate: Rate;
}

export type PayoutAmountsProblem = 'missing_rate' | 'fee_exceeds_transfer' | 'rounds_to_zero' | 'too_large';

/**
 * Source minor units → payment minor units, rounded down: floor(source · rate · 10^(eP − eS)).
 * Null when the result is larger than any amount the gateway moves.
 */
export function toPaymentMinor(sourceMinor: number, rate: Rate, sourceCurrency: string, paymentCurrency: string): number | null {
  const [num, den] = scaled(rate, sourceCurrency, paymentCurrency);
  return bounded((BigInt(sourceMinor) * num) / den);
}

/** Payment minor units → source minor units, rounded up: ceil(payment / (rate · 10^(eP − eS))). */
export function toSourceMinor(paymentMinor: number, rate: Rate, sourceCurrency: string, paymentCurrency: string): number | null {
  const [num, den] = scaled(rate, sourceCurrency, paymentCurrency);
  return bounded(ceilDiv(BigInt(paymentMinor) * den, num));
}

function bounded(minor: bigint): number | null {
  return minor <= BigInt(MAX_MINOR) ? Number(minor) : null;
}

/** The rate between minor units: rate · 10^(payment exponent − source exponent), as a fraction. */
function scaled(rate: Rate, sourceCurrency: string, paymentCurrency: string): [bigint, bigint] {
  const shift = exponentOf(paymentCurrency) - exponentOf(sourceCurrency);
  return shift >= 0
    ? [rate.numerator * 10n ** BigInt(shift), rate.denominator]
    : [rate.numerator, rate.denominator * 10n ** BigInt(-shift)];
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** basisPoints of `minor`, rounded half up. */
export function percentageOf(minor: number, basisPoints: number): number {
  return Number((BigInt(minor) * BigInt(basisPoints) * 2n + 10_000n) / 20_000n);
}

export function payoutAmounts(input: PayoutAmountsInput): PayoutAmounts | { problem: PayoutAmountsProblem } {
  const same = input.paymentCurrency === input.sourceCurrency;
  const rate = same ? PARITY : input.rate;
  if (!rate) return { problem: 'missing_rate' };
  const { sourceCurrency, paymentCurrency } = input;

  const sourceMinor = input.source ? input.source.minor : toSourceMinor(input.payment!.minor, rate, sourceCurrency, paymentCurrency);
  const paymentMinor = input.payment ? input.payment.minor : sourceMinor === null ? null : toPaymentMinor(sourceMinor, rate, sourceCurrency, paymentCurrency);
  if (sourceMinor === null || paymentMinor === null) return { problem: 'too_large' };
  if (paymentMinor <= 0) return { problem: 'rounds_to_zero' };

  const { fees } = input;
  const feeMinor = fees.fixedMinor + percentageOf(sourceMinor, fees.basisPoints) + (input.payerPaysSwiftCharge ? fees.swiftChargeMinor : 0);
  const payerPays = input.feePaidBy === 'PAYER' ? sourceMinor + feeMinor : sourceMinor;
  if (payerPays > MAX_MINOR) return { problem: 'too_large' };
  let receives = paymentMinor;
  if (input.feePaidBy === 'BENEFICIARY') {
    if (sourceMinor - feeMinor <= 0) return { problem: 'fee_exceeds_transfer' };
    // Smaller than the transfer it comes from, so never too large.
    receives = toPaymentMinor(sourceMinor - feeMinor, rate, sourceCurrency, paymentCurrency)!;
    if (receives <= 0) return { problem: 'rounds_to_zero' };
  }
  return {
    transferSource: { minor: sourceMinor, currency: sourceCurrency },
    transferPayment: { minor: paymentMinor, currency: paymentCurrency },
    fee: { minor: feeMinor, currency: sourceCurrency },
    amountPayerPays: { minor: payerPays, currency: sourceCurrency },
    amountBeneficiaryReceives: { minor: receives, currency: paymentCurrency },
    rate,
  };
}
