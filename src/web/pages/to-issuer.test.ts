import { describe, expect, it } from 'vitest';
import { toIssuerPage } from './to-issuer.ts';

const view = { baseUrl: 'http://gateway.test', lang: 'en' as const, merchantName: 'Lojas Aurora', frameAncestors: [], sandbox: false };

describe('the step to the issuer’s challenge', () => {
  it('goes on to the action_url by itself and by its link, with no script and no form', () => {
    const page = toIssuerPage({ ...view, actionUrl: 'https://acs.bank.example/challenge?tx=T1&lang=en' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<meta http-equiv="refresh" content="0; url=https://acs.bank.example/challenge?tx=T1&amp;lang=en">');
    expect(page.body).toContain('<a class="button" id="to-issuer" href="https://acs.bank.example/challenge?tx=T1&amp;lang=en">Continue to your bank</a>');
    expect(page.body).not.toMatch(/<script|<form/);
    // Its own policy is no wider than the card page's: the issuer's origin is reached by navigation, not named.
    expect(page.headers['content-security-policy']).toContain("script-src 'none';");
    expect(page.headers['content-security-policy']).toContain('form-action http://gateway.test;');
    expect(page.headers['content-security-policy']).not.toContain('acs.bank.example');
  });

  it('keeps a URL whole in the refresh: quotes and spaces cannot end it early', () => {
    const page = toIssuerPage({ ...view, actionUrl: `https://acs.bank.example/c'h a"l?x=1;url=https://evil.example` });
    // The URL parser percent-encodes the space and the double quote; the single quote is escaped,
    // and an unquoted refresh URL runs to the attribute's end, so `;url=` inside it is part of it.
    expect(page.body).toContain('content="0; url=https://acs.bank.example/c&#39;h%20a%22l?x=1;url=https://evil.example">');
  });

  it('is not made for a URL that is not http(s): a connector’s mistake, never a script run by the page', () => {
    expect(() => toIssuerPage({ ...view, actionUrl: 'javascript:alert(1)' })).toThrow('not an http(s) URL');
    expect(() => toIssuerPage({ ...view, actionUrl: 'data:text/html,<p>x</p>' })).toThrow('not an http(s) URL');
  });
});
