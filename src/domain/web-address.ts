// Where a shopper may be sent: an absolute http(s) URL and nothing else. A `javascript:` or
// `data:` URL written into a page, or handed to a merchant who redirects the shopper to it, is
// script run in the shopper's browser.

export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}
