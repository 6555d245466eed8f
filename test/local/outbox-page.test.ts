import { describe, expect, it } from 'vitest';
import { outboxPage, previewOf, PREVIEW_CHARACTERS, type OutboxPageEntry } from '../../infra/local/outbox-page';

const entry = (id: string, fields: Partial<OutboxPageEntry> = {}): OutboxPageEntry => ({
  message_id: id,
  date: '2026-11-28T04:05:06Z',
  to: 'ada@example.test',
  from: 'Acme <shop@example.test>',
  subject: `Order ${id}`,
  kind: 'order_confirmation',
  preview: 'Thank you for your order',
  html_url: `http://localhost/_local/outbox/${id}.html`,
  text_url: `http://localhost/_local/outbox/${id}.txt`,
  eml_url: `http://localhost/_local/outbox/${id}.eml`,
  ...fields,
});

describe('the outbox page', () => {
  it('lists sender, subject, time and preview, and shows the newest message when none is chosen', () => {
    const html = outboxPage([entry('B'), entry('A')]);
    expect(html).toContain('<title>Outbox (2) · Cartwheel</title>');
    expect(html).toContain('Acme &lt;shop@example.test&gt;');
    expect(html).toContain('28 Nov 2026, 04:05 UTC');
    expect(html).toContain('<div class="preview">Thank you for your order</div>');
    expect(html).toMatch(/<a href="\?message=B" aria-current="true">/);
    expect(html).toContain('<iframe title="The message" sandbox src="http://localhost/_local/outbox/B.html">');
  });

  it('shows the chosen message, and the newest for an unknown one', () => {
    expect(outboxPage([entry('B'), entry('A')], 'A')).toMatch(/<a href="\?message=A" aria-current="true">/);
    expect(outboxPage([entry('B'), entry('A')], 'NOPE')).toMatch(/<a href="\?message=B" aria-current="true">/);
  });

  it('escapes everything a message carries', () => {
    const html = outboxPage([entry('X', { subject: '<script>alert(1)</script>', to: '"><img src=x>', preview: '<b>hi</b>' })]);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x>');
    expect(html).toContain('&lt;b&gt;hi&lt;/b&gt;');
  });

  it('says so when nothing was sent', () => {
    expect(outboxPage([])).toContain('No email has been sent yet');
  });

  it('previews the text on one line, cut with an ellipsis', () => {
    expect(previewOf('Hello\n\n  Ada,\tthanks')).toBe('Hello Ada, thanks');
    const long = previewOf('x'.repeat(500));
    expect(long).toHaveLength(PREVIEW_CHARACTERS);
    expect(long.endsWith('…')).toBe(true);
  });
});
