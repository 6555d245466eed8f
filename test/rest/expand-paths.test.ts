/** Parsing of `expand`, `show` and `hide` path lists (conventions.md 10, 11 and 20). */
import { describe, expect, it } from 'vitest';
import { EXPAND_LIMITS, expandEntries, parseExpand, parsePathList, withLegacyOptions } from '../../shared/rest/paths';

const names = (count: number, prefix = 'p') => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

describe('EXPAND_LIMITS (conventions.md 20)', () => {
  it('is 12 single, 2 list, 10 event subscription, depth 4', () => {
    expect(EXPAND_LIMITS).toEqual({ single: 12, list: 2, event_subscription: 10, depth: 4 });
  });
});

describe('parseExpand', () => {
  it('builds a tree from comma-separated dot paths', () => {
    expect(parseExpand('items.product,customer.payment_methods,options', 'single')).toEqual({
      items: { product: {} },
      customer: { payment_methods: {} },
      options: {},
    });
  });

  it('merges paths that share a prefix; the shorter one adds nothing', () => {
    expect(parseExpand('items,items.product,items.product.images', 'single')).toEqual({
      items: { product: { images: {} } },
    });
    expect(parseExpand('items.product.images,items', 'single')).toEqual({ items: { product: { images: {} } } });
  });

  it('treats absent, empty and comma-only values as no expansion', () => {
    for (const raw of [undefined, '', ' ', ',', ',,,', ' , , ']) {
      expect(parseExpand(raw, 'single')).toEqual({});
      expect(expandEntries(raw, 'single')).toEqual([]);
    }
  });

  it('trims entries and drops empty ones, including leading and trailing commas', () => {
    expect(expandEntries(',  items.product , ,customer,', 'single')).toEqual(['items.product', 'customer']);
  });

  it('ignores malformed entries as a whole and keeps the rest', () => {
    const raw = 'a..b,c.d;,.e,f.,in_grace_period;,ite ms,items[0],customer,*,items.*,x-y,__proto__,items.product';
    expect(expandEntries(raw, 'single')).toEqual(['customer', 'items.product']);
    expect(parseExpand(raw, 'single')).toEqual({ customer: {}, items: { product: {} } });
  });

  it('never throws, whatever the value', () => {
    for (const raw of ['%%%', '....', '\u0000', 'a'.repeat(10_000), ','.repeat(1000), 'constructor.toString']) {
      expect(() => parseExpand(raw, 'list')).not.toThrow();
    }
    // Names that exist on Object.prototype are plain keys here.
    expect(parseExpand('constructor.toString', 'single')).toEqual({ constructor: { toString: {} } });
  });

  it('strips a leading data. on lists and data segments anywhere', () => {
    expect(expandEntries('data.customer', 'list')).toEqual(['customer']);
    expect(expandEntries('payments.data.payment_method', 'single')).toEqual(['payments.payment_method']);
    expect(parseExpand('data.payments.data.payment_method', 'list')).toEqual({ payments: { payment_method: {} } });
  });

  it('drops an entry that is only data segments', () => {
    expect(expandEntries('data,data.data,customer', 'list')).toEqual(['customer']);
  });

  it('counts entries equal after data stripping as duplicates', () => {
    expect(expandEntries('payments.data.payment_method,payments.payment_method,data.payments.payment_method', 'single')).toEqual([
      'payments.payment_method',
    ]);
  });

  describe('depth', () => {
    it('keeps four segments and ignores the ones past the fourth', () => {
      expect(expandEntries('a.b.c.d', 'single')).toEqual(['a.b.c.d']);
      expect(expandEntries('a.b.c.d.e.f', 'single')).toEqual(['a.b.c.d']);
      expect(parseExpand('a.b.c.d.e', 'single')).toEqual({ a: { b: { c: { d: {} } } } });
    });

    it('does not count data segments', () => {
      expect(expandEntries('data.a.data.b.c.data.d.e', 'list')).toEqual(['a.b.c.d']);
    });

    it('dedupes entries that become equal once truncated', () => {
      expect(expandEntries('a.b.c.d.e,a.b.c.d.f,a.b.c.d', 'single')).toEqual(['a.b.c.d']);
    });
  });

  describe('limits by context', () => {
    it('keeps 12 entries on a single resource and drops the excess from the end', () => {
      expect(expandEntries(names(14).join(','), 'single')).toEqual(names(12));
    });

    it('keeps 2 entries on a list', () => {
      expect(expandEntries('customer,items.product,payments', 'list')).toEqual(['customer', 'items.product']);
      expect(parseExpand('customer,items.product,payments', 'list')).toEqual({ customer: {}, items: { product: {} } });
    });

    it('keeps 10 entries on an event subscription', () => {
      expect(expandEntries(names(11).join(','), 'event_subscription')).toEqual(names(10));
    });

    it('counts after trimming, dropping empties and removing duplicates', () => {
      // Without dedupe, the third `customer` would push `payments` out.
      expect(expandEntries(' customer ,, customer,customer, payments ,items', 'list')).toEqual(['customer', 'payments']);
      const twelve = names(12);
      const raw = [',', ...twelve.slice(0, 6), ...twelve.slice(0, 6), '', ...twelve.slice(6), 'p13'].join(',');
      expect(expandEntries(raw, 'single')).toEqual(twelve);
    });

    it('does not let malformed entries take a slot', () => {
      expect(expandEntries('a..b,customer,bad;,items', 'list')).toEqual(['customer', 'items']);
    });

    it('counts a path and its prefix as two entries', () => {
      expect(expandEntries('items,items.product,customer', 'list')).toEqual(['items', 'items.product']);
    });
  });
});

describe('withLegacyOptions', () => {
  it('appends options when options=true or 1 (any case)', () => {
    for (const flag of ['true', 'TRUE', 'True', '1', ' true ']) {
      expect(withLegacyOptions('items.product', { options: flag })).toBe('items.product,options');
    }
  });

  it('gives options alone when expand is absent or empty', () => {
    expect(withLegacyOptions(undefined, { options: 'true' })).toBe('options');
    expect(withLegacyOptions('', { options: '1' })).toBe('options');
    expect(withLegacyOptions('  ', { options: '1' })).toBe('options');
  });

  it('leaves expand alone otherwise', () => {
    for (const flag of ['false', '0', '', 'yes']) {
      expect(withLegacyOptions('customer', { options: flag })).toBe('customer');
    }
    expect(withLegacyOptions('customer', {})).toBe('customer');
    expect(withLegacyOptions(undefined, {})).toBeUndefined();
  });

  it('does not double options already in expand once parsed', () => {
    expect(expandEntries(withLegacyOptions('options,customer', { options: 'true' }), 'single')).toEqual(['options', 'customer']);
  });

  it('is an entry like any other for the limit', () => {
    expect(expandEntries(withLegacyOptions('customer,items', { options: 'true' }), 'list')).toEqual(['customer', 'items']);
    expect(parseExpand(withLegacyOptions('customer', { options: 'true' }), 'single')).toEqual({ customer: {}, options: {} });
  });
});

describe('parsePathList (show and hide values)', () => {
  it('is undefined for absent and empty values', () => {
    for (const raw of [undefined, '', '  ', ',', ' , ,']) expect(parsePathList(raw)).toBeUndefined();
  });

  it('builds a tree of dot paths', () => {
    expect(parsePathList('total,items.date_created,customer.email')).toEqual({
      total: {},
      items: { date_created: {} },
      customer: { email: {} },
    });
  });

  it('treats a.* as a', () => {
    expect(parsePathList('customer.*')).toEqual({ customer: {} });
    expect(parsePathList('items.product.*')).toEqual({ items: { product: {} } });
    expect(parsePathList('customer.*')).toEqual(parsePathList('customer'));
  });

  it('lets the whole value win over a path into it, in either order', () => {
    expect(parsePathList('items,items.product')).toEqual({ items: {} });
    expect(parsePathList('items.product,items.quantity,items')).toEqual({ items: {} });
    expect(parsePathList('items.*,items.product')).toEqual({ items: {} });
  });

  it('does not limit depth (the contract example has five segments)', () => {
    expect(parsePathList('cart.items.product.images.link_square')).toEqual({
      cart: { items: { product: { images: { link_square: {} } } } },
    });
  });

  it('removes data segments like expand', () => {
    expect(parsePathList('data.total,payments.data.amount')).toEqual({ total: {}, payments: { amount: {} } });
  });

  it('drops odd tokens and keeps the rest', () => {
    expect(parsePathList('status,in_grace_period;,a..b,*,*.b,a.*.b,x y,items.product')).toEqual({
      status: {},
      items: { product: {} },
    });
  });

  it('gives an empty tree when every token is odd (a whitelist of nothing)', () => {
    expect(parsePathList('in_grace_period;')).toEqual({});
    expect(parsePathList('*')).toEqual({});
  });

  it('dedupes and never throws', () => {
    expect(parsePathList('total,total, total')).toEqual({ total: {} });
    expect(() => parsePathList('__proto__.polluted,%00,....')).not.toThrow();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
