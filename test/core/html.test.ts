/** The HTML string helpers of shared/core/html.ts: escaping into markup, and markup read back as text. */
import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeHtmlText, htmlToText } from '../../shared/core/html';

describe('escapeHtml', () => {
  it('escapes the five characters markup cares about and nothing else', () => {
    expect(escapeHtml(`<b>"Ana" & co's</b>`)).toBe('&lt;b&gt;&quot;Ana&quot; &amp; co&#39;s&lt;/b&gt;');
    expect(escapeHtml('a\u0001b · 山田')).toBe('a\u0001b · 山田');
  });
});

describe('escapeHtmlText', () => {
  it('shows controls HTML cannot carry and lone surrogates as U+FFFD, then escapes', () => {
    expect(escapeHtmlText('a\u0001<b\u007f\u0085\ud800\t\n\f\r😀')).toBe('a\uFFFD&lt;b\uFFFD\uFFFD\uFFFD\t\n\f\r😀');
  });
});

describe('htmlToText', () => {
  it('drops scripts and styles, puts blocks on lines and cells after tabs, decodes the escapes', () => {
    expect(htmlToText('<h1>order:created</h1><table><tr><th>id</th><td>A&amp;B</td></tr></table>')).toBe('order:created\nid\tA&B');
    expect(htmlToText('<p>a</p><script>x()</script><style>p{}</style><p>&lt;b&gt; &quot;c&quot; &#39;d&#39;</p>')).toBe('a\n<b> "c" \'d\'');
    expect(htmlToText('a<br><br><br><br>b')).toBe('a\n\nb');
  });
});
