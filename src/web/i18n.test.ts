import { describe, expect, it } from 'vitest';
import { fill, formatMoney, messages, pickLanguage, LANGUAGES } from './i18n.ts';

describe('the shopper’s language', () => {
  it.each([
    [['pt-BR', 'en'], 'pt', 'pt-BR'],
    [['pt_br'], 'pt', 'pt-BR'],
    [['de-DE', 'es'], 'es', 'es-ES'],
    [[undefined, 'zh-Hans-CN'], 'zh', 'zh-Hans-CN'],
    [['fr', undefined, 'de-DE,de;q=0.9,pt;q=0.8'], 'pt', 'pt-BR'],
    [['english'], 'en', 'en-US'],
    [[], 'en', 'en-US'],
  ] as const)('%o → %s (%s)', (candidates, lang, locale) => {
    expect(pickLanguage(candidates)).toEqual({ lang, locale });
  });

  it('has every message in every language', () => {
    // Every text, the tables' texts included, as `path`: the same paths in every language, none empty.
    const texts = (node: object, prefix = ''): [string, string][] =>
      Object.entries(node).flatMap(([key, value]) => (typeof value === 'string' ? [[`${prefix}${key}`, value] as [string, string]] : texts(value as object, `${prefix}${key}.`)));
    const paths = texts(messages('en')).map(([path]) => path).sort();
    expect(paths).toContain('refusalCauses.funds');
    for (const lang of LANGUAGES) {
      expect(texts(messages(lang)).map(([path]) => path).sort()).toEqual(paths);
      for (const [, text] of texts(messages(lang))) expect(text.trim()).not.toBe('');
    }
  });

  it('fills placeholders and writes money the locale’s way, in the currency’s decimals', () => {
    expect(fill('Pay {amount} ({n})', { amount: '$1.00', n: 2 })).toBe('Pay $1.00 (2)');
    expect(formatMoney(4250, 'USD', 2, 'en-US')).toBe('$42.50');
    expect(formatMoney(4250, 'BRL', 2, 'pt-BR')).toBe('R$\u00a042,50');
    expect(formatMoney(1500, 'JPY', 0, 'en-US')).toBe('¥1,500');
    expect(formatMoney(2500, 'KWD', 3, 'en-US')).toBe('KWD\u00a02.500');
  });
});
