import { describe, expect, it } from 'vitest';
import { exponentOf, formatAmount, isCurrency, parseAmount } from './money.ts';

describe('money in minor units', () => {
  it.each([
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['KWD', 3],
    ['BHD', 3],
    ['CLP', 0],
  ])('knows the exponent of %s is %i', (currency, exponent) => {
    expect(exponentOf(currency)).toBe(exponent);
  });

  it('refuses codes that are not tender', () => {
    expect(isCurrency('XAU')).toBe(false);
    expect(isCurrency('XTS')).toBe(false);
    expect(isCurrency('CLF')).toBe(false); // a fund code: a unit of account, not money
    expect(isCurrency('USN')).toBe(false);
    expect(isCurrency('ABC')).toBe(false);
    expect(isCurrency('XOF')).toBe(true);
  });

  it.each([
    ['10.00', 'USD', 1000],
    ['10.5', 'USD', 1050],
    ['10', 'USD', 1000],
    ['0.01', 'USD', 1],
    ['1000', 'JPY', 1000],
    ['1000.00', 'JPY', 1000],
    ['1.234', 'KWD', 1234],
    ['1.5', 'KWD', 1500],
  ])('parses %s %s as %i minor units', (text, currency, minor) => {
    expect(parseAmount(text, currency)).toEqual({ minor });
  });

  it.each([
    ['10.001', 'USD', 'precision'],
    ['1000.50', 'JPY', 'precision'],
    ['0.00', 'USD', 'zero'],
    ['-1.00', 'USD', 'format'],
    ['1,00', 'USD', 'format'],
    ['1e3', 'USD', 'format'],
    ['01.00', 'USD', 'format'],
    ['.5', 'USD', 'format'],
    ['10000000000000.00', 'USD', 'too_large'],
    ['12345678901234567890', 'USD', 'too_large'],
    ['1000000000000000000', 'JPY', 'too_large'],
  ])('refuses %s %s (%s)', (text, currency, problem) => {
    expect(parseAmount(text, currency)).toEqual({ problem });
  });

  it('formats with the currency exponent', () => {
    expect(formatAmount(1050, 'USD')).toBe('10.50');
    expect(formatAmount(5, 'USD')).toBe('0.05');
    expect(formatAmount(1000, 'JPY')).toBe('1000');
    expect(formatAmount(1234, 'KWD')).toBe('1.234');
    expect(formatAmount(-250, 'EUR')).toBe('-2.50');
  });
});
