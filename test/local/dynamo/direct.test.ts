/**
 * dynalite's item operations called directly (infra/local/dynamo/direct.ts) answer exactly as
 * its request listener does: each request is sent twice over HTTP, once as the SDK sends it
 * (the direct path) and once to `/?via=listener` (a URL the direct path leaves to the listener,
 * which ignores the query), and the two answers must be the same: status, error type and
 * message, and the data. Requests that only the listener answers keep its errors.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DirectDynalite } from '../../../infra/local/dynamo/direct';
import { internalAuthorization } from '../../../infra/local/dynamo/wire';
import { Harness, TABLE } from '../fixtures/dynamo-harness';

const harness = new Harness();
let endpoint: string;
const directRuns = vi.spyOn(DirectDynalite.prototype, 'run');

beforeAll(async () => {
  const { emulator } = await harness.startWithTable();
  endpoint = emulator.endpoint;
});
afterAll(() => harness.cleanup());

const sdkHeaders = (operation: string): Record<string, string> => ({
  'content-type': 'application/x-amz-json-1.0',
  'x-amz-target': `DynamoDB_20120810.${operation}`,
  'x-amz-date': '20200101T000000Z',
  authorization: internalAuthorization,
});

async function send(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: Record<string, unknown> | string; headers: Headers }> {
  const response = await fetch(`${endpoint}${path}`, { method: 'POST', headers, body });
  const text = await response.text();
  let parsed: Record<string, unknown> | string = text;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: compared as text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/**
 * Sends `payload` both ways; answers the direct answer after checking it equals the listener's.
 * `takesDirectPath`: whether the first one should take the direct path (false: the listener answers both).
 */
async function both(operation: string, payload: unknown, headers = sdkHeaders(operation), takesDirectPath = true): Promise<{ status: number; body: Record<string, unknown> | string }> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const runs = directRuns.mock.calls.length;
  const direct = await send('/', headers, body);
  expect(directRuns.mock.calls.length - runs, 'direct runs').toBe(takesDirectPath ? 1 : 0);
  const listener = await send('/?via=listener', headers, body);
  expect(directRuns.mock.calls.length - runs, 'direct runs').toBe(takesDirectPath ? 1 : 0);
  expect({ status: direct.status, body: direct.body }).toEqual({ status: listener.status, body: listener.body });
  expect(direct.headers.get('x-amz-crc32')).toBe(listener.headers.get('x-amz-crc32'));
  expect(direct.headers.get('x-amzn-requestid')).toMatch(/^[A-Z0-9]{52}$/);
  return direct;
}

const key = (sk: string) => ({ pk: { S: 'direct' }, sk: { S: sk } });

describe('dynalite item operations called directly', () => {
  it('answer well-formed reads and writes as the listener does', async () => {
    // Writes are sent both ways too: the second write of the same item answers the same.
    expect((await both('PutItem', { TableName: TABLE, Item: { ...key('a'), n: { N: '1' }, tags: { SS: ['x', 'y'] } } })).status).toBe(200);
    const updated = await both('UpdateItem', { TableName: TABLE, Key: key('a'), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: '2' } }, ReturnValues: 'ALL_NEW' });
    expect(updated.body).toMatchObject({ Attributes: { n: { N: '2' } } });
    expect((await both('GetItem', { TableName: TABLE, Key: key('a'), ConsistentRead: true })).body).toMatchObject({ Item: { n: { N: '2' } } });
    expect((await both('GetItem', { TableName: TABLE, Key: key('missing') })).body).toEqual({});
    const queried = await both('Query', { TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'direct' } } });
    expect(queried.body).toMatchObject({ Count: 1 });
    expect((await both('BatchGetItem', { RequestItems: { [TABLE]: { Keys: [key('a'), key('missing')] } } })).body).toMatchObject({ Responses: { [TABLE]: [{ n: { N: '2' } }] } });
    expect((await both('BatchWriteItem', { RequestItems: { [TABLE]: [{ PutRequest: { Item: { ...key('b') } } }] } })).status).toBe(200);
    expect((await both('Scan', { TableName: TABLE, Limit: 1 })).status).toBe(200);
    expect((await both('DeleteItem', { TableName: TABLE, Key: key('b') })).body).toEqual({});
    expect((await both('GetItem', { TableName: TABLE, Key: key('b') })).body).toEqual({});
  });

  it('answer bad requests with the same errors', async () => {
    const errorOf = (reply: { status: number; body: Record<string, unknown> | string }) => (typeof reply.body === 'string' ? reply.body : String(reply.body.__type));
    // A type dynalite's type check refuses (a number where a string goes).
    expect(errorOf(await both('GetItem', { TableName: 7, Key: key('a') }))).toBe('com.amazon.coral.service#SerializationException');
    // Validations: a missing key, an unknown table, an expression that does not parse, a key of the wrong shape.
    expect(errorOf(await both('GetItem', { TableName: TABLE }))).toBe('com.amazon.coral.validate#ValidationException');
    expect(errorOf(await both('GetItem', { TableName: 'nope', Key: key('a') }))).toBe('com.amazonaws.dynamodb.v20120810#ResourceNotFoundException');
    expect(errorOf(await both('UpdateItem', { TableName: TABLE, Key: key('a'), UpdateExpression: 'SET = oops' }))).toBe('com.amazon.coral.validate#ValidationException');
    expect(errorOf(await both('PutItem', { TableName: TABLE, Item: { pk: { N: '1' }, sk: { S: 'a' } } }))).toBe('com.amazon.coral.validate#ValidationException');
    // A failed condition (the action's error), with the item asked back.
    const failed = await both('PutItem', { TableName: TABLE, Item: key('a'), ConditionExpression: 'attribute_not_exists(pk)' });
    expect(errorOf(failed)).toBe('com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException');
    // Left to the listener: a body that is not JSON, or not an object, and an unsigned request.
    expect(errorOf(await both('GetItem', '{not json', sdkHeaders('GetItem'), false))).toBe('com.amazon.coral.service#SerializationException');
    expect((await both('GetItem', '[1,2]', sdkHeaders('GetItem'), false)).status).toBe(400);
    const { authorization: _omitted, ...unsigned } = sdkHeaders('GetItem');
    expect(errorOf(await both('GetItem', { TableName: TABLE, Key: key('a') }, unsigned, false))).toBe('com.amazon.coral.service#MissingAuthenticationTokenException');
    const incomplete = { ...sdkHeaders('GetItem'), authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request' };
    expect(errorOf(await both('GetItem', { TableName: TABLE, Key: key('a') }, incomplete, false))).toBe('com.amazon.coral.service#IncompleteSignatureException');
    const undated = { ...sdkHeaders('GetItem') };
    delete undated['x-amz-date'];
    expect(errorOf(await both('GetItem', { TableName: TABLE, Key: key('a') }, undated, false))).toBe('com.amazon.coral.service#IncompleteSignatureException');
  });
});
