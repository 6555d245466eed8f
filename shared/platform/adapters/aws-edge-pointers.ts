/**
 * The CDN's copy of the alias pointers on the CloudFront KeyValueStore API (hosting.md §10).
 *
 * Every write names the store's current ETag (`IfMatch`): the adapter keeps the ETag the last
 * write answered, describes the store when it has none, and on a stale one (a concurrent write
 * by another function: `ConflictException` / precondition failure) describes again and retries
 * once. Writes are idempotent, so a retry never does harm.
 *
 * The KeyValueStore API is signed with SigV4A only; the SDK needs a SigV4A signer loaded,
 * which importing `@aws-sdk/signature-v4a` does (it registers the JS implementation). It is
 * imported on the first write, not at module load: every function builds the cloud platform,
 * and a signer that failed to load must fail only the pointer copy (which is due work, retried),
 * never a cold start.
 */
import type { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { traced } from '../../core/tracing';
import type { EdgePointers } from '../ports';
import { edgePointerKey, edgePointerValue } from '../edge-pointer-format';
import { onFirstUse } from './on-first-use';

// Loaded on the first pointer write, like the signer: the client package is not needed before.
const sdk = onFirstUse(() => import('@aws-sdk/client-cloudfront-keyvaluestore'));

/** Whether a write failed only because its ETag was no longer the store's. */
function isStaleETag(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  return name === 'ConflictException' || name === 'PreconditionFailed' || status === 409 || status === 412;
}

/** The alias pointers in the KeyValueStore `arn`; the client (and its package) is made on first use. */
export function kvsEdgePointers(options: { arn: string; region: string; client?: CloudFrontKeyValueStoreClient }): EdgePointers {
  let client = options.client;
  const kvs = async () => (client ??= traced(new (await sdk()).CloudFrontKeyValueStoreClient({ region: options.region })));
  let etag: string | undefined;

  let signer: Promise<unknown> | undefined;

  async function currentETag(): Promise<string> {
    const { DescribeKeyValueStoreCommand } = await sdk();
    const described = await (await kvs()).send(new DescribeKeyValueStoreCommand({ KvsARN: options.arn }));
    if (!described.ETag) throw new Error('DescribeKeyValueStore answered no ETag');
    return described.ETag;
  }

  /** Runs one write with the known (or a described) ETag; a stale ETag is described again and the write retried once. */
  async function write(send: (ifMatch: string) => Promise<{ ETag?: string | undefined }>): Promise<void> {
    await (signer ??= import('@aws-sdk/signature-v4a').catch((error: unknown) => {
      signer = undefined;
      throw error;
    }));
    etag ??= await currentETag();
    try {
      etag = (await send(etag)).ETag;
    } catch (error) {
      etag = undefined;
      if (!isStaleETag(error)) throw error;
      etag = (await send(await currentETag())).ETag;
    }
  }

  return {
    async put(accountId, alias, target) {
      const Key = edgePointerKey(accountId, alias);
      const Value = edgePointerValue(target.appId, target.versionId);
      const { PutKeyCommand } = await sdk();
      const store = await kvs();
      await write((IfMatch) => store.send(new PutKeyCommand({ KvsARN: options.arn, Key, Value, IfMatch })));
    },
    async delete(accountId, alias) {
      const Key = edgePointerKey(accountId, alias);
      const { DeleteKeyCommand } = await sdk();
      const store = await kvs();
      try {
        await write((IfMatch) => store.send(new DeleteKeyCommand({ KvsARN: options.arn, Key, IfMatch })));
      } catch (error) {
        // A key that is not there is deleted already; a missing store fails the Describe above.
        if ((error as Error).name !== 'ResourceNotFoundException') throw error;
        etag = await currentETag();
      }
    },
  };
}
