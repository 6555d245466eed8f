/**
 * Promotions against the real local DynamoDB emulator: codes unique per account and mode
 * case-insensitively through their claim, lookups by code, the usability checks, carts that
 * apply codes and keep their terms on every re-price, and the use reservation that holds
 * `max_uses` when payments race.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../shared/platform/adapters/system-clock';
import { authenticate } from '../../../shared/modules/identity/authenticate';
import { issueToken } from '../../../shared/modules/identity/auths';
import { createProduct } from '../../../shared/modules/catalog/products';
import { productCreate } from '../../../shared/modules/catalog/product-schemas';
import { cartDeclaration, changeCart, changeCartLines, createCart, withTotals, type CartWriteContext } from '../../../shared/modules/carts/carts';
import { saveCart } from '../../../shared/modules/carts/cart-store';
import { cartCreate, cartUpdate } from '../../../shared/modules/carts/cart-schemas';
import { removeItem } from '../../../shared/modules/carts/items';
import type { CartRecord } from '../../../shared/modules/carts/types';
import { promotionProblem, recheckSalePromotion, resolvePromotionCode } from '../../../shared/modules/promotions';
import { promotionCreate, promotionUpdate } from '../../../shared/modules/promotions/promotion-schemas';
import { countUseWrite, releaseUseWrite, reserveUseWrite } from '../../../shared/modules/promotions/promotion-store';
import {
  createPromotion,
  findPromotion,
  findPromotionByCode,
  promotionDeclaration,
  promotionFields,
  savePromotion,
  type PromotionInputContext,
  type PromotionRecord,
} from '../../../shared/modules/promotions/promotions';
import { config } from '../../../shared/core/config';
import { parseInput } from '../../../shared/rest/validate';
import { configureStore, db, resetDb } from '../../../shared/store/client';
import { transact, TransactionRejectedError } from '../../../shared/store/entity';
import { getRecord, recordKey, retryOnConflict, type RecordScope } from '../../../shared/store/records';
import { emulatedStore, Harness, TABLE } from '../../local/fixtures/dynamo-harness';
import { paymentSettings, taxSettings } from '../pricing/fixtures';

const harness = new Harness();

/** One versioned write of a cart change over the version the cart was read at (what the cart actions retry). */
async function updateCart(current: CartRecord, body: Parameters<typeof changeCart>[1], context: CartWriteContext): Promise<CartRecord> {
  return saveCart(current, await changeCart(current, body, context), context.clock.nowMs(), { remember: true });
}

/** One versioned write of a change of a cart's lines (what the item actions retry). */
async function writeCartLines(current: CartRecord, ...change: Parameters<typeof changeCartLines> extends [CartRecord, ...infer Rest] ? Rest : never): Promise<CartRecord> {
  return saveCart(current, await changeCartLines(current, ...change), change[2].clock.nowMs(), { remember: true });
}
const scope = { accountId: 'ACCT', mode: 'test' as const };
const live = { accountId: 'ACCT', mode: 'live' as const };
const payment = paymentSettings({ currencies: ['USD', 'EUR'], exchange_rates: { EUR: 0.9 } });
const tax = taxSettings([{ country: 'US', state_prov: null, rate: 0.1 }]);
const input: PromotionInputContext = { payment, zone: 'UTC', now: Date.now() };
let write: CartWriteContext;

beforeAll(async () => {
  const { emulator } = await harness.startWithTable();
  configureStore(emulatedStore(emulator.endpoint));
  const { token } = await issueToken({ accountId: scope.accountId, mode: scope.mode, kind: 'secret', permissions: [] }, systemClock);
  write = { scope, principal: await authenticate(token, systemClock, config().rateLimits.perToken), payment, tax, clock: systemClock };
  for (const body of [
    { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] },
    { product_id: 'poster', name: 'Poster', type: 'digital', prices: [{ currency: 'USD', price: 10 }] },
  ]) {
    await createProduct(scope, productCreate.parse(body), payment, systemClock);
  }
});
afterAll(async () => {
  resetDb();
  await harness.cleanup();
});

const US = { billing_address: { country: 'US' } };
const origin = { ipAddress: '127.0.0.1', ipCountry: null };
let serial = 0;

/** A percent promotion with a fresh id and code. */
async function promotion(extra: Record<string, unknown> = {}, at: RecordScope = scope): Promise<PromotionRecord> {
  serial += 1;
  const body = promotionCreate.parse({ promotion_id: `promo-${serial}`, name: `Promo ${serial}`, code: `CODE${serial}`, discount_type: 'percent', discount_percent: 0.1, ...extra });
  return createPromotion(at, body, input, systemClock);
}

function stored(cartId: string): Promise<CartRecord> {
  return getRecord(cartDeclaration, scope, cartId);
}

async function edit(record: PromotionRecord, body: Record<string, unknown>): Promise<PromotionRecord> {
  return retryOnConflict(async () => {
    const current = (await findPromotion(scope, record.promotion_id))!;
    return savePromotion(current, promotionFields(promotionUpdate.parse(body), current, input), current.deleted, systemClock);
  });
}

describe('codes', () => {
  it('are unique per account and mode, case-insensitively (409 in_use), and found in any case', async () => {
    const first = await promotion({ code: 'Spring-10' });
    await expect(promotion({ code: 'SPRING-10' })).rejects.toMatchObject({ status: 409, code: 'in_use', meta: { property: 'code' } });
    // The other mode is a separate data set.
    expect((await promotion({ code: 'spring-10' }, live)).code).toBe('spring-10');
    expect((await findPromotionByCode(scope, 'spring-10'))?.promotion_id).toBe(first.promotion_id);
    expect((await findPromotionByCode(live, 'SPRING-10'))?.mode).toBe('live');
    expect(await findPromotionByCode(scope, 'spring 10')).toBeUndefined();
  });

  it('refuses a taken promotion id (409 in_use) without claiming its code', async () => {
    const first = await promotion();
    await expect(promotion({ promotion_id: first.promotion_id, code: 'FRESHCODE' })).rejects.toMatchObject({ status: 409, meta: { property: 'promotion_id' } });
    expect(await findPromotionByCode(scope, 'FRESHCODE')).toBeUndefined();
  });

  it('move with a code change and free the old code; a change of letter case keeps the claim', async () => {
    const record = await promotion({ code: 'OLDCODE' });
    const renamed = await edit(record, { code: 'NewCode' });
    expect(renamed.code).toBe('NewCode');
    expect(await findPromotionByCode(scope, 'oldcode')).toBeUndefined();
    expect((await findPromotionByCode(scope, 'NEWCODE'))?.promotion_id).toBe(record.promotion_id);
    expect((await edit(record, { code: 'NEWCODE' })).code).toBe('NEWCODE');
    expect((await findPromotionByCode(scope, 'newcode'))?.code).toBe('NEWCODE');
    // The freed code can be taken; a taken one cannot be moved onto.
    await promotion({ code: 'oldcode' });
    await expect(edit(record, { code: 'OLDCODE' })).rejects.toMatchObject({ status: 409, meta: { property: 'code' } });
    expect((await findPromotionByCode(scope, 'NEWCODE'))?.promotion_id).toBe(record.promotion_id);
  });

  it('stay claimed while soft-deleted, so a restore always works', async () => {
    const record = await promotion({ code: 'GONE' });
    const deleted = await savePromotion(record, record, true, systemClock);
    expect(deleted).toMatchObject({ deleted: true, active: false });
    await expect(promotion({ code: 'gone' })).rejects.toMatchObject({ status: 409 });
    const restored = await savePromotion(deleted, deleted, false, systemClock);
    expect(restored).toMatchObject({ deleted: false, active: false });
  });
});

describe('usability checks', () => {
  it('name the reason: not_found, inactive, expired, max_uses_reached', async () => {
    const now = Date.now();
    await expect(resolvePromotionCode(scope, 'NOSUCHCODE', now)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_promotion_code',
      meta: { property: 'promotion_code', reason: 'not_found' },
    });
    const inactive = await promotion({ active: false });
    await expect(resolvePromotionCode(scope, inactive.code, now)).rejects.toMatchObject({ meta: { reason: 'inactive' } });
    const expired = await promotion({ expires: new Date(now - 1000).toISOString() });
    await expect(resolvePromotionCode(scope, expired.code.toLowerCase(), now)).rejects.toMatchObject({ meta: { reason: 'expired' } });
    const used = await promotion({ max_uses: 1 });
    await transact([countUseWrite(scope, used.promotion_id)]);
    await expect(resolvePromotionCode(scope, used.code, now)).rejects.toMatchObject({ meta: { reason: 'max_uses_reached' } });
    const deleted = await promotion();
    await savePromotion(deleted, deleted, true, systemClock);
    await expect(resolvePromotionCode(scope, deleted.code, now)).rejects.toMatchObject({ meta: { reason: 'inactive' } });
  });

  it('count a promotion as valid through its expiry moment, and expired right after', async () => {
    const record = await promotion({ expires: '2030-01-01T00:00:00Z' });
    expect(promotionProblem(record, Date.parse('2030-01-01T00:00:00Z'))).toBeNull();
    expect(promotionProblem(record, Date.parse('2030-01-01T00:00:00.001Z'))).toBe('expired');
  });
});

describe('carts with a code', () => {
  it('store the promotion code and id, and price the discount', async () => {
    const record = await promotion({ code: 'Save10' });
    const cart = await createCart({ customer: US, items: [{ product_id: 'ebook', quantity: 2 }], promotion_code: 'save10' }, origin, write);
    expect(cart).toMatchObject({ promotion_code: 'Save10', promotion_id: record.promotion_id });
    expect(cart.totals).toMatchObject({ subtotal_original: 38, discount: 3.8, subtotal: 34.2, tax: 3.42, total: 37.62, total_original: 41.8 });
    expect(await stored(cart.cart_id)).toEqual(cart);
  });

  it('refuse a code that applies to no line (not_applicable) and save nothing', async () => {
    const record = await promotion({ product_ids: ['poster'] });
    await expect(createCart({ items: [{ product_id: 'ebook' }], promotion_code: record.code }, origin, write)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_promotion_code',
      meta: { reason: 'not_applicable' },
    });
    const cart = await createCart({ items: [{ product_id: 'ebook' }] }, origin, write);
    await expect(updateCart(cart, { promotion_code: record.code, meta: 'changed' }, write)).rejects.toMatchObject({ meta: { reason: 'not_applicable' } });
    expect(await stored(cart.cart_id)).toEqual(cart);
    // With the eligible line in the same write, it applies.
    const applied = await updateCart(cart, { promotion_code: record.code, items: [{ product_id: 'ebook' }, { product_id: 'poster' }] }, write);
    expect(applied.totals.items.map((line) => [line.item_id, line.discount])).toEqual([
      ['ebook', 0],
      ['poster', 1],
    ]);
  });

  it('re-price with the code on item writes, currency changes and the synchronous withTotals', async () => {
    const record = await promotion({ discount_type: 'amount', discount_amounts: [{ currency: 'USD', amount: 5 }] });
    const cart = await createCart({ customer: US, items: [{ product_id: 'ebook' }], promotion_code: record.code }, origin, write);
    expect(cart.totals).toMatchObject({ discount: 5, subtotal: 14 });
    const more = await updateCart(cart, { items: [{ product_id: 'ebook' }, { product_id: 'poster' }] }, write);
    // 5 over 19 : 10 → 3.28 / 1.72
    expect(more.totals.items.map((line) => line.discount)).toEqual([3.28, 1.72]);
    const eur = await updateCart(more, { currency: 'EUR' }, write);
    // 5 USD = 4.50 EUR
    expect(eur.totals).toMatchObject({ currency: 'EUR', discount: 4.5 });
    const exempt = withTotals({ ...eur, customer_tax_exempt: true }, payment, tax);
    expect(exempt.totals).toMatchObject({ discount: 4.5, tax: 0 });
    const fewer = await writeCartLines(eur, [], () => removeItem(eur.items, 'ebook'), write);
    expect(fewer.totals).toMatchObject({ discount: 4.5, subtotal_original: 9, subtotal: 4.5 });
  });

  it('follow the promotion while it is usable, and keep their last terms when it is not', async () => {
    const record = await promotion();
    const cart = await createCart({ customer: US, items: [{ product_id: 'ebook' }], promotion_code: record.code }, origin, write);
    expect(cart.totals.discount).toBe(1.9);
    await edit(record, { discount_percent: 0.2 });
    const raised = await updateCart(cart, { meta: 'x' }, write);
    expect(raised.totals.discount).toBe(3.8);
    await edit(record, { active: false, discount_percent: 0.5 });
    const kept = await updateCart(raised, { meta: 'y' }, write);
    expect(kept).toMatchObject({ promotion_code: record.code, totals: { discount: 3.8 } });
    // The payment is where the code is refused.
    const lines = kept.items.map((item) => ({ productId: item.product_id, quantity: item.quantity }));
    await expect(recheckSalePromotion(scope, kept, lines, Date.now())).rejects.toMatchObject({ meta: { reason: 'inactive' } });
  });

  it('drop the code with null (or an empty string) and price without it', async () => {
    const record = await promotion();
    const cart = await createCart({ customer: US, items: [{ product_id: 'ebook' }], promotion_code: record.code }, origin, write);
    const cleared = await updateCart(cart, { promotion_code: null }, write);
    expect(cleared).toMatchObject({ promotion_code: null, promotion_id: null, promotion_terms: null, totals: { discount: 0, total: 20.9 } });
    const again = await updateCart(cleared, { promotion_code: record.code }, write);
    expect((await updateCart(again, cartUpdate.parse({ promotion_code: '' }), write)).promotion_code).toBeNull();
  });

  it('refuse a non-string code as invalid_input', async () => {
    await expect((async () => createCart(parseInput(cartCreate, { promotion_code: 10 }), origin, write))()).rejects.toMatchObject({
      code: 'invalid_input',
      meta: { property: 'promotion_code' },
    });
  });
});

describe('payment re-check', () => {
  it('refuses a code renamed since it was applied, and one whose lines are gone', async () => {
    const record = await promotion({ product_ids: ['poster'] });
    const cart = await createCart({ customer: US, items: [{ product_id: 'poster' }], promotion_code: record.code }, origin, write);
    const lines = (sale: CartRecord) => sale.items.map((item) => ({ productId: item.product_id, quantity: item.quantity }));
    expect((await recheckSalePromotion(scope, cart, lines(cart), Date.now()))?.promotion_id).toBe(record.promotion_id);
    const without = await writeCartLines(cart, [], () => removeItem(cart.items, 'poster'), write);
    await expect(recheckSalePromotion(scope, without, [{ productId: 'ebook', quantity: 1 }], Date.now())).rejects.toMatchObject({ meta: { reason: 'not_applicable' } });
    await edit(record, { code: `${record.code}X` });
    await expect(recheckSalePromotion(scope, cart, lines(cart), Date.now())).rejects.toMatchObject({ meta: { reason: 'not_found' } });
    expect(await recheckSalePromotion(scope, { promotion_code: null, promotion_id: null }, [], Date.now())).toBeUndefined();
  });
});

describe('use reservation', () => {
  const reserve = (record: PromotionRecord) => transact([reserveUseWrite(scope, record.promotion_id)]);

  it('lets exactly max_uses of many racing payments through', async () => {
    const record = await promotion({ max_uses: 3 });
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => reserve(record)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(TransactionRejectedError);
    }
    expect(await findPromotion(scope, record.promotion_id)).toMatchObject({ claimed_uses: 3, uses: 0 });
  });

  it('frees a use when a charge fails, counts it when a payment completes, and is unlimited without max_uses', async () => {
    const record = await promotion({ max_uses: 1 });
    await reserve(record);
    await expect(reserve(record)).rejects.toSatisfy((error: unknown) => error instanceof TransactionRejectedError && error.refused('promotion.reserve-use'));
    await transact([releaseUseWrite(scope, record.promotion_id)]);
    await reserve(record);
    await transact([countUseWrite(scope, record.promotion_id)]);
    expect(await findPromotion(scope, record.promotion_id)).toMatchObject({ claimed_uses: 1, uses: 1 });
    const unlimited = await promotion();
    for (let n = 0; n < 5; n++) await reserve(unlimited);
    expect((await findPromotion(scope, unlimited.promotion_id))?.claimed_uses).toBe(5);
  });

  it('is never overwritten by a promotion update that read older counters', async () => {
    const record = await promotion({ max_uses: 5 });
    await reserve(record);
    await transact([countUseWrite(scope, record.promotion_id)]);
    // `record` still holds uses 0: the save must not write it back.
    const saved = await savePromotion(record, promotionFields(promotionUpdate.parse({ name: 'Renamed' }), record, input), false, systemClock);
    expect(saved.name).toBe('Renamed');
    expect(await findPromotion(scope, record.promotion_id)).toMatchObject({ name: 'Renamed', uses: 1, claimed_uses: 1 });
  });

  it('counts toward max_uses once lowered below the reserved uses', async () => {
    const record = await promotion({ max_uses: 5 });
    await reserve(record);
    await reserve(record);
    await db().send(new UpdateCommand({ TableName: TABLE, Key: recordKey(promotionDeclaration, scope, record.promotion_id), UpdateExpression: 'SET max_uses = :two', ExpressionAttributeValues: { ':two': 2 } }));
    await expect(reserve(record)).rejects.toSatisfy((error: unknown) => error instanceof TransactionRejectedError && error.refused('promotion.reserve-use'));
  });
});
