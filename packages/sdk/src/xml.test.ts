import { describe, expect, it } from 'vitest';
import { parseAnswer } from './answer.js';
import { readXml } from './xml.js';

describe('reading XML answers', () => {
  it('reads text, entities, CDATA, nested elements and lists (one entry or none)', () => {
    const text = `<?xml version="1.0" encoding="UTF-8"?>
<respon>
  <note>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;&#x4E2D;</note>
  <empty></empty><self/>
  <cdata><![CDATA[<not> &amp; markup]]></cdata>
  <risk_reasons><name>blocklist</name><status>pass</status></risk_reasons>
  <!-- a comment -->
  <repeated>1</repeated><repeated>2</repeated>
  <nested><inner attr="x>y">v</inner></nested>
</respon>`;
    expect(parseAnswer(text)).toEqual({
      note: `a & b <c> "d" 'e' é中`,
      empty: '',
      self: '',
      cdata: '<not> &amp; markup',
      risk_reasons: [{ name: 'blocklist', status: 'pass' }],
      repeated: ['1', '2'],
      nested: { inner: 'v' },
    });
    expect(parseAnswer('<respon><order_status>0</order_status></respon>')).toEqual({ order_status: '0' });
    expect(parseAnswer('<respon><risk_reasons></risk_reasons></respon>')).toEqual({ risk_reasons: [] });
    expect(readXml('<respon><a><b>1</b></a></respon>', new Set(['a.b'])).fields).toEqual({ a: { b: ['1'] } });
  });

  it('refuses a DOCTYPE, broken nesting, unknown entities and depth beyond reason', () => {
    expect(() => parseAnswer('<!DOCTYPE x [<!ENTITY e "boom">]><respon>&e;</respon>')).toThrow(/DOCTYPE/);
    expect(() => parseAnswer('<respon><a>1</b></respon>')).toThrow(/mismatched/);
    expect(() => parseAnswer('<respon><a>1</a>')).toThrow(/unterminated/);
    expect(() => parseAnswer('<respon>&nbsp;</respon>')).toThrow(/entity/);
    expect(() => parseAnswer(`${'<a>'.repeat(100)}${'</a>'.repeat(100)}`)).toThrow(/too deep/);
    expect(() => parseAnswer('Service Unavailable')).toThrow(/neither JSON nor XML/);
  });
});
