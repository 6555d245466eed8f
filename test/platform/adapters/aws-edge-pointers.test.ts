/**
 * The KeyValueStore adapter of the CDN's pointer copy (hosting.md §10): writes send the pointer's
 * key and value with the store's ETag (described once, then the one each write answers), and a
 * stale ETag is described again and the write retried once.
 */
import {
  CloudFrontKeyValueStoreClient,
  ConflictException,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  PutKeyCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { kvsEdgePointers } from '../../../shared/platform/adapters/aws-edge-pointers';

const ARN = 'arn:aws:cloudfront::123456789012:key-value-store/0f6a1b2c-3d4e-5f60-7182-93a4b5c6d7e8';
const kvs = mockClient(CloudFrontKeyValueStoreClient);
const conflict = () => new ConflictException({ message: 'The ETag does not match', $metadata: { httpStatusCode: 409 } });

const adapter = () => kvsEdgePointers({ arn: ARN, region: 'us-east-1', client: new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }) });

describe('the KeyValueStore edge pointers', () => {
  beforeEach(() => kvs.reset());

  it('puts <account_id>/<alias> -> <app_id>/<version_id> with the described ETag, then with the ETag the write answered', async () => {
    kvs.on(DescribeKeyValueStoreCommand).resolves({ ETag: 'E1', KvsARN: ARN, Created: new Date() });
    kvs.on(PutKeyCommand).resolvesOnce({ ETag: 'E2', ItemCount: 1, TotalSizeInBytes: 10 }).resolves({ ETag: 'E3', ItemCount: 2, TotalSizeInBytes: 20 });
    kvs.on(DeleteKeyCommand).resolves({ ETag: 'E4', ItemCount: 1, TotalSizeInBytes: 10 });
    const pointers = adapter();
    await pointers.put('XG5908XMX3MH', 'shop', { appId: 'YGFJSXQ4ZHDC', versionId: 'X6V5HEYZGTXA' });
    await pointers.put('XG5908XMX3MH', 'preview', { appId: 'YGFJSXQ4ZHDC', versionId: 'V2' });
    await pointers.delete('XG5908XMX3MH', 'shop');
    expect(kvs.commandCalls(DescribeKeyValueStoreCommand)).toHaveLength(1);
    expect(kvs.commandCalls(DescribeKeyValueStoreCommand)[0]!.args[0].input).toEqual({ KvsARN: ARN });
    expect(kvs.commandCalls(PutKeyCommand).map((call) => call.args[0].input)).toEqual([
      { KvsARN: ARN, Key: 'XG5908XMX3MH/shop', Value: 'YGFJSXQ4ZHDC/X6V5HEYZGTXA', IfMatch: 'E1' },
      { KvsARN: ARN, Key: 'XG5908XMX3MH/preview', Value: 'YGFJSXQ4ZHDC/V2', IfMatch: 'E2' },
    ]);
    expect(kvs.commandCalls(DeleteKeyCommand).map((call) => call.args[0].input)).toEqual([{ KvsARN: ARN, Key: 'XG5908XMX3MH/shop', IfMatch: 'E3' }]);
  });

  it('describes the store again and retries once when the ETag was stale', async () => {
    kvs.on(DescribeKeyValueStoreCommand).resolvesOnce({ ETag: 'OLD' }).resolves({ ETag: 'FRESH' });
    kvs.on(PutKeyCommand).rejectsOnce(conflict()).resolves({ ETag: 'NEXT', ItemCount: 1, TotalSizeInBytes: 10 });
    await adapter().put('ACCT', 'shop', { appId: 'APP', versionId: 'V1' });
    expect(kvs.commandCalls(PutKeyCommand).map((call) => call.args[0].input.IfMatch)).toEqual(['OLD', 'FRESH']);
    expect(kvs.commandCalls(DescribeKeyValueStoreCommand)).toHaveLength(2);
  });

  it('retries a delete the same way, and gives up after one retry', async () => {
    kvs.on(DescribeKeyValueStoreCommand).resolvesOnce({ ETag: 'A' }).resolvesOnce({ ETag: 'B' }).resolves({ ETag: 'C' });
    kvs.on(DeleteKeyCommand).rejectsOnce(conflict()).resolves({ ETag: 'D', ItemCount: 0, TotalSizeInBytes: 0 });
    await adapter().delete('ACCT', 'shop');
    expect(kvs.commandCalls(DeleteKeyCommand).map((call) => call.args[0].input)).toEqual([
      { KvsARN: ARN, Key: 'ACCT/shop', IfMatch: 'A' },
      { KvsARN: ARN, Key: 'ACCT/shop', IfMatch: 'B' },
    ]);

    kvs.reset();
    kvs.on(DescribeKeyValueStoreCommand).resolves({ ETag: 'X' });
    kvs.on(PutKeyCommand).rejects(conflict());
    await expect(adapter().put('ACCT', 'shop', { appId: 'APP', versionId: 'V1' })).rejects.toThrow(/ETag/);
    expect(kvs.commandCalls(PutKeyCommand)).toHaveLength(2);
  });

  it('treats deleting a key that is not there as done, and passes other failures on', async () => {
    kvs.on(DescribeKeyValueStoreCommand).resolves({ ETag: 'E1' });
    kvs.on(DeleteKeyCommand).rejects(new ResourceNotFoundException({ message: 'Key not found', $metadata: { httpStatusCode: 404 } }));
    await adapter().delete('ACCT', 'gone');
    kvs.on(PutKeyCommand).rejects(new Error('AccessDenied'));
    await expect(adapter().put('ACCT', 'shop', { appId: 'APP', versionId: 'V1' })).rejects.toThrow('AccessDenied');
  });
});
