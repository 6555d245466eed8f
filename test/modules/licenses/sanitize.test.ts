import { describe, expect, it } from 'vitest';
import { hasVisibleText, licenseHtmlToText, sanitizeInstructions, sanitizeLicenseReply } from '../../../shared/modules/licenses/sanitize';

/** The fastest of a few runs, in milliseconds: the minimum shrugs off GC pauses and JIT warm-up. */
function fastest(run: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe('sanitizeLicenseReply (licenses.md §5.4)', () => {
  it('turns the contract example into the stored text', () => {
    const reply = "  <p class='k'>Serial: <b>PE-4471-AZQ</b><br/>Valid for 2 PCs</p><script>x()</script> ";
    expect(sanitizeLicenseReply(reply)).toBe('Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs');
    expect(sanitizeLicenseReply(reply.trim())).toBe('Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs');
  });

  it('trims the result, since removed tags can leave whitespace at the edges', () => {
    expect(sanitizeLicenseReply('<p>\n  KEY-1 \n</p>\n')).toBe('KEY-1');
  });

  it('keeps <br>, <b>, <strong>, <i>, <em> in lower case and writes every <br> form as <br>', () => {
    expect(sanitizeLicenseReply('A<BR>B<br/>C<br />D<Br >E<b>x</b><STRONG>y</STRONG><i>z</i><EM>w</eM>')).toBe(
      'A<br>B<br>C<br>D<br>E<b>x</b><strong>y</strong><i>z</i><em>w</em>',
    );
    expect(sanitizeLicenseReply('<B>X</B>')).toBe('<b>X</b>');
    expect(sanitizeLicenseReply('line 1<br>line 2')).toBe('line 1<br>line 2');
  });

  it('treats a kept tag with attributes as any other tag: removed, its text kept', () => {
    expect(sanitizeLicenseReply('<b onclick=x>y</b>')).toBe('y');
    expect(sanitizeLicenseReply('<b class="k" onclick="steal()">PE-1</b><br onload=x>next')).toBe('PE-1next');
    expect(sanitizeLicenseReply('<strong hidden>S</strong><em style="x">E</em>')).toBe('SE');
    // The bare tags around it are unaffected, and nesting is kept.
    expect(sanitizeLicenseReply('<b class=k>a</b><b>c</b>')).toBe('a<b>c</b>');
    expect(sanitizeLicenseReply('<b>a<i class=k>c</i>d</b>')).toBe('<b>acd</b>');
    expect(sanitizeLicenseReply('<b x>open')).toBe('open');
  });

  it('removes every other tag and keeps its text', () => {
    expect(sanitizeLicenseReply('<p>code</p>')).toBe('code');
    expect(sanitizeLicenseReply('<a href="javascript:x()">go</a>')).toBe('go');
    expect(sanitizeLicenseReply('<img src=x onerror=alert(1)>K')).toBe('K');
    expect(sanitizeLicenseReply('<div><span>A</span><u>B</u><code>C</code></div>')).toBe('ABC');
    expect(sanitizeLicenseReply('<svg><b>s</b></svg><textarea>t</textarea>')).toBe('<b>s</b>t');
  });

  it('removes comments, and <script> and <style> with their content', () => {
    expect(sanitizeLicenseReply('<!-- c -->X')).toBe('X');
    expect(sanitizeLicenseReply('A<!-- unterminated')).toBe('A');
    expect(sanitizeLicenseReply('<style>p{}</style>Y')).toBe('Y');
    expect(sanitizeLicenseReply('<script>alert(1)</script>Z<SCRIPT type="module">x()</SCRIPT>')).toBe('Z');
    expect(sanitizeLicenseReply('<!DOCTYPE html><?xml version="1.0"?>D')).toBe('D');
  });

  it('never lets a split <script> back together', () => {
    const out = sanitizeLicenseReply('<scr<script>ipt>alert(1)</script>');
    expect(out).not.toMatch(/<script/i);
    expect(out).toBe('ipt&gt;alert(1)');
  });

  it('closes kept tags left open at the end and drops stray closing tags', () => {
    expect(sanitizeLicenseReply('<b>open')).toBe('<b>open</b>');
    expect(sanitizeLicenseReply('<b><i>x')).toBe('<b><i>x</i></b>');
    expect(sanitizeLicenseReply('</b>')).toBe('');
    expect(sanitizeLicenseReply('</b>x</em>y</strong>')).toBe('xy');
    expect(sanitizeLicenseReply('<b><i>x</b>y</i>')).toBe('<b><i>x</i></b>y');
  });

  it('reads </br> as <br>, as the HTML standard does', () => {
    expect(sanitizeLicenseReply('a</br>b')).toBe('a<br>b');
  });

  it('escapes a < that starts no tag, and >', () => {
    expect(sanitizeLicenseReply('a < b && c')).toBe('a &lt; b &amp;&amp; c');
    expect(sanitizeLicenseReply('<<b>x</b>')).toBe('&lt;<b>x</b>');
    expect(sanitizeLicenseReply('1 <2> 3')).toBe('1 &lt;2&gt; 3');
    expect(sanitizeLicenseReply('a > b "q" \'s\'')).toBe('a &gt; b "q" \'s\'');
  });

  it('drops a tag cut off by the end of the input, as the HTML standard does', () => {
    expect(sanitizeLicenseReply('KEY-1 <p')).toBe('KEY-1');
    expect(sanitizeLicenseReply('KEY-1 <b class="x')).toBe('KEY-1');
  });

  it('keeps valid character references as written', () => {
    const refs = 'a &amp; b &lt;c&gt; &quot; &copy; &#169; &#xA9; &#XA9; &#0169; &nbsp; &notin; &AMP;';
    expect(sanitizeLicenseReply(refs)).toBe(refs);
  });

  it('escapes an & that starts no valid reference', () => {
    expect(sanitizeLicenseReply('R&D &')).toBe('R&amp;D &amp;');
    expect(sanitizeLicenseReply('&foo')).toBe('&amp;foo');
    expect(sanitizeLicenseReply('&foo;')).toBe('&amp;foo;');
    // Legacy names are valid only with their semicolon, and names are case-sensitive.
    expect(sanitizeLicenseReply('&copy 2026 &copyx; &Amp;')).toBe('&amp;copy 2026 &amp;copyx; &amp;Amp;');
    expect(sanitizeLicenseReply('&&amp;')).toBe('&amp;&amp;');
    expect(sanitizeLicenseReply('&; &#; &#x; &#a;')).toBe('&amp;; &amp;#; &amp;#x; &amp;#a;');
  });

  it('escapes numeric references the HTML standard reports as errors', () => {
    // Surrogate, beyond Unicode, noncharacters and CR (tab and LF are fine; other controls are removed, below).
    expect(sanitizeLicenseReply('&#xD800; &#x110000; &#xFFFE; &#xFDD0; &#x10FFFF; &#13;')).toBe(
      '&amp;#xD800; &amp;#x110000; &amp;#xFFFE; &amp;#xFDD0; &amp;#x10FFFF; &amp;#13;',
    );
    expect(sanitizeLicenseReply('a&#9;b&#10;c')).toBe('a&#9;b&#10;c');
  });

  it('removes controls and bidirectional overrides, raw or as references, keeping tab, LF and CR (§5.4)', () => {
    expect(sanitizeLicenseReply('K\u0000E\u0007Y\u001B-\u202E1\u202A2\u2066\u2069\u007F\u0085\u009F-Z')).toBe('KEY-12-Z');
    expect(sanitizeLicenseReply('K&#0;E&#7;Y&#x1b;-&#x202E;1&#8234;2&#x2066;&#X2069;&#127;&#x85;&#159;&#12;-Z')).toBe('KEY-12-Z');
    expect(sanitizeLicenseReply('a\tb\nc\rd')).toBe('a\tb\nc\rd');
    expect(sanitizeLicenseReply('<b>\u202Eevil</b>')).toBe('<b>evil</b>');
    // Inside a removed tag's attribute or a kept tag: gone either way, and the rest is still sanitised.
    expect(sanitizeLicenseReply('<b\u0000 x="\u202E">K</b>')).toBe('K');
    // Other invisible characters that are not named by §5.4 stay (U+200F right-to-left mark, U+200B).
    expect(sanitizeLicenseReply('a\u200Fb\u200Bc')).toBe('a\u200Fb\u200Bc');
  });

  it('shows references with a body over 20 characters literally (a sanitize-html limit, on the safe side)', () => {
    expect(sanitizeLicenseReply('&CounterClockwiseContourIntegral;')).toBe('&amp;CounterClockwiseContourIntegral;');
  });

  it('keeps U+FFFD and other non-ASCII text as it is', () => {
    expect(sanitizeLicenseReply('KEY-\uFFFD-1 · 山田 · €')).toBe('KEY-\uFFFD-1 · 山田 · €');
  });

  it('is idempotent, so stored codes can be sanitised again on the way out', () => {
    const inputs = [
      'Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs &amp; 1 Mac',
      '<b><i>x</b>y</i>',
      'a < b && c &foo; &#0; &copy',
      '<scr<script>ipt>alert(1)</script>',
      '<p class=x>P</p><b onclick=x>y</b>',
    ];
    for (const input of inputs) {
      const once = sanitizeLicenseReply(input);
      expect(sanitizeLicenseReply(once)).toBe(once);
    }
  });

  it('stays fast on hostile input', () => {
    const hostile = '<a '.repeat(4_096);
    expect(sanitizeLicenseReply(hostile)).toBe('');
    expect(sanitizeLicenseReply('<a x y z '.repeat(4_096))).toBe('');
    expect(sanitizeLicenseReply(`<b ${'a="x" '.repeat(4_096)}>y`)).toBe('y');
    // Linear, not quadratic: compared with plain text of the same length, with a wide margin.
    const baseline = fastest(() => sanitizeLicenseReply('x'.repeat(hostile.length)));
    const time = fastest(() => sanitizeLicenseReply(hostile));
    expect(time).toBeLessThan(Math.max(baseline, 1) * 200);
  });

  it('stays fast with many distinct reference-like names', () => {
    const names = Array.from({ length: 800 }, (_, i) => `&n${i};`).join('');
    expect(sanitizeLicenseReply(names)).toBe(names.replaceAll('&', '&amp;'));
  });
});

describe('hasVisibleText (licenses.md §5.3 rule 3)', () => {
  it('is true when text shows', () => {
    expect(hasVisibleText('Serial: <b>PE-4471-AZQ</b>')).toBe(true);
    expect(hasVisibleText('<b>.</b>')).toBe(true);
    expect(hasVisibleText('&amp;')).toBe(true);
    expect(hasVisibleText('\uFFFD')).toBe(true);
  });

  it('is false for tags, whitespace, &nbsp;, zero-width and control characters only', () => {
    expect(hasVisibleText('')).toBe(false);
    expect(hasVisibleText('<br><b> </b><i>\n\t</i>')).toBe(false);
    expect(hasVisibleText('&nbsp;&#160;\u00a0\u3000')).toBe(false);
    expect(hasVisibleText('\u200b\u200d\ufeff\u00ad&#9;')).toBe(false);
    expect(hasVisibleText('<p> </p><script>code()</script><!-- note -->')).toBe(false);
  });
});

describe('licenseHtmlToText (licenses.md §7 text)', () => {
  it('gives the contract example', () => {
    expect(licenseHtmlToText('Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs')).toBe('Serial: PE-4471-AZQ\nValid for 2 PCs');
  });

  it('turns <br> into a line feed, removes tags and decodes references', () => {
    expect(licenseHtmlToText('FP-1<br>FP-2<br/><strong>FP-3</strong>')).toBe('FP-1\nFP-2\nFP-3');
    expect(licenseHtmlToText('A &amp; B &lt;C&gt; &quot;D&quot; &#169; &#xA9; &copy; &nbsp;')).toBe('A & B <C> "D" © © © \u00a0');
  });

  it('shows what the sanitiser escaped literally', () => {
    expect(licenseHtmlToText('&foo; R&D &#xD800; &copy 1 a < b')).toBe('&foo; R&D &#xD800; &copy 1 a < b');
    // A reference to a control character is removed, not shown (§5.4).
    expect(licenseHtmlToText('R&D &#0;&#x1B;ok')).toBe('R&D ok');
    expect(licenseHtmlToText('&amp;lt;')).toBe('&lt;');
  });

  it('sanitises first, so script content and comments never become text', () => {
    expect(licenseHtmlToText('a<script>alert(1)</script>b<style>p{}</style>c<!-- x -->d')).toBe('abcd');
  });

  it('keeps other whitespace as written', () => {
    expect(licenseHtmlToText('KEY-1\nKEY-2  x')).toBe('KEY-1\nKEY-2  x');
  });

  it('agrees with the text of the sanitised form', () => {
    const reply = "<p class='k'>Serial: <b>PE&#45;1</b><br/>Valid &amp; paid</p>&foo";
    expect(licenseHtmlToText(reply)).toBe(licenseHtmlToText(sanitizeLicenseReply(reply)));
  });
});

describe('sanitizeInstructions (licenses.md §2.1)', () => {
  it('keeps the contract example as it is', () => {
    const instructions = '<p>Open <b>Help &gt; Register</b> and paste the serial number.</p>';
    expect(sanitizeInstructions(instructions)).toBe(instructions);
  });

  it('keeps the limited tags, without attributes', () => {
    expect(
      sanitizeInstructions('<P class="x">A<br/>B</P><ul style="c"><li>1<li>2</ul><ol><li><strong>3</strong></li></ol><em>e</em><i>i</i>'),
    ).toBe('<p>A<br>B</p><ul><li>1</li><li>2</li></ul><ol><li><strong>3</strong></li></ol><em>e</em><i>i</i>');
  });

  it('keeps links to http, https and mailto addresses with href only', () => {
    expect(sanitizeInstructions('<a href="https://ex.test/help" target="_blank" style="x" onclick="y()">help</a>')).toBe(
      '<a href="https://ex.test/help">help</a>',
    );
    expect(sanitizeInstructions('<a href="http://ex.test">h</a> <A HREF="mailto:help@ex.test">m</A>')).toBe(
      '<a href="http://ex.test">h</a> <a href="mailto:help@ex.test">m</a>',
    );
    expect(sanitizeInstructions('<a href="  HTTPS://ex.test  ">s</a>')).toBe('<a href="HTTPS://ex.test">s</a>');
  });

  it('removes any other link, keeping its text', () => {
    expect(sanitizeInstructions('<a href="javascript:alert(1)">j</a>')).toBe('j');
    expect(sanitizeInstructions('<a href="&#106;avascript:alert(1)">e</a>')).toBe('e');
    expect(sanitizeInstructions('<a href="data:text/html,x">d</a><a href="ftp://x">f</a><a href="//ex.test">p</a>')).toBe('dfp');
    expect(sanitizeInstructions('<a href="/help">r</a><a name="x">n</a><a>b</a>')).toBe('rnb');
    expect(sanitizeInstructions('<a href="x">a</a><a href="https://y">b</a>')).toBe('a<a href="https://y">b</a>');
  });

  it('escapes link addresses for their attribute', () => {
    expect(sanitizeInstructions(`<a href='https://ex.test/?a=1&b="2"&copy;&foo;<x>'>q</a>`)).toBe(
      '<a href="https://ex.test/?a=1&amp;b=&quot;2&quot;&copy;&amp;foo;&lt;x&gt;">q</a>',
    );
  });

  it('strips every other tag, comments, and script and style with content', () => {
    expect(sanitizeInstructions('<div><h1>T</h1><img src=x onerror=y><span style="color:red">s</span></div>')).toBe('Ts');
    expect(sanitizeInstructions('a<script>x()</script>b<style>p{}</style>c<!-- d -->')).toBe('abc');
    expect(sanitizeInstructions('<p onclick="x()">p</p><b class="k">b</b>')).toBe('<p>p</p><b>b</b>');
  });

  it('escapes text as the reply sanitiser does', () => {
    expect(sanitizeInstructions('a < b & c &copy; &foo; &#xD800; &#0;x')).toBe('a &lt; b &amp; c &copy; &amp;foo; &amp;#xD800; x');
  });

  it('is idempotent', () => {
    const once = sanitizeInstructions('<p class=x>See <a href="https://ex.test?a=1&b=2" target=_blank>help</a> &amp; <i>more</i><li>x');
    expect(sanitizeInstructions(once)).toBe(once);
  });
});
