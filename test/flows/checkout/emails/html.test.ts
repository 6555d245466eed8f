import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../../shared/core/html';
import { instructionsToText, tidyText } from '../../../../shared/flows/checkout/emails/html';

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

describe('instructionsToText', () => {
  it('turns <br> into line breaks, strips tags and decodes references', () => {
    expect(instructionsToText('Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs')).toBe('Serial: PE-4471-AZQ\nValid for 2 PCs');
    expect(instructionsToText('A &amp; B &lt;C&gt; &#169; &#xA9;')).toBe('A & B <C> © ©');
  });

  it('keeps unknown or invalid references literally', () => {
    expect(instructionsToText('&nosuch; R&D &#xD800;')).toBe('&nosuch; R&D &#xD800;');
    // A reference to a control character is removed, as the raw character is (licenses.md §5.4).
    expect(instructionsToText('R&D&#0; ok')).toBe('R&D ok');
  });

  it('separates paragraphs and lists lines', () => {
    expect(instructionsToText('<p>Open <b>Help &gt; Register</b>.</p><p>Then:</p><ul><li>one</li><li>two</li></ul>')).toBe(
      'Open Help > Register.\n\nThen:\n\n- one\n- two',
    );
  });

  it('writes web and mail links with their address, and drops other targets', () => {
    expect(instructionsToText('See <a href="https://ex.test/help">the help</a>.')).toBe('See the help (https://ex.test/help).');
    expect(instructionsToText('<a href="mailto:help@ex.test">help@ex.test</a>')).toBe('help@ex.test');
    expect(instructionsToText('<a href="javascript:x()">click</a>')).toBe('click');
  });

  it('drops script and style content and comments', () => {
    expect(instructionsToText('a<script>alert(1)</script>b<style>p{}</style>c<!-- x -->d')).toBe('abcd');
  });

  it('collapses source whitespace as a browser would', () => {
    expect(instructionsToText('  A\n   B\t C  ')).toBe('A B C');
  });

  it('reads only the instructions tag set of licenses.md §2.1: other tags go, their text stays', () => {
    expect(instructionsToText('<div>A</div><h1>B</h1><table><tr><td>C</td></tr></table>')).toBe('ABC');
  });

  it('completes on hostile input', () => {
    expect(instructionsToText('<a <a <a '.repeat(20_000))).toBe('');
    expect(instructionsToText('<a x y z '.repeat(20_000))).toBe('');
  });
});

describe('tidyText', () => {
  it('normalises line ends, drops control characters and trims lines', () => {
    expect(tidyText('  A-1\r\nB\u0007-2 \r\r\n\n\nC\u00a0 3 ')).toBe('A-1\nB-2\n\nC 3');
  });
});
