import { describe, expect, it } from 'vitest';
import { escapeHtml, html, httpUrl } from './html.ts';

describe('html templates', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const evil = `"><script>alert('x')</script><img src=x onerror=alert(1)>&amp;`;
    const out = html`<p title="${evil}">${evil}</p>`.text;
    expect(out).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;">' +
        '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;</p>',
    );
    expect(out).not.toContain('<script');
  });

  it('nests templates and lists without escaping them twice', () => {
    const items = ['a<b', 'c&d'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>`.text).toBe('<ul><li>a&lt;b</li><li>c&amp;d</li></ul>');
  });

  it('renders nothing for null, undefined and false, and numbers as text', () => {
    expect(html`[${null}${undefined}${false}${0}${12.5}]`.text).toBe('[012.5]');
  });

  it('escapes the characters that end a quoted attribute', () => {
    expect(escapeHtml(`'"<>&`)).toBe('&#39;&quot;&lt;&gt;&amp;');
  });

  it('lets only http(s) URLs through', () => {
    expect(httpUrl('https://shop.example/return?a=1')).toBe('https://shop.example/return?a=1');
    expect(() => httpUrl('javascript:alert(1)')).toThrow();
    expect(() => httpUrl('data:text/html,<script>')).toThrow();
  });
});
