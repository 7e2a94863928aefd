// CSV files the portal hands out (transactions, settlement reports). RFC 4180 quoting, and a
// cell a spreadsheet would read as a formula (starting with = + - @, a tab or a carriage return)
// is prefixed with a single quote, so a shopper's e-mail or an order number cannot run in the
// member's spreadsheet. Numbers we format ourselves (amounts) are written as they are.
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell: neutralised, then quoted when it holds a comma, quote or line break. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** An amount we formatted (a decimal string, maybe negative): never a formula, kept numeric. */
export function csvAmount(decimal: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(decimal)) throw new Error('not a decimal amount');
  return decimal;
}

export function toCsv(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header.map(csvCell), ...rows].map((row) => row.join(',')).join('\r\n') + '\r\n';
}
