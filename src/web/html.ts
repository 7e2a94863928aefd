// The one way pages are written: html`` templates escape every interpolated value, unless it is
// itself Html (another html`` template). Attribute values are always double-quoted in templates,
// so escaping & < > " ' is enough for text and attributes alike. A URL put in href or action
// goes through httpUrl first: escaping does not stop a javascript: URL.
import { isHttpUrl } from '../domain/web-address.ts';

export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}

/** `url` when it is an absolute http(s) URL; throws otherwise, so no other scheme reaches a page. */
export function httpUrl(url: string): string {
  if (!isHttpUrl(url)) throw new Error('not an http(s) URL');
  return new URL(url).href;
}
