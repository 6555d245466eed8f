import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keepExpressionParses } from '../../../infra/local/dynamo/expressions';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

// Every expression here is new to the process (a unique attribute name), so the first call
// parses and the next ones use what was kept: the counts below tell which happened.
const harness = new Harness();
let doc: DynamoDBDocumentClient;
const stats = keepExpressionParses();

beforeEach(async () => {
  ({ doc } = await harness.startWithTable());
});
afterEach(() => harness.cleanup());

async function item(pk: string): Promise<Record<string, unknown> | undefined> {
  return (await doc.send(new GetCommand({ TableName: TABLE, Key: { pk, sk: 'a' }, ConsistentRead: true }))).Item;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

const update = (pk: string, expression: string, values: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  doc.send(new UpdateCommand({ TableName: TABLE, Key: { pk, sk: 'a' }, UpdateExpression: expression, ExpressionAttributeValues: values, ...extra }));

describe('kept expression parses (local emulator)', () => {
  it('reuses a parse with each request’s own values', async () => {
    const before = { ...stats };
    await update('p1', 'SET kept_a = :v, kept_b = :w', { ':v': 1, ':w': 'one' });
    await update('p1', 'SET kept_a = :v, kept_b = :w', { ':v': 2, ':w': 'two' });
    await update('p2', 'SET kept_a = :v, kept_b = :w', { ':v': 3, ':w': 'three' });
    expect(stats.misses - before.misses).toBe(1);
    expect(stats.hits - before.hits).toBe(2);
    expect(await item('p1')).toMatchObject({ kept_a: 2, kept_b: 'two' });
    expect(await item('p2')).toMatchObject({ kept_a: 3, kept_b: 'three' });
  });

  it('parses again for values of another type, and refuses the wrong type as before', async () => {
    await update('n', 'SET kept_n = if_not_exists(kept_n, :zero) + :inc', { ':zero': 0, ':inc': 5 });
    const before = { ...stats };
    const error = await failure(update('n', 'SET kept_n = if_not_exists(kept_n, :zero) + :inc', { ':zero': 0, ':inc': 'five' }));
    expect(error.name).toBe('ValidationException');
    expect(error.message).toContain('Incorrect operand type for operator or function');
    expect(stats.misses - before.misses).toBe(1);
    expect(await item('n')).toMatchObject({ kept_n: 5 });
  });

  it('still reports an unused value or name when the request’s parse was kept', async () => {
    // The parse of a request with a spare value succeeds (the check comes after it) and is kept:
    // the second request uses it, and must fail the same way.
    const hits = stats.hits;
    for (let attempt = 0; attempt < 2; attempt++) {
      const unusedValue = await failure(update('u', 'SET kept_u = :v', { ':v': 1, ':spare': 2 }));
      expect(unusedValue.message).toContain('Value provided in ExpressionAttributeValues unused in expressions: keys: {:spare}');
      const unusedName = await failure(
        update('u', 'SET #k = :v', { ':v': 1 }, { ExpressionAttributeNames: { '#k': 'kept_u', '#spare': 'x' } }),
      );
      expect(unusedName.message).toContain('Value provided in ExpressionAttributeNames unused in expressions: keys: {#spare}');
    }
    expect(stats.hits - hits).toBe(2);
    expect(await item('u')).toBeUndefined();
  });

  it('counts a value used by the condition and not by the update as used, kept or not', async () => {
    for (const version of [1, 2, 3]) {
      await update('c', 'SET kept_version = :next', { ':next': version + 1, ':current': version }, {
        ConditionExpression: 'attribute_not_exists(kept_version) OR kept_version = :current',
      });
    }
    expect(await item('c')).toMatchObject({ kept_version: 4 });
    const stale = await failure(
      update('c', 'SET kept_version = :next', { ':next': 9, ':current': 1 }, { ConditionExpression: 'attribute_not_exists(kept_version) OR kept_version = :current' }),
    );
    expect(stale.name).toBe('ConditionalCheckFailedException');
  });

  it('checks BETWEEN bounds on every call (never kept)', async () => {
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'b', sk: 'm' } }));
    const query = (low: string, high: string) =>
      doc.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
          ExpressionAttributeValues: { ':pk': 'b', ':low': low, ':high': high },
        }),
      );
    expect((await query('a', 'z')).Items).toHaveLength(1);
    const reversed = await failure(query('z', 'a'));
    expect(reversed.message).toContain('The BETWEEN operator requires upper bound to be greater than or equal to lower bound');
  });

  it('gives each request its own tree: a change to one is not seen by the next', async () => {
    await update('l', 'SET kept_list = list_append(if_not_exists(kept_list, :empty), :add)', { ':empty': [], ':add': ['x'] });
    await update('l', 'SET kept_list = list_append(if_not_exists(kept_list, :empty), :add)', { ':empty': [], ':add': ['y'] });
    await update('l2', 'SET kept_list = list_append(if_not_exists(kept_list, :empty), :add)', { ':empty': [], ':add': ['z'] });
    expect(await item('l')).toMatchObject({ kept_list: ['x', 'y'] });
    expect(await item('l2')).toMatchObject({ kept_list: ['z'] });
  });

  it('fails a bad expression the same way every time and keeps nothing of it', async () => {
    const before = { ...stats };
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await failure(update('e', 'SET kept_e = = :v', { ':v': 1 }));
      expect(error.message).toMatch(/^Invalid UpdateExpression: Syntax error; Expected .* but "=" found\.$/);
    }
    expect(stats.hits - before.hits).toBe(0);
    expect(await item('e')).toBeUndefined();
  });
});
