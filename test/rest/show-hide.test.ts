/** `show` and `hide` on serialized resources (conventions.md 11). */
import { describe, expect, it } from 'vitest';
import { ApiError, InvalidInputError } from '../../shared/http/errors';
import { parsePathList } from '../../shared/rest/paths';
import { applyShowHide, applyShowHideToList, parseShowHide } from '../../shared/rest/show-hide';

const BASE = 'https://api.example.test/api/v1';

/** A cart after `expand=customer,payments`, with `formatted=true`. */
function cart(): Record<string, unknown> {
  return {
    object: 'cart',
    url: `${BASE}/carts/C1`,
    cart_id: 'C1',
    status: 'open',
    total: 30,
    subtotal: 25,
    currency: 'USD',
    date_created: '2026-01-02T03:04:05Z',
    items: [
      {
        object: 'item',
        url: `${BASE}/carts/C1/items/I1`,
        item_id: 'I1',
        product: `${BASE}/products/P1`,
        quantity: 1,
        amount: 10,
        date_created: '2026-01-02T03:04:05Z',
        formatted: { amount: '$10.00', date_created: 'Jan 2, 2026, 3:04 AM' },
      },
      {
        object: 'item',
        url: `${BASE}/carts/C1/items/I2`,
        item_id: 'I2',
        product: `${BASE}/products/P2`,
        quantity: 3,
        amount: 15,
        date_created: '2026-01-03T03:04:05Z',
        formatted: { amount: '$15.00', date_created: 'Jan 3, 2026, 3:04 AM' },
      },
    ],
    customer: {
      object: 'customer',
      url: `${BASE}/customers/K1`,
      customer_id: 'K1',
      email: 'a@example.test',
      name: 'Ada',
      date_created: '2025-12-01T00:00:00Z',
      orders: `${BASE}/customers/K1/orders`,
      address: { country: 'DE', city: 'Berlin', formatted: { country: 'Germany' } },
      formatted: { date_created: 'Dec 1, 2025, 12:00 AM' },
    },
    payments: {
      object: 'list',
      url: `${BASE}/carts/C1/payments`,
      total_items: 2,
      total_pages: 1,
      current_page: 1,
      data: [
        {
          object: 'payment',
          url: `${BASE}/payments/Y1`,
          payment_id: 'Y1',
          amount: 20,
          status: 'paid',
          payment_method: { object: 'payment_method', url: `${BASE}/payment-methods/M1`, type: 'card', last4: '4242', formatted: { type: 'Card' } },
          formatted: { amount: '$20.00' },
        },
        {
          object: 'payment',
          url: `${BASE}/payments/Y2`,
          payment_id: 'Y2',
          amount: 10,
          status: 'pending',
          payment_method: null,
          formatted: { amount: '$10.00' },
        },
      ],
    },
    promotion: null,
    formatted: { total: '$30.00', subtotal: '$25.00', date_created: 'Jan 2, 2026, 3:04 AM' },
  };
}

const show = (raw: string) => ({ show: parsePathList(raw)! });
const hide = (raw: string) => ({ hide: parsePathList(raw)! });

describe('parseShowHide', () => {
  it('gives nothing when neither is sent or both are empty', () => {
    expect(parseShowHide({})).toEqual({});
    expect(parseShowHide({ show: '', hide: '' })).toEqual({});
    expect(parseShowHide({ show: ' ', hide: ',' })).toEqual({});
  });

  it('parses show or hide alone', () => {
    expect(parseShowHide({ show: 'total,items.amount' })).toEqual({ show: { total: {}, items: { amount: {} } } });
    expect(parseShowHide({ hide: 'customer' })).toEqual({ hide: { customer: {} } });
  });

  it('accepts one non-empty value with the other empty (clients that always send hide=)', () => {
    expect(parseShowHide({ show: 'total', hide: '' })).toEqual({ show: { total: {} } });
    expect(parseShowHide({ show: '', hide: 'x' })).toEqual({ hide: { x: {} } });
    expect(parseShowHide({ show: 'total', hide: '  ' })).toEqual({ show: { total: {} } });
  });

  it('rejects both non-empty with 400 invalid_input and the conflict meta', () => {
    let caught: unknown;
    try {
      parseShowHide({ show: 'total', hide: 'items' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputError);
    const error = caught as ApiError;
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe('show and hide cannot be used together.');
    expect(error.meta).toEqual({ parameter: 'hide', reason: 'conflict', conflicts_with: 'show' });
  });

  it('counts a value of only odd tokens as non-empty', () => {
    expect(() => parseShowHide({ show: 'total', hide: 'in_grace_period;' })).toThrow(InvalidInputError);
  });
});

describe('applyShowHide: show', () => {
  it('returns the whole value of a named property', () => {
    const out = applyShowHide(cart(), show('customer'));
    expect(out).toEqual({ url: `${BASE}/carts/C1`, customer: cart().customer });
  });

  it('trims a property to the named sub-path (a.b)', () => {
    const out = applyShowHide(cart(), show('customer.email'));
    expect(out).toEqual({ url: `${BASE}/carts/C1`, customer: { email: 'a@example.test' } });
  });

  it('treats a.* as the whole of a', () => {
    expect(applyShowHide(cart(), show('customer.*'))).toEqual(applyShowHide(cart(), show('customer')));
  });

  it('always keeps the top-level url, but not nested urls', () => {
    const out = applyShowHide(cart(), show('status,customer.name'));
    expect(out).toEqual({ url: `${BASE}/carts/C1`, status: 'open', customer: { name: 'Ada' } });
  });

  it('keeps properties in the resource order, not the show order', () => {
    expect(Object.keys(applyShowHide(cart(), show('status,cart_id,object')))).toEqual(['object', 'url', 'cart_id', 'status']);
  });

  it('crosses arrays: each item is trimmed the same way, with its formatted twin', () => {
    const out = applyShowHide(cart(), show('items.date_created'));
    expect(out).toEqual({
      url: `${BASE}/carts/C1`,
      items: [
        { date_created: '2026-01-02T03:04:05Z', formatted: { date_created: 'Jan 2, 2026, 3:04 AM' } },
        { date_created: '2026-01-03T03:04:05Z', formatted: { date_created: 'Jan 3, 2026, 3:04 AM' } },
      ],
    });
  });

  it('crosses expanded relations several levels deep', () => {
    const out = applyShowHide(cart(), show('customer.address.country'));
    expect(out).toEqual({ url: `${BASE}/carts/C1`, customer: { address: { country: 'DE', formatted: { country: 'Germany' } } } });
  });

  it('crosses nested list envelopes and keeps their envelope fields', () => {
    const out = applyShowHide(cart(), show('payments.amount'));
    expect(out).toEqual({
      url: `${BASE}/carts/C1`,
      payments: {
        object: 'list',
        url: `${BASE}/carts/C1/payments`,
        total_items: 2,
        total_pages: 1,
        current_page: 1,
        data: [
          { amount: 20, formatted: { amount: '$20.00' } },
          { amount: 10, formatted: { amount: '$10.00' } },
        ],
      },
    });
  });

  it('accepts the long form through data and goes on into relations of list elements', () => {
    const short = applyShowHide(cart(), show('payments.payment_method.type'));
    expect(applyShowHide(cart(), show('payments.data.payment_method.type'))).toEqual(short);
    const payments = short.payments as { data: unknown[] };
    expect(payments.data).toEqual([{ payment_method: { type: 'card', formatted: { type: 'Card' } } }, { payment_method: null }]);
  });

  it('keeps an unexpanded link or null as it is when a path goes into it', () => {
    const out = applyShowHide(cart(), show('items.product.name,promotion.code'));
    expect(out).toEqual({
      url: `${BASE}/carts/C1`,
      items: [{ product: `${BASE}/products/P1` }, { product: `${BASE}/products/P2` }],
      promotion: null,
    });
  });

  describe('formatted twins', () => {
    it('showing a property keeps its twin (and formatted itself)', () => {
      expect(applyShowHide(cart(), show('total'))).toEqual({ url: `${BASE}/carts/C1`, total: 30, formatted: { total: '$30.00' } });
    });

    it('collects the twins of several shown properties', () => {
      expect(applyShowHide(cart(), show('total,subtotal,currency'))).toEqual({
        url: `${BASE}/carts/C1`,
        total: 30,
        subtotal: 25,
        currency: 'USD',
        formatted: { total: '$30.00', subtotal: '$25.00' },
      });
    });

    it('leaves formatted out when no shown property has a twin', () => {
      expect(applyShowHide(cart(), show('status'))).toEqual({ url: `${BASE}/carts/C1`, status: 'open' });
    });

    it('show=formatted keeps the whole formatted object', () => {
      expect(applyShowHide(cart(), show('formatted'))).toEqual({ url: `${BASE}/carts/C1`, formatted: cart().formatted });
    });

    it('show=formatted.total keeps only that twin', () => {
      expect(applyShowHide(cart(), show('formatted.total'))).toEqual({ url: `${BASE}/carts/C1`, formatted: { total: '$30.00' } });
    });

    it('combines a named formatted path with twins of shown properties', () => {
      expect(applyShowHide(cart(), show('formatted.date_created,subtotal'))).toEqual({
        url: `${BASE}/carts/C1`,
        subtotal: 25,
        formatted: { subtotal: '$25.00', date_created: 'Jan 2, 2026, 3:04 AM' },
      });
    });

    it('applies at every level, for example inside items', () => {
      const out = applyShowHide(cart(), show('items.formatted'));
      expect(out.items).toEqual([
        { formatted: { amount: '$10.00', date_created: 'Jan 2, 2026, 3:04 AM' } },
        { formatted: { amount: '$15.00', date_created: 'Jan 3, 2026, 3:04 AM' } },
      ]);
    });
  });

  it('gives only the url when show names only unknown properties', () => {
    expect(applyShowHide(cart(), show('nope,also_nope.x'))).toEqual({ url: `${BASE}/carts/C1` });
  });

  it('ignores odd tokens and applies the rest', () => {
    expect(applyShowHide(cart(), show('status,in_grace_period;,a..b'))).toEqual({ url: `${BASE}/carts/C1`, status: 'open' });
    expect(applyShowHide(cart(), show('in_grace_period;'))).toEqual({ url: `${BASE}/carts/C1` });
  });

  it('goes as deep as the path, past four segments', () => {
    const resource = { url: 'u', cart: { items: [{ product: { images: { link_square: 's', link_large: 'l' }, name: 'n' } }] } };
    expect(applyShowHide(resource, show('cart.items.product.images.link_square'))).toEqual({
      url: 'u',
      cart: { items: [{ product: { images: { link_square: 's' } } }] },
    });
  });
});

describe('applyShowHide: hide', () => {
  it('removes a named property', () => {
    const out = applyShowHide(cart(), hide('customer,payments,items'));
    const expected = cart();
    delete expected.customer;
    delete expected.payments;
    delete expected.items;
    expect(out).toEqual(expected);
  });

  it('removes a sub-path and keeps the rest of the parent', () => {
    const out = applyShowHide(cart(), hide('customer.email,customer.address'));
    const { email: _email, address: _address, ...rest } = cart().customer as Record<string, unknown>;
    expect(out.customer).toEqual(rest);
  });

  it('crosses arrays and removes the twin in each item', () => {
    const out = applyShowHide(cart(), hide('items.amount'));
    expect(out.items).toEqual(
      (cart().items as Record<string, unknown>[]).map(({ amount: _amount, formatted, ...item }) => ({
        ...item,
        formatted: { date_created: (formatted as Record<string, unknown>).date_created },
      })),
    );
  });

  it('crosses nested list envelopes and keeps their envelope fields', () => {
    const out = applyShowHide(cart(), hide('payments.payment_method,payments.formatted'));
    const payments = out.payments as Record<string, unknown>;
    expect(payments).toMatchObject({ object: 'list', url: `${BASE}/carts/C1/payments`, total_items: 2, total_pages: 1, current_page: 1 });
    expect(payments.data).toEqual([
      { object: 'payment', url: `${BASE}/payments/Y1`, payment_id: 'Y1', amount: 20, status: 'paid' },
      { object: 'payment', url: `${BASE}/payments/Y2`, payment_id: 'Y2', amount: 10, status: 'pending' },
    ]);
  });

  it('hiding a property removes its twin but keeps formatted', () => {
    const out = applyShowHide(cart(), hide('total'));
    expect(out.total).toBeUndefined();
    expect(out.formatted).toEqual({ subtotal: '$25.00', date_created: 'Jan 2, 2026, 3:04 AM' });
  });

  it('hide=formatted removes the whole formatted object, only at that level', () => {
    const out = applyShowHide(cart(), hide('formatted'));
    expect(out).not.toHaveProperty('formatted');
    expect(out.total).toBe(30);
    expect((out.customer as Record<string, unknown>).formatted).toEqual({ date_created: 'Dec 1, 2025, 12:00 AM' });
  });

  it('hide=formatted.total removes only that twin', () => {
    const out = applyShowHide(cart(), hide('formatted.total'));
    expect(out.total).toBe(30);
    expect(out.formatted).toEqual({ subtotal: '$25.00', date_created: 'Jan 2, 2026, 3:04 AM' });
  });

  it('is a no-op for paths that do not exist', () => {
    expect(applyShowHide(cart(), hide('nope,customer.nope,items.nope.deeper,promotion.code,status.x'))).toEqual(cart());
  });

  it('keeps the top-level url, but hides nested urls', () => {
    const out = applyShowHide(cart(), hide('url,customer.url'));
    expect(out.url).toBe(`${BASE}/carts/C1`);
    expect(out.customer).not.toHaveProperty('url');
  });

  it('ignores odd tokens', () => {
    const out = applyShowHide(cart(), hide('status,in_grace_period;'));
    const expected = cart();
    delete expected.status;
    expect(out).toEqual(expected);
  });
});

describe('applyShowHide: values', () => {
  it('never mutates the input and returns a new object', () => {
    const input = cart();
    const snapshot = structuredClone(input);
    for (const spec of [show('items.amount,payments.amount,customer.email'), hide('items.amount,payments.status,total,formatted'), {}]) {
      const out = applyShowHide(input, spec);
      expect(out).not.toBe(input);
    }
    expect(input).toEqual(snapshot);
  });

  it('returns a copy equal to the input without show or hide', () => {
    expect(applyShowHide(cart(), {})).toEqual(cart());
  });

  it('gives the same answer when the same parsed spec is used again', () => {
    const spec = show('items.amount');
    expect(applyShowHide(cart(), spec)).toEqual(applyShowHide(cart(), spec));
  });
});

describe('applyShowHideToList', () => {
  const list = () => ({
    object: 'list',
    total_items: 2,
    total_pages: 1,
    current_page: 1,
    next_page_url: null,
    current_page_url: `${BASE}/carts`,
    data: [cart(), { ...cart(), url: `${BASE}/carts/C2`, cart_id: 'C2', total: 5 }],
  });

  it('applies show to each element, keeping envelope fields and each element url', () => {
    const out = applyShowHideToList(list(), show('total'));
    const { data: _data, ...envelope } = list();
    expect(out).toEqual({
      ...envelope,
      data: [
        { url: `${BASE}/carts/C1`, total: 30, formatted: { total: '$30.00' } },
        { url: `${BASE}/carts/C2`, total: 5, formatted: { total: '$30.00' } },
      ],
    });
  });

  it('accepts a leading data. in the path', () => {
    expect(applyShowHideToList(list(), show('data.total'))).toEqual(applyShowHideToList(list(), show('total')));
  });

  it('does not let show or hide touch envelope fields', () => {
    const out = applyShowHideToList(list(), hide('total_items,current_page_url'));
    expect(out.total_items).toBe(2);
    expect(out.current_page_url).toBe(`${BASE}/carts`);
    const shown = applyShowHideToList(list(), show('status'));
    expect(shown).toMatchObject({ object: 'list', total_items: 2, total_pages: 1, current_page: 1, next_page_url: null });
  });

  it('applies hide to each element', () => {
    const out = applyShowHideToList(list(), hide('customer,items,payments,formatted'));
    for (const element of out.data as Record<string, unknown>[]) {
      expect(Object.keys(element)).toEqual(['object', 'url', 'cart_id', 'status', 'total', 'subtotal', 'currency', 'date_created', 'promotion']);
    }
  });

  it('never mutates the list', () => {
    const input = list();
    const snapshot = structuredClone(input);
    const out = applyShowHideToList(input, show('total'));
    expect(out).not.toBe(input);
    expect(out.data).not.toBe(input.data);
    expect(input).toEqual(snapshot);
  });
});
