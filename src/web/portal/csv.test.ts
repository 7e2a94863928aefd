import { describe, expect, it } from 'vitest';
import { csvAmount, csvCell, toCsv } from './csv.ts';

describe('portal CSV', () => {
  it.each([
    ['=HYPERLINK("http://evil.example")', `"'=HYPERLINK(""http://evil.example"")"`],
    ['+1+2', "'+1+2"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', `"'\rcmd"`],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
  ])('neutralises and quotes %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('keeps our own amounts numeric, negative ones too, and refuses anything else as an amount', () => {
    expect(csvAmount('-10.50')).toBe('-10.50');
    expect(() => csvAmount('=1')).toThrow();
  });

  it('ends rows with CRLF', () => {
    expect(toCsv(['a', 'b'], [['1', '2']])).toBe('a,b\r\n1,2\r\n');
  });
});
