import { afterEach, describe, expect, it } from 'vitest';
import { CreateTableCommand, DeleteTableCommand, DescribeTimeToLiveCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

const harness = new Harness();
afterEach(() => harness.cleanup());

const now = 1_700_000_000;

describe('time to live', () => {
  it('sweeps only items whose ttl is a number at or before now', async () => {
    const { emulator, doc } = await harness.startWithTable();
    const items = [
      { pk: 'past', ttl: now - 60 },
      { pk: 'exactly-now', ttl: now },
      { pk: 'future', ttl: now + 60 },
      { pk: 'no-ttl' },
      { pk: 'string-ttl', ttl: String(now - 60) },
    ];
    for (const item of items) await doc.send(new PutCommand({ TableName: TABLE, Item: { sk: 'a', ...item } }));

    expect(await emulator.sweepExpired(now)).toBe(2);
    const left = (await doc.send(new ScanCommand({ TableName: TABLE }))).Items?.map((item) => item.pk).sort();
    expect(left).toEqual(['future', 'no-ttl', 'string-ttl']);

    expect(await emulator.sweepExpired(now)).toBe(0);
    expect(await emulator.sweepExpired(now + 60)).toBe(1);
    expect((await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: 'future', sk: 'a' } }))).Item).toBeUndefined();
  });

  it('sweeps across pages of a larger table', async () => {
    const { emulator, doc } = await harness.startWithTable();
    const padding = 'x'.repeat(20_000); // ~60 items exceed one 1 MB scan page
    for (let index = 0; index < 120; index++) {
      await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: `item-${index}`, sk: 'a', padding, ttl: index % 2 === 0 ? now - 1 : now + 1 } }));
    }
    expect(await emulator.sweepExpired(now)).toBe(60);
    let remaining = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(new ScanCommand({ TableName: TABLE, Select: 'COUNT', ExclusiveStartKey: startKey }));
      remaining += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(remaining).toBe(60);
  });

  it('sweeps a bounded number of items per call, going on where the last one stopped and starting over after the end', async () => {
    const { emulator, doc } = await harness.startWithTable();
    for (let index = 0; index < 120; index++) {
      await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: `item-${index}`, sk: 'a', ttl: index % 2 === 0 ? now - 1 : now + 100 } }));
    }
    const counted: number[] = [];
    for (let call = 0; call < 3; call++) counted.push(await emulator.sweepExpired(now, { maxItems: 50 }));
    // 50 + 50 + the last 20 items examined (half of them expired), however they are ordered.
    expect(counted.reduce((sum, count) => sum + count, 0)).toBe(60);
    expect(counted.every((count) => count <= 50)).toBe(true);
    // At the end it starts over: items that expired since are found on the next round.
    expect(await emulator.sweepExpired(now + 100, { maxItems: 50 })).toBeGreaterThan(0);
    let swept = 0;
    for (let call = 0; call < 3; call++) swept += await emulator.sweepExpired(now + 100, { maxItems: 50 });
    expect((await doc.send(new ScanCommand({ TableName: TABLE, Select: 'COUNT' }))).Count).toBe(0);
    expect(swept).toBeLessThan(60);
  });

  it('does nothing on tables without TTL, and follows enable, disable and delete', async () => {
    const { emulator, client, doc } = await harness.startWithTable();
    await client.send(
      new CreateTableCommand({
        TableName: 'plain-table',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    await doc.send(new PutCommand({ TableName: 'plain-table', Item: { id: 'old', expires: now - 10 } }));
    expect((await client.send(new DescribeTimeToLiveCommand({ TableName: 'plain-table' }))).TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'DISABLED' });
    expect(await emulator.sweepExpired(now)).toBe(0);

    const enabled = await client.send(new UpdateTimeToLiveCommand({ TableName: 'plain-table', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } }));
    expect(enabled.TimeToLiveSpecification).toEqual({ Enabled: true, AttributeName: 'expires' });
    await expect(
      client.send(new UpdateTimeToLiveCommand({ TableName: 'plain-table', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } })),
    ).rejects.toThrow('TimeToLive is already enabled');
    expect(await emulator.sweepExpired(now)).toBe(1);

    await client.send(new UpdateTimeToLiveCommand({ TableName: 'plain-table', TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' } }));
    expect((await client.send(new DescribeTimeToLiveCommand({ TableName: 'plain-table' }))).TimeToLiveDescription?.TimeToLiveStatus).toBe('DISABLED');

    await client.send(new UpdateTimeToLiveCommand({ TableName: 'plain-table', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } }));
    await client.send(new DeleteTableCommand({ TableName: 'plain-table' }));
    await client.send(
      new CreateTableCommand({
        TableName: 'plain-table',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    expect((await client.send(new DescribeTimeToLiveCommand({ TableName: 'plain-table' }))).TimeToLiveDescription?.TimeToLiveStatus).toBe('DISABLED');
  });

  it('answers TTL calls on a missing table with ResourceNotFoundException', async () => {
    const { client } = await harness.startWithTable();
    await expect(client.send(new DescribeTimeToLiveCommand({ TableName: 'missing-table' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(
      client.send(new UpdateTimeToLiveCommand({ TableName: 'missing-table', TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' } })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
