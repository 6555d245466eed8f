/**
 * The entity helper against the local DynamoDB emulator: reads by id with the mode check,
 * creation that refuses a taken id, versioned saves, and transactions whose refusals are
 * reported by entry name (never by position) or as the entry's own domain error.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/core/errors';
import { allOf, defineEntity, EXISTS, updateExpression } from '../../shared/store/entity';
import { OtherModeError, RecordExistsError, RecordNotFoundError, TransactionRejectedError, VersionConflictError } from '../../shared/store/errors';
import { transact, writeOne } from '../../shared/store/transact';
import { Harness, useEmulatedTable } from '../local/fixtures/dynamo-harness';

const harness = new Harness();
interface Widget { account_id: string; mode: 'live' | 'test'; widget_id: string; n: number; modified_ms: number }
const widgets = defineEntity<Widget>({ name: 'widget', collection: 'widgets', scope: 'mode', idField: 'widget_id' });
const test = { accountId: 'ACCTW', mode: 'test' as const };
const live = { accountId: 'ACCTW', mode: 'live' as const };
const widget = (scope: typeof test, id: string, n = 0): Widget => ({ account_id: scope.accountId, mode: scope.mode, widget_id: id, n, modified_ms: 1 });

useEmulatedTable(harness);

describe('defineEntity', () => {
  it('keys records by owner, collection and id, and refuses an unknown index or a second definition', () => {
    expect(widgets.key(test, 'W1')).toEqual({ pk: 'ACCTW#test#widgets#W1', sk: 'record' });
    expect(widgets.partition(live)).toBe('ACCTW#live#widgets');
    expect(() => defineEntity({ name: 'gadget', collection: 'gadgets', scope: 'mode', idField: 'id', indexes: { gsi9: 'x' } as never })).toThrow(/unknown index/);
    expect(() => defineEntity({ name: 'widget', collection: 'widgets', scope: 'mode', idField: 'widget_id' })).toThrow(/defined twice/);
  });

  it('creates once: a taken id is 409 in_use naming the id property', async () => {
    await widgets.create(widget(test, 'W1'));
    const error = await widgets.create(widget(test, 'W1')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RecordExistsError);
    expect(error).toMatchObject({ status: 409, code: 'in_use', meta: { property: 'widget_id', reason: 'conflict' } });
  });

  it('reads by id: 404 naming the parameter, or token_type_mismatch when the record is in the other mode', async () => {
    expect(await widgets.get(test, 'W1')).toMatchObject({ widget_id: 'W1' });
    const missing = await widgets.get(test, 'NOPE').catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(RecordNotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'resource_not_found', meta: { parameter: 'widget_id' } });
    const otherMode = await widgets.get(live, 'W1').catch((caught: unknown) => caught);
    expect(otherMode).toBeInstanceOf(OtherModeError);
    expect((otherMode as ApiError).code).toBe('token_type_mismatch');
  });

  it('saves only over the version it read', async () => {
    const read = await widgets.get(test, 'W1');
    await widgets.save(read, { ...read, n: 1, modified_ms: 2 });
    await expect(widgets.save(read, { ...read, n: 5, modified_ms: 3 })).rejects.toBeInstanceOf(VersionConflictError);
    expect((await widgets.get(test, 'W1')).n).toBe(1);
  });
});

describe('transactions with named entries', () => {
  it('reports which entries were refused, by name, and applies nothing', async () => {
    await widgets.create(widget(test, 'W2'));
    const error = await transact([
      widgets.updateEntry(test, 'W2', { name: 'w2.bump', add: { n: 1 }, condition: EXISTS }),
      widgets.updateEntry(test, 'GHOST', { name: 'ghost.bump', add: { n: 1 }, condition: EXISTS }),
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionRejectedError);
    expect((error as TransactionRejectedError).rejected).toEqual(['ghost.bump']);
    expect((error as TransactionRejectedError).refused('w2.bump')).toBe(false);
    expect((await widgets.get(test, 'W2')).n).toBe(0);
  });

  it("throws a refused entry's own domain error when it has one", async () => {
    class SoldOut extends ApiError {
      constructor() {
        super(400, 'sold_out', 'Sold out.');
      }
    }
    await expect(
      transact([
        widgets.updateEntry(test, 'W2', { name: 'w2.take', add: { n: -1 }, condition: { expression: 'n > :zero', values: { ':zero': 0 } }, onConditionFailed: () => new SoldOut() }),
      ]),
    ).rejects.toBeInstanceOf(SoldOut);
    await expect(writeOne(widgets.updateEntry(test, 'W2', { name: 'w2.take', add: { n: -1 }, condition: { expression: 'n > :zero', values: { ':zero': 0 } }, onConditionFailed: () => new SoldOut() }))).rejects.toBeInstanceOf(SoldOut);
    await expect(writeOne(widgets.deleteEntry(test, 'GHOST', { name: 'ghost.delete', condition: EXISTS }))).rejects.toMatchObject({ rejected: ['ghost.delete'] });
  });

  it('builds update expressions with placeholders (reserved words and dotted paths are safe)', () => {
    const built = updateExpression({ set: { status: 'x', 'payment_method.payment_method_id': 'P' }, remove: ['lock'], add: { n: 1 } });
    expect(built.expression).toBe('SET #u0 = :u1, #u2.#u3 = :u4 REMOVE #u5 ADD #u6 :u7');
    expect(built.names).toEqual({ '#u0': 'status', '#u2': 'payment_method', '#u3': 'payment_method_id', '#u5': 'lock', '#u6': 'n' });
    expect(() => updateExpression({})).toThrow(/set, remove or add/);
    expect(allOf(EXISTS, undefined, { expression: 'n = :n', values: { ':n': 1 } })).toEqual({ expression: '(attribute_exists(pk)) AND (n = :n)', names: {}, values: { ':n': 1 } });
  });
});
