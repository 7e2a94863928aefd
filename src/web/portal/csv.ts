// CSV exports (RFC 4180: every cell quoted, CRLF line ends) that a spreadsheet opens as data,
// never as formulas: a cell starting with = + - @ or a tab or carriage return is prefixed with an
// apostrophe (OWASP "CSV injection"). Twenty lines, so no library for it.
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain number (a refund's -10.50) is data, not a formula: left as it is. */
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;

export function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : String(value);
  const safe = FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

export const CSV_TYPE = 'text/csv; charset=utf-8';
