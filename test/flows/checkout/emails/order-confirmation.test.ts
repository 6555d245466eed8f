import { describe, expect, it } from 'vitest';
import {
  confirmationReady,
  renderOrderConfirmation,
  type ConfirmationContext,
  type ConfirmationItem,
  type ConfirmationOrder,
} from '../../../../shared/flows/checkout/emails';

/** 2026-11-21T14:05:09Z, the contract's example instant. */
const NOV_21 = Date.UTC(2026, 10, 21, 14, 5, 9);

function item(overrides: Partial<ConfirmationItem> = {}): ConfirmationItem {
  return {
    item_id: 'photo-editor-pro',
    name: 'Photo Editor Pro',
    quantity: 1,
    price: 49,
    total: 49,
    type: 'digital',
    license: null,
    license_pending: false,
    ...overrides,
  };
}

function order(overrides: Partial<ConfirmationOrder> = {}): ConfirmationOrder {
  return {
    order_id: '3HE81X8T8P1B',
    date_created_ms: NOV_21,
    currency: 'USD',
    subtotal: 49,
    shipping: 0,
    discount: 0,
    tax: 0,
    total: 49,
    tax_inclusive: false,
    promotion_code: null,
    items: [item()],
    shipping_item: null,
    customer: { name: 'Ana Ruiz', email: 'ana@example.org', locale: null },
    billing_address: null,
    ...overrides,
  };
}

const context: ConfirmationContext = {
  companyName: 'Acme Software',
  supportEmail: 'help@acme.test',
  accountLocale: 'en-US',
  zone: 'UTC',
  test: false,
};

const serialLicense = {
  label: 'Serial number',
  text: 'Serial: PE-4471-AZQ\nValid for 2 PCs',
  html: 'Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs',
  instructions: '<p>Open <b>Help &gt; Register</b> and paste the serial number.</p>',
};

/** Every tag name the email's own markup uses; anything else in the HTML came from input. */
const EMAIL_TAGS = new Set(['html', 'head', 'meta', 'title', 'body', 'table', 'tr', 'td', 'th', 'p', 'div', 'a', 'strong', 'b', 'i', 'em', 'br']);

/** Tag names in an HTML document, ignoring the doctype. */
function tagNames(html: string): string[] {
  return [...html.matchAll(/<\/?([A-Za-z][A-Za-z0-9-]*)/g)].map((m) => (m[1] ?? '').toLowerCase());
}

/** The contents of every tag (`<...>`), to check for event-handler attributes. */
function tags(html: string): string[] {
  return [...html.matchAll(/<[^>]*>/g)].map((m) => m[0]);
}

function everything(email: { subject: string; html: string; text: string }): string {
  return `${email.subject}\n${email.html}\n${email.text}`;
}

describe('locale, money and dates', () => {
  it('en-US: money and date in both parts', () => {
    const email = renderOrderConfirmation(
      order({ currency: 'USD', subtotal: 1234.5, total: 1234.5, items: [item({ price: 1234.5, total: 1234.5 })] }),
      { ...context, zone: 'America/New_York' },
    );
    expect(email.locale).toBe('en-US');
    for (const part of [email.html, email.text]) {
      expect(part).toContain('$1,234.50');
      expect(part).toContain('Nov 21, 2026, 9:05 AM');
    }
  });

  it('de-DE (customer locale): money and date in both parts', () => {
    const email = renderOrderConfirmation(
      order({
        currency: 'EUR',
        subtotal: 1234.5,
        total: 1234.5,
        items: [item({ price: 1234.5, total: 1234.5 })],
        customer: { name: 'Jana Weber', email: 'jana@example.de', locale: 'de-DE' },
      }),
      { ...context, zone: 'Europe/Berlin' },
    );
    expect(email.locale).toBe('de-DE');
    for (const part of [email.html, email.text]) {
      expect(part).toContain('1.234,50 €');
      expect(part).toContain('21.11.2026, 15:05');
    }
  });

  it('ja-JP: JPY without minor units and the Japanese date order in both parts', () => {
    const email = renderOrderConfirmation(
      order({
        currency: 'JPY',
        subtotal: 1235,
        total: 1235,
        items: [item({ price: 1235, total: 1235 })],
        customer: { name: '山田太郎', email: 'taro@example.jp', locale: 'ja-JP' },
      }),
      { ...context, zone: 'Asia/Tokyo' },
    );
    expect(email.locale).toBe('ja-JP');
    for (const part of [email.html, email.text]) {
      expect(part).toContain('￥1,235');
      expect(part).toContain('2026/11/21 23:05');
      expect(part).toContain('山田太郎');
    }
  });

  it('falls back to the account locale when the customer has none or an unusable one', () => {
    const germanAccount = { ...context, accountLocale: 'de-DE' };
    expect(renderOrderConfirmation(order(), germanAccount).locale).toBe('de-DE');
    const bad = order({ customer: { name: null, email: 'x@example.org', locale: 'not a locale!' } });
    const email = renderOrderConfirmation(bad, germanAccount);
    expect(email.locale).toBe('de-DE');
    expect(email.text).toContain('49,00 $');
  });

  it('localises quantities but keeps the wording English', () => {
    const email = renderOrderConfirmation(
      order({ currency: 'EUR', items: [item({ quantity: 1000, price: 0.05, total: 50 })], subtotal: 50, total: 50 }),
      { ...context, accountLocale: 'de-DE' },
    );
    expect(email.text).toContain('1.000 x 0,05 €');
    expect(email.text).toContain('Thank you for your order');
    expect(email.html).toContain('<html lang="en">');
  });
});

describe('subject', () => {
  it('names the order and the company', () => {
    expect(renderOrderConfirmation(order(), context).subject).toBe('Your order 3HE81X8T8P1B from Acme Software');
  });

  it('is prefixed with [TEST] in test mode, and the body says so', () => {
    const email = renderOrderConfirmation(order(), { ...context, test: true });
    expect(email.subject).toBe('[TEST] Your order 3HE81X8T8P1B from Acme Software');
    expect(email.html).toContain('TEST ORDER');
    expect(email.text).toContain('TEST ORDER');
    const live = renderOrderConfirmation(order(), context);
    expect(live.html).not.toContain('TEST ORDER');
    expect(live.text).not.toContain('TEST ORDER');
  });

  it('cannot carry a line break into the mail header', () => {
    const email = renderOrderConfirmation(order(), { ...context, companyName: 'Acme\r\nBcc: victim@example.org' });
    expect(email.subject).toBe('Your order 3HE81X8T8P1B from Acme Bcc: victim@example.org');
    expect(email.subject).not.toMatch(/[\r\n]/);
  });
});

describe('escaping', () => {
  const hostile = '<img src=x onerror=alert(1)>';
  const email = renderOrderConfirmation(
    order({
      order_id: '3HE81X8T8P1B',
      promotion_code: '<b>CODE</b>',
      discount: 5,
      items: [item({ name: `<script>alert("item")</script>`, license: { ...serialLicense, label: hostile, instructions: `<p>${hostile}</p>` } })],
      shipping_item: { name: hostile, total: 4 },
      shipping: 4,
      customer: { name: hostile, email: 'ana@example.org', locale: null },
      billing_address: { name: hostile, address_1: '"quoted" & <b>', city: 'Springfield', country: 'US' },
    }),
    { ...context, companyName: `Evil "Co" <i>`, supportEmail: `x@y.test"><script>alert(1)</script>`, receiptUrl: 'https://acme.test/r?a=1&b=2' },
  );

  it('escapes hostile names everywhere in the HTML', () => {
    expect(email.html).not.toContain('<img');
    expect(email.html).not.toContain('<script');
    expect(email.html).toContain('Hi &lt;img src=x onerror=alert(1)&gt;,');
    expect(email.html).toContain('&lt;script&gt;alert(&quot;item&quot;)&lt;/script&gt;');
    expect(email.html).toContain('Evil &quot;Co&quot; &lt;i&gt;');
    expect(email.html).toContain('Discount (&lt;b&gt;CODE&lt;/b&gt;)');
    expect(email.html).toContain('&quot;quoted&quot; &amp; &lt;b&gt;');
  });

  it('produces only the email’s own tags, with no event handlers or external resources', () => {
    for (const name of tagNames(email.html.replace('<!DOCTYPE html>', ''))) expect(EMAIL_TAGS).toContain(name);
    for (const tag of tags(email.html)) {
      expect(tag).not.toMatch(/\son\w+\s*=/i);
      expect(tag).not.toMatch(/\ssrc\s*=/i);
    }
    expect(email.html).not.toMatch(/<link|<img|<script|url\(/i);
  });

  it('escapes attribute values of links it builds', () => {
    expect(email.html).toContain('href="https://acme.test/r?a=1&amp;b=2"');
    expect(email.html).toContain('href="mailto:x@y.test&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('shows the names as written in the text part', () => {
    expect(email.text).toContain(`Hi ${hostile},`);
    expect(email.text).toContain('<script>alert("item")</script>');
  });
});

describe('licenses', () => {
  it('shows the label, the code as HTML and the instructions as escaped text', () => {
    const email = renderOrderConfirmation(order({ items: [item({ license: serialLicense })] }), context);
    expect(email.html).toContain('Serial number');
    expect(email.html).toContain('Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs');
    expect(email.html).toContain('Open Help &gt; Register and paste the serial number.');
    expect(email.html).not.toContain('<p>Open');
  });

  it('re-sanitises license HTML (licenses.md §5.4): tags with attributes, <script> and other tags removed, <br> kept', () => {
    const license = {
      ...serialLicense,
      html: '<b class="k" onclick="steal()">PE-1</b><br/>line 2<script>alert(1)</script><img src=x onerror=alert(2)><i>open',
    };
    const email = renderOrderConfirmation(order({ items: [item({ license })] }), context);
    expect(email.html).toContain('PE-1<br>line 2<i>open</i>');
    expect(email.html).not.toContain('onclick');
    expect(email.html).not.toContain('<script');
    expect(email.html).not.toContain('<img');
  });

  it('renders license codes as plain lines in the text part, one code per line', () => {
    const email = renderOrderConfirmation(order({ items: [item({ license: serialLicense })] }), context);
    expect(email.text).toContain('  Serial number:\n    Serial: PE-4471-AZQ\n    Valid for 2 PCs\n');
    expect(email.text).toContain('Open Help > Register and paste the serial number.');
    expect(email.text).not.toMatch(/<\/?(?:b|br|p)>/);
  });

  it('derives the text from the HTML when no plain form is given (<br> → newline, tags stripped)', () => {
    const perQuantity = { label: null, text: null, html: 'FP-7Q2K-9XZ4<br>FP-3M8T-1RWD<br><strong>FP-0000</strong> &amp; more', instructions: null };
    const email = renderOrderConfirmation(order({ items: [item({ quantity: 3, license: perQuantity })] }), context);
    expect(email.text).toContain('  License:\n    FP-7Q2K-9XZ4\n    FP-3M8T-1RWD\n    FP-0000 & more\n');
    expect(email.html).toContain('FP-7Q2K-9XZ4<br>FP-3M8T-1RWD<br><strong>FP-0000</strong> &amp; more');
  });

  it('escapes a plain-text-only license for the HTML part', () => {
    const license = { label: 'Key', text: 'K-1 <beta>\nK-2', html: null, instructions: null };
    const email = renderOrderConfirmation(order({ items: [item({ license })] }), context);
    expect(email.html).toContain('K-1 &lt;beta&gt;<br>K-2');
    expect(email.text).toContain('    K-1 <beta>\n    K-2');
  });

  it('keeps long codes whole in the text part', () => {
    const code = `KEY-${'X'.repeat(120)}`;
    const email = renderOrderConfirmation(order({ items: [item({ license: { ...serialLicense, text: code, html: code } })] }), context);
    expect(email.text).toContain(`    ${code}\n`);
  });

  it('shows a note instead of a code for a failed request (no code), with label and instructions', () => {
    const failed = { label: 'Activation code', text: null, html: null, instructions: 'Activate in <b>Settings</b>.' };
    const email = renderOrderConfirmation(order({ items: [item({ license: failed })] }), context);
    for (const part of [email.html, email.text]) {
      expect(part).toContain('Activation code');
      expect(part).toContain('The code for this item will follow in a separate email.');
      expect(part).toContain('Activate in Settings.');
    }
  });

  it('shows no license block for items without a license', () => {
    const email = renderOrderConfirmation(order(), context);
    expect(email.html).not.toContain('License');
    expect(email.text).not.toContain('License');
  });
});

describe('confirmationReady (licenses.md §9: the email is held while a license is pending)', () => {
  it('is false while any item has a pending license and true once none is pending', () => {
    const pending = order({ items: [item({ license: serialLicense }), item({ item_id: 'font-pack', license_pending: true })] });
    expect(confirmationReady(pending)).toBe(false);
    const done = order({ items: [item({ license: serialLicense }), item({ item_id: 'font-pack', license: serialLicense })] });
    expect(confirmationReady(done)).toBe(true);
  });

  it('is true for orders without licenses', () => {
    expect(confirmationReady(order())).toBe(true);
    expect(confirmationReady(order({ items: [] }))).toBe(true);
  });

  it('still renders a pending item safely, with the follow-up note', () => {
    const email = renderOrderConfirmation(order({ items: [item({ license_pending: true })] }), context);
    expect(email.text).toContain('  License:\n    The code for this item will follow in a separate email.');
  });
});

describe('totals', () => {
  it('shows the discount with the promotion code only when non-zero', () => {
    const discounted = renderOrderConfirmation(
      order({ discount: 5, promotion_code: 'SAVE5', subtotal: 44, total: 44, items: [item({ price: 44, total: 44 })] }),
      context,
    );
    for (const part of [discounted.html, discounted.text]) {
      expect(part).toContain('Discount (SAVE5), included above');
      expect(part).toContain('-$5.00');
    }
    const plain = renderOrderConfirmation(order({ promotion_code: 'SAVE5' }), context);
    expect(plain.html).not.toContain('Discount');
    expect(plain.text).not.toContain('Discount');
  });

  it('shows shipping only when the order has a shipping line or a shipping amount', () => {
    const shipped = renderOrderConfirmation(
      order({ shipping: 4.9, total: 53.9, shipping_item: { name: 'Standard', total: 4.9 } }),
      context,
    );
    expect(shipped.text).toMatch(/^Shipping \(Standard\) +\$4\.90$/m);
    expect(shipped.html).toContain('Shipping (Standard)');
    const free = renderOrderConfirmation(order({ shipping_item: { name: 'Free pickup', total: 0 } }), context);
    expect(free.text).toMatch(/^Shipping \(Free pickup\) +\$0\.00$/m);
    const digital = renderOrderConfirmation(order(), context);
    expect(digital.html).not.toContain('Shipping');
    expect(digital.text).not.toContain('Shipping');
  });

  it('adds tax before the total, or lists inclusive tax after it as "incl."', () => {
    const exclusive = renderOrderConfirmation(order({ tax: 9.8, total: 58.8 }), context).text;
    expect(exclusive).toMatch(/^Tax +\$9\.80\nTotal +\$58\.80$/m);
    const inclusive = renderOrderConfirmation(order({ tax: 8.17, tax_inclusive: true }), context);
    expect(inclusive.text).toMatch(/^Total +\$49\.00\nTax \(incl\.\) +\$8\.17$/m);
    expect(inclusive.html).toContain('Tax (incl.)');
  });

  it('shows the line subtotal as the line amount when given, so lines add up to the subtotal', () => {
    const email = renderOrderConfirmation(
      order({ subtotal: 20, tax: 4, total: 24, items: [item({ quantity: 2, price: 10, subtotal: 20, total: 24 })] }),
      context,
    );
    expect(email.text).toMatch(/^ {2}2 x \$10\.00 +\$20\.00$/m);
  });

  it('right-aligns amounts at 72 columns and wraps prose lines', () => {
    const email = renderOrderConfirmation(
      order({
        tax: 9.8,
        total: 58.8,
        items: [item({ name: 'A very long product name '.repeat(6).trim() })],
        billing_address: { name: 'Ana Ruiz', address_1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
      }),
      { ...context, receiptUrl: 'https://acme.test/receipts/3HE81X8T8P1B' },
    );
    const lines = email.text.split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(72);
    for (const label of ['Subtotal', 'Tax', 'Total']) {
      const line = lines.find((l) => l.startsWith(`${label} `));
      expect(line).toHaveLength(72);
    }
    expect(email.text).toContain('Billing address\n  Ana Ruiz\n  Hauptstr. 1\n  10115 Berlin\n  Germany\n');
    expect(email.text).toContain('View your receipt:\nhttps://acme.test/receipts/3HE81X8T8P1B');
  });
});

describe('links and footer', () => {
  it('links the receipt only for http(s) addresses', () => {
    expect(renderOrderConfirmation(order(), { ...context, receiptUrl: 'https://acme.test/r/1' }).html).toContain(
      '<a href="https://acme.test/r/1"',
    );
    const bad = renderOrderConfirmation(order(), { ...context, receiptUrl: 'javascript:alert(1)' });
    expect(bad.html).not.toContain('javascript:');
    expect(bad.text).not.toContain('javascript:');
  });

  it('names the support address, or the company when there is none', () => {
    const email = renderOrderConfirmation(order(), context);
    expect(email.html).toContain('<a href="mailto:help@acme.test"');
    expect(email.text).toContain('Contact us at help@acme.test.');
    const none = renderOrderConfirmation(order(), { ...context, supportEmail: null });
    expect(none.text).toContain('Please contact Acme Software');
    expect(none.html).not.toContain('mailto:');
  });

  it('greets by name, or generically without one', () => {
    expect(renderOrderConfirmation(order(), context).text).toContain('Hi Ana Ruiz,');
    const anonymous = order({ customer: { name: '  ', email: 'x@example.org', locale: null } });
    expect(renderOrderConfirmation(anonymous, context).text).toContain('Hello,');
  });
});

describe('no undefined, null or NaN in any part', () => {
  const FORBIDDEN = /\b(?:undefined|null|NaN)\b/;

  it('with every optional field missing or null', () => {
    const sparse = order({
      customer: { name: null, email: 'x@example.org', locale: null },
      promotion_code: null,
      shipping_item: null,
      items: [
        item({ license: { text: null, html: null, instructions: null } }),
        item({ item_id: 'b', license: { label: null, text: 'K-1', html: null, instructions: null } }),
        item({ item_id: 'c', license_pending: true }),
      ],
    });
    delete sparse.billing_address;
    const email = renderOrderConfirmation(sparse, { ...context, supportEmail: null, receiptUrl: null, test: true });
    expect(everything(email)).not.toMatch(FORBIDDEN);
  });

  it('with a full order in each locale', () => {
    for (const locale of ['en-US', 'de-DE', 'ja-JP']) {
      const full = order({
        currency: 'EUR',
        discount: 5,
        promotion_code: 'SAVE5',
        shipping: 4.9,
        shipping_item: { name: 'Standard', total: 4.9 },
        tax: 8,
        total: 56.9,
        items: [item({ license: serialLicense })],
        customer: { name: 'Ana', email: 'ana@example.org', locale },
        billing_address: { name: null, address_1: null, address_2: null, city: null, state_prov: null, postal_code: null, country: null },
      });
      expect(everything(renderOrderConfirmation(full, { ...context, receiptUrl: 'https://acme.test/r' }))).not.toMatch(FORBIDDEN);
    }
  });

  it('with broken numbers and an unusable zone', () => {
    const broken = order({ tax: Number.NaN, total: Number.POSITIVE_INFINITY, date_created_ms: Number.NaN, items: [item({ quantity: Number.NaN })] });
    const email = renderOrderConfirmation(broken, context);
    expect(everything(email)).not.toMatch(FORBIDDEN);
    expect(everything(email)).not.toContain('Infinity');
    const zoned = renderOrderConfirmation(order(), { ...context, zone: 'Mars/Olympus' });
    expect(zoned.text).toContain('Nov 21, 2026, 2:05 PM UTC');
  });
});
