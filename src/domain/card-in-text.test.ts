import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskCardNumbers } from './card-in-text.ts';

/** The digit that makes `body` + digit pass the Luhn check. */
function luhnDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

// A brand's prefix and a length valid for it (card-validator's tables). The longer prefixes keep
// clear of Elo's ranges inside Visa's and UnionPay's (401178, 457631, 627780, …): Elo numbers have
// 16 digits, so a 19-digit number there, or a 17-digit one, is no card number and is not masked.
const BRANDS: readonly [string, number][] = [
  ['4', 16],
  ['4111', 19],
  ['51', 16],
  ['2221', 16],
  ['34', 15],
  ['37', 15],
  ['6011', 16],
  ['3528', 16],
  ['6205', 17],
];

const cardNumber = fc
  .tuple(fc.constantFrom(...BRANDS), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 19, maxLength: 19 }))
  .map(([[prefix, length], digits]) => {
    const body = (prefix + digits.join('')).slice(0, length - 1);
    return body + luhnDigit(body);
  });

/** The number as a person might type it: in groups of 4, with spaces or dashes, or in one piece. */
const typed = fc.tuple(cardNumber, fc.constantFrom('', ' ', '-')).map(([pan, separator]) => ({
  pan,
  text: separator ? pan.match(/.{1,4}/g)!.join(separator) : pan,
}));

/** Text around a number that cannot extend its run of digits. */
const words = fc.string({ unit: fc.constantFrom(...'abc XYZ,.;:#/()éß€'.split('')), maxLength: 20 });
const masked = (pan: string) => pan.slice(0, 6) + '*'.repeat(pan.length - 10) + pan.slice(-4);

describe('maskCardNumbers', () => {
  it('masks a card number wherever it is typed, as 411111******1111', () => {
    fc.assert(
      fc.property(words, typed, words, (before, { pan, text }, after) => {
        const result = maskCardNumbers(`${before}${text}${after}`);
        expect(result).toBe(`${before}${masked(pan)}${after}`);
        expect(result.replace(/[ -]/g, '')).not.toContain(pan);
      }),
    );
  });

  it('masks every number of a text, and masking twice changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(words, typed), { minLength: 1, maxLength: 4 }), (parts) => {
        const text = parts.map(([word, card]) => `${word} ${card.text} `).join('');
        const once = maskCardNumbers(text);
        for (const [, card] of parts) expect(once.replace(/[ -]/g, '')).not.toContain(card.pan);
        expect(maskCardNumbers(once)).toBe(once);
      }),
    );
  });

  it('masks a card number typed in full-width digits (a CJK input method), mixed with ASCII ones and either width of separator', () => {
    const FULL_WIDTH = 0xff10 - 0x30;
    const widen = (digit: string) => String.fromCharCode(digit.charCodeAt(0) + FULL_WIDTH);
    const mixed = fc
      .tuple(cardNumber, fc.array(fc.boolean(), { minLength: 19, maxLength: 19 }), fc.constantFrom('', ' ', '-', '\u3000', '\uff0d'), fc.boolean())
      .map(([pan, wide, separator, allWide]) => {
        const digits = [...pan].map((digit, i) => (allWide || wide[i] ? widen(digit) : digit)).join('');
        return { pan, text: separator ? digits.match(/.{1,4}/g)!.join(separator) : digits };
      });
    fc.assert(
      fc.property(words, mixed, words, (before, { pan, text }, after) => {
        const result = maskCardNumbers(`${before}${text}${after}`);
        expect(result).toBe(`${before}${masked(pan)}${after}`);
        expect(maskCardNumbers(result)).toBe(result);
      }),
    );
    expect(maskCardNumbers('卡号４１１１\u3000１１１１\u3000１１１１\u3000１１１１。')).toBe('卡号411111******1111。');
    expect(maskCardNumbers('５５５５－5555－５５５５－4444')).toBe('555555******4444');
    // A wrong check digit in full width is no card number, and stays as typed.
    expect(maskCardNumbers('ref ４１１１１１１１１１１１１１１２')).toBe('ref ４１１１１１１１１１１１１１１２');
  });

  it('masks a card number typed in any script of decimal digits, mixed, with any dash or space between groups', () => {
    // The zero of each script: Arabic-Indic, Extended Arabic-Indic, Devanagari, Bengali, Thai,
    // Myanmar, full-width, and two outside the BMP (Osmanya, mathematical bold).
    const ZEROS = [0x30, 0x660, 0x6f0, 0x966, 0x9e6, 0xe50, 0x1040, 0xff10, 0x104a0, 0x1d7ce];
    const SEPARATORS = ['', ' ', '-', '\u2013', '\u2014', '\u2010', '\u2212', '\u30fc', '\uff70', '\ufe63', '\uff0d', '\u00a0', '\u202f', '\u3000'];
    const mixed = fc
      .tuple(cardNumber, fc.array(fc.constantFrom(...ZEROS), { minLength: 19, maxLength: 19 }), fc.constantFrom(...SEPARATORS), fc.option(fc.constantFrom(...ZEROS)))
      .map(([pan, zeros, separator, one]) => {
        const digits = [...pan].map((digit, i) => String.fromCodePoint((one ?? zeros[i]!) + Number(digit)));
        const groups = [0, 4, 8, 12, 16].map((at) => digits.slice(at, at + 4).join('')).filter(Boolean);
        return { pan, text: groups.join(separator) };
      });
    fc.assert(
      fc.property(words, mixed, words, (before, { pan, text }, after) => {
        const result = maskCardNumbers(`${before}${text}${after}`);
        expect(result).toBe(`${before}${masked(pan)}${after}`);
        expect(maskCardNumbers(result)).toBe(result);
      }),
    );
    expect(maskCardNumbers('رقم البطاقة ٤١١١-١١١١-١١١١-١١١١ شكرا')).toBe('رقم البطاقة 411111******1111 شكرا');
    expect(maskCardNumbers('کارت ۵۵۵۵ ۵۵۵۵ ۵۵۵۵ ۴۴۴۴')).toBe('کارت 555555******4444');
    expect(maskCardNumbers('कार्ड ४१११–११११–११११–११११')).toBe('कार्ड 411111******1111');
    expect(maskCardNumbers('カード4111ー1111ー1111ー1111です')).toBe('カード411111******1111です');
    expect(maskCardNumbers('card 4111\u22121111\u22121111\u22121111')).toBe('card 411111******1111');
    // Not card numbers (a wrong check digit, no brand): left exactly as typed, script and dashes.
    expect(maskCardNumbers('مرجع ٤١١١-١١١١-١١١١-١١١٢')).toBe('مرجع ٤١١١-١١١١-١١١١-١١١٢');
    expect(maskCardNumbers('ref ९९९९–९९९९–९९९९–९९९५')).toBe('ref ९९९९–९९९९–९९९९–९९९५');
  });

  it('knows every decimal digit Unicode has by its value', () => {
    const visa = '4111111111111111';
    // Unicode encodes decimal digits in runs of ten, zero to nine: every tenth of a run is a zero.
    const zeros: number[] = [];
    let run = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      run = /\p{Nd}/u.test(String.fromCodePoint(cp)) ? run + 1 : 0;
      if (run % 10 === 1) zeros.push(cp);
    }
    expect(zeros.length).toBeGreaterThan(60);
    for (const zero of zeros) {
      const text = [...visa].map((digit) => String.fromCodePoint(zero + Number(digit))).join('');
      expect([zero.toString(16), maskCardNumbers(`no ${text}.`)]).toEqual([zero.toString(16), 'no 411111******1111.']);
      const wrong = text.slice(0, -String.fromCodePoint(zero + 1).length) + String.fromCodePoint(zero + 2);
      expect(maskCardNumbers(`no ${wrong}.`)).toBe(`no ${wrong}.`);
    }
  });

  it('leaves a number with a wrong check digit as it was', () => {
    fc.assert(
      fc.property(cardNumber, fc.integer({ min: 1, max: 9 }), (pan, shift) => {
        const wrong = pan.slice(0, -1) + String((Number(pan.slice(-1)) + shift) % 10);
        expect(maskCardNumbers(`ref ${wrong}`)).toBe(`ref ${wrong}`);
      }),
    );
  });

  it('leaves text without a run of 12 digits as it was', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789 -ab'.split('')), maxLength: 60 }), (text) => {
        fc.pre(!/\d(?:[ -]?\d){11,}/.test(text));
        expect(maskCardNumbers(text)).toBe(text);
      }),
    );
  });

  it('finds the card number inside a longer run of groups, and no other', () => {
    expect(maskCardNumbers('order 12 4111 1111 1111 1111 thanks')).toBe('order 12 411111******1111 thanks');
    expect(maskCardNumbers('5555-5555-5555-4444-77')).toBe('555555******4444-77');
    expect(maskCardNumbers('phone +44 7911 123456, account 0123 4567 8901 2345')).toBe('phone +44 7911 123456, account 0123 4567 8901 2345');
    // A run with no separator is one number: 20 digits are no card.
    expect(maskCardNumbers('41111111111111111111')).toBe('41111111111111111111');
  });
});
