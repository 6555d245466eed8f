import { describe, expect, it } from 'vitest';
import { escapeHtml, htmlToText, sanitizeLicenseHtml, tidyText } from '../../../shared/commerce/emails/html';

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<img src=x onerror="alert('1')"> & co`)).toBe(
      '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co',
    );
  });

  it('leaves other text, including non-Latin scripts, untouched', () => {
    expect(escapeHtml('Ana Ruiz · 山田太郎 · 19,99 €')).toBe('Ana Ruiz · 山田太郎 · 19,99 €');
  });
});

describe('sanitizeLicenseHtml (licenses.md §5.4 tag set)', () => {
  it('keeps <br> and the four inline tags, lower-cased, and normalises <br/> forms', () => {
    expect(sanitizeLicenseHtml('A<BR>B<br/>C<br />D<b>x</b><STRONG>y</STRONG><i>z</i><em>w</em>')).toBe(
      'A<br>B<br>C<br>D<b>x</b><strong>y</strong><i>z</i><em>w</em>',
    );
  });

  it('strips attributes from allowed tags', () => {
    expect(sanitizeLicenseHtml('<b class="k" onclick="steal()">PE-1</b><br onload=x>next')).toBe('<b>PE-1</b><br>next');
  });

  it('escapes every other tag, so it shows as text and never runs', () => {
    expect(sanitizeLicenseHtml('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(sanitizeLicenseHtml('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(sanitizeLicenseHtml('<a href="javascript:x()">go</a>')).toBe('&lt;a href=&quot;javascript:x()&quot;&gt;go&lt;/a&gt;');
    expect(sanitizeLicenseHtml('<p>code</p>')).toBe('&lt;p&gt;code&lt;/p&gt;');
    expect(sanitizeLicenseHtml('<!-- note -->X')).toBe('&lt;!-- note --&gt;X');
  });

  it('escapes a < or > that starts no tag and quotes in text', () => {
    expect(sanitizeLicenseHtml('a < b > c "d"')).toBe('a &lt; b &gt; c &quot;d&quot;');
    expect(sanitizeLicenseHtml('<<b>x</b>')).toBe('&lt;<b>x</b>');
  });

  it('keeps valid character references and escapes any other &', () => {
    expect(sanitizeLicenseHtml('a &amp; b &lt;c&gt; &#169; &#xA9; &copy;')).toBe('a &amp; b &lt;c&gt; &#169; &#xA9; &copy;');
    expect(sanitizeLicenseHtml('R&D &nosuch; &#0; &#xD800; &')).toBe('R&amp;D &amp;nosuch; &amp;#0; &amp;#xD800; &amp;');
  });

  it('closes unclosed tags and drops stray end tags, so formatting cannot leak out', () => {
    expect(sanitizeLicenseHtml('<b>open')).toBe('<b>open</b>');
    expect(sanitizeLicenseHtml('</b>x</em>')).toBe('x');
    expect(sanitizeLicenseHtml('<b><i>x</b>y</i>')).toBe('<b><i>x</i></b>y');
  });

  it('leaves already-sanitised stored HTML unchanged', () => {
    const stored = 'Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs &amp; 1 Mac';
    expect(sanitizeLicenseHtml(stored)).toBe(stored);
  });

  it('stays fast on hostile input', () => {
    const started = performance.now();
    sanitizeLicenseHtml('<a x y z '.repeat(20_000));
    sanitizeLicenseHtml(`<b ${'a="x" '.repeat(20_000)}`);
    htmlToText('<a <a <a '.repeat(20_000));
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('htmlToText', () => {
  it('turns <br> into line breaks, strips tags and decodes references', () => {
    expect(htmlToText('Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs')).toBe('Serial: PE-4471-AZQ\nValid for 2 PCs');
    expect(htmlToText('A &amp; B &lt;C&gt; &#169; &#xA9;')).toBe('A & B <C> © ©');
  });

  it('keeps unknown or invalid references literally', () => {
    expect(htmlToText('&nosuch; R&D &#0;')).toBe('&nosuch; R&D &#0;');
  });

  it('separates paragraphs and lists lines', () => {
    expect(htmlToText('<p>Open <b>Help &gt; Register</b>.</p><p>Then:</p><ul><li>one</li><li>two</li></ul>')).toBe(
      'Open Help > Register.\n\nThen:\n\n- one\n- two',
    );
  });

  it('writes web and mail links with their address, and drops other targets', () => {
    expect(htmlToText('See <a href="https://ex.test/help">the help</a>.')).toBe('See the help (https://ex.test/help).');
    expect(htmlToText('<a href="mailto:help@ex.test">help@ex.test</a>')).toBe('help@ex.test');
    expect(htmlToText('<a href="javascript:x()">click</a>')).toBe('click');
  });

  it('drops script and style content and comments', () => {
    expect(htmlToText('a<script>alert(1)</script>b<style>p{}</style>c<!-- x -->d')).toBe('abcd');
  });

  it('collapses source whitespace as a browser would', () => {
    expect(htmlToText('  A\n   B\t C  ')).toBe('A B C');
  });
});

describe('tidyText', () => {
  it('normalises line ends, drops control characters and trims lines', () => {
    expect(tidyText('  A-1\r\nB\u0007-2 \r\r\n\n\nC\u00a0 3 ')).toBe('A-1\nB-2\n\nC 3');
  });
});
