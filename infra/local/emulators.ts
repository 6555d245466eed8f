/**
 * Start-up of the emulated AWS services for one data directory: DynamoDB (dynalite with the
 * local additions), SQS and S3 (fauxqs, persisted), and the platform's table, queues and
 * buckets inside them, created exactly as the CDK stack describes them.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import { queues, queueUrlVariable } from '../../shared/app/queues';
import { tableDefinition } from '../../shared/store/table';
import { localClientOptions, localUnsignedAuth } from '../../shared/store/client';
import { ensureTable, startDynamoEmulator, type DynamoEmulator } from './dynamo/emulator';
import { dataPaths } from './data-dir';

/** Names of the local resources. */
export const LOCAL_TABLE = 'cartwheel';
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_BUCKETS = { functions: 'cartwheel-functions', apps: 'cartwheel-apps' };

/** Running emulators and the environment that points the platform at them. */
export interface Emulators {
  dynamo: DynamoEmulator;
  fauxqs: FauxqsServer;
  sqs: SQSClient;
  queues: Array<{ name: string; url: string; arn: string }>;
  /** Environment variables for `shared/core/config.ts` (endpoints, names, queue URLs). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * fauxqs keeps its queues in SQLite in WAL mode with SQLite's default `synchronous = FULL`: an
 * fsync for every message sent, received and deleted (about 5 % of a checkout's time here).
 * `NORMAL` keeps every committed change through a killed process (the WAL is written before
 * the call returns), as LevelDB's own unsynced writes do, and gives up only what a power
 * loss could take. Set on each connection fauxqs opens, through its persistence class (the
 * same module instance fauxqs loads: imported by its file URL, which its exports map hides).
 */
export async function syncQueuesNormally(): Promise<void> {
  const url = new URL('./persistence.js', import.meta.resolve('fauxqs')).href;
  const { PersistenceManager } = (await import(url)) as {
    PersistenceManager: { prototype: { db: { exec(sql: string): void }; prepareStatements(): unknown } };
  };
  const prototype = PersistenceManager.prototype;
  if ((prototype as { syncedNormally?: boolean }).syncedNormally) return;
  const prepare = prototype.prepareStatements;
  prototype.prepareStatements = function (this: typeof prototype) {
    this.db.exec('PRAGMA synchronous = NORMAL');
    return prepare.call(this);
  };
  (prototype as { syncedNormally?: boolean }).syncedNormally = true;
}

/** Starts the emulators on `dataDir` and makes sure the table, queues and buckets exist. */
export async function startEmulators(dataDir: string): Promise<Emulators> {
  const paths = dataPaths(dataDir);
  await syncQueuesNormally();
  // The table's store and the queues' start independently; each waits on its own files.
  const [dynamo, fauxqs] = await Promise.all([
    startDynamoEmulator({ dataDir: paths.dynamodb, port: 0 }),
    startFauxqs({
      port: 0,
      host: '127.0.0.1',
      logger: false,
      dataDir: paths.queues,
      s3StorageDir: paths.objects,
      defaultRegion: LOCAL_REGION,
    }),
  ]);
  const dynamoClient = new DynamoDBClient({ region: LOCAL_REGION, ...localClientOptions(dynamo.endpoint) });
  const tableReady = ensureTable(dynamoClient, LOCAL_TABLE, tableDefinition).finally(() => dynamoClient.destroy());

  const sqs = new SQSClient({ region: LOCAL_REGION, ...localClientOptions(fauxqs.address), ...localUnsignedAuth(fauxqs.address) });
  const created: Emulators['queues'] = [];
  const env: Record<string, string> = {
    CARTWHEEL_TABLE: LOCAL_TABLE,
    AWS_REGION: LOCAL_REGION,
    CARTWHEEL_DYNAMODB_ENDPOINT: dynamo.endpoint,
    CARTWHEEL_SQS_ENDPOINT: fauxqs.address,
    CARTWHEEL_S3_ENDPOINT: fauxqs.address,
    CARTWHEEL_FUNCTIONS_BUCKET: LOCAL_BUCKETS.functions,
    CARTWHEEL_APPS_BUCKET: LOCAL_BUCKETS.apps,
  };
  // The buckets through fauxqs's own call, the store call its CreateBucket action makes (a bucket
  // that exists is kept): no S3 client, whose package would load before the first request only
  // for this (the platform's objects port loads it when an object is first touched).
  for (const bucket of Object.values(LOCAL_BUCKETS)) fauxqs.createBucket(bucket);
  // The queues are independent: made (or found) at once, not one round trip after another.
  const made = await Promise.all(
    queues.map(async (queue) => {
      const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${queue.name}-dlq` }));
      const dlqArn = await queueArn(sqs, dlq.QueueUrl!);
      const main = await sqs.send(
        new CreateQueueCommand({
          QueueName: queue.name,
          Attributes: {
            VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: queue.maxReceiveCount }),
          },
        }),
      );
      return { name: queue.name, url: main.QueueUrl!, arn: await queueArn(sqs, main.QueueUrl!) };
    }),
  );
  await tableReady;
  for (const queue of made) {
    created.push(queue);
    env[queueUrlVariable(queue.name)] = queue.url;
  }
  return {
    dynamo,
    fauxqs,
    sqs,
    queues: created,
    env,
    stop: async () => {
      sqs.destroy();
      await fauxqs.stop();
      await dynamo.stop();
    },
  };
}

async function queueArn(sqs: SQSClient, url: string): Promise<string> {
  const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return attributes.Attributes!.QueueArn!;
}
