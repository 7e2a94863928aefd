import cardValidator from 'card-validator';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardExpired, checkCard, checkCardButExpiry, EXPIRED_CARD, maskPan, numberVerdict } from './card.ts';

const now = new Date('2026-11-22T00:00:00Z');
const card = (overrides: Partial<{ number: string; expiryMonth: string; expiryYear: string; securityCode: string }> = {}) => ({
  number: '4111111111111111',
  expiryMonth: '12',
  expiryYear: '2030',
  securityCode: '123',
  ...overrides,
});

describe('card checks', () => {
  it('accepts a valid card and names its brand', () => {
    expect(checkCard(card(), now)).toMatchObject({ pan: '4111111111111111', brand: 'VISA', expiryMonth: 12, expiryYear: 2030 });
    expect(checkCard(card({ number: '378282246310005', securityCode: '1234' }), now)).toMatchObject({ brand: 'AMEX' });
    expect(checkCard(card({ number: '5555 5555 5555 4444' }), now)).toMatchObject({ pan: '5555555555554444', brand: 'MASTERCARD' });
  });

  it.each([
    [{ number: '4111111111111112' }, 'card'],
    [{ number: '41111111' }, 'card'],
    [{ number: '4111x11111111111' }, 'card'],
    [{ expiryMonth: '13' }, 'expiration_month'],
    [{ expiryMonth: '00' }, 'expiration_month'],
    [{ expiryYear: '30' }, 'expiration_year'],
    [{ expiryYear: '2026', expiryMonth: '10' }, 'expiration_year'],
    [{ expiryYear: '2099' }, 'expiration_year'],
    [{ securityCode: '12' }, 'security_code'],
    [{ securityCode: '1234' }, 'security_code'],
    [{ number: '378282246310005', securityCode: '123' }, 'security_code'],
  ])('refuses %o naming %s', (overrides, field) => {
    expect(checkCard(card(overrides), now)).toMatchObject({ field });
  });

  it('accepts the current month', () => {
    expect(checkCard(card({ expiryYear: '2026', expiryMonth: '11' }), now)).toMatchObject({ expiryMonth: 11 });
  });

  it('leaves the expiry against today to the use case when asked to (a repeat may come after it)', () => {
    const past = card({ expiryYear: '2026', expiryMonth: '10' });
    expect(checkCard(past, now)).toMatchObject({ field: 'expiration_year', detail: EXPIRED_CARD.detail });
    const checked = checkCardButExpiry(past, now);
    expect(checked).toMatchObject({ expiryMonth: 10, expiryYear: 2026 });
    expect(cardExpired(checked as { expiryMonth: number; expiryYear: number }, now)).toBe(true);
    expect(cardExpired({ expiryMonth: 11, expiryYear: 2026 }, now)).toBe(false);
    expect(checkCardButExpiry(card({ expiryYear: '2099' }), now)).toMatchObject({ field: 'expiration_year' });
  });

  it('masks all but the first six and last four digits', () => {
    expect(maskPan('4111111111111111')).toBe('411111******1111');
    expect(maskPan('378282246310005')).toBe('378282*****0005');
  });
});

describe('numberVerdict', () => {
  // Few prefixes and many tails: most numbers share a kept verdict with an earlier one.
  const prefixes = ['4', '41111111', '5555', '2221', '34', '37', '36', '6011', '65', '62', '6200', '35', '2200', '50', '6062', '636368', '0', '9'];
  const numbers = fc
    .tuple(fc.constantFrom(...prefixes), fc.integer({ min: 12, max: 19 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 19, maxLength: 19 }))
    .map(([prefix, length, tail]) => (prefix + tail.join('')).slice(0, length));

  it('answers as card-validator does for every number, though it asks it once per prefix, length and Luhn result', () => {
    fc.assert(
      fc.property(numbers, (pan) => {
        const kept = numberVerdict(pan);
        const fresh = cardValidator.number(pan);
        expect({ isValid: kept.isValid, isPotentiallyValid: kept.isPotentiallyValid, type: kept.card?.type, code: kept.card?.code.size }).toEqual({
          isValid: fresh.isValid,
          isPotentiallyValid: fresh.isPotentiallyValid,
          type: fresh.card?.type,
          code: fresh.card?.code.size,
        });
      }),
      { numRuns: 3_000 },
    );
  });
});
