import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from './csv.ts';

describe('CSV export', () => {
  it.each(['=HYPERLINK("http://evil")', '+1+1', '-2+3', '@SUM(A1)', '\tx', '\rx'])('neutralises the formula %j', (text) => {
    expect(csvCell(text).startsWith(`"'`)).toBe(true);
  });

  it('leaves plain numbers, negative ones included', () => {
    expect(csvCell('-10.50')).toBe('"-10.50"');
    expect(csvCell(-3)).toBe('"-3"');
  });

  it('quotes every cell and doubles quotes', () => {
    expect(toCsv(['a', 'b'], [['x "y"', 12], [null, new Date('2026-11-22T12:00:00Z')]])).toBe('"a","b"\r\n"x ""y""","12"\r\n"","2026-11-22T12:00:00.000Z"\r\n');
  });
});
