/**
 * The DynamoDB client every module uses. Built once per process from the settings the
 * process's composition hands over with `configureStore` (the cloud platform, the local
 * runtime, a test's harness); nothing here reads the configuration. In the cloud it is a plain
 * SDK v3 client; locally only the endpoint (and dummy credentials for the emulator) differ, and
 * in the local runtime's own process the transport (`useDynamoTransport`).
 */
import { Agent } from 'node:http';
import { traced } from '../core/tracing';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { PlatformConfig } from '../core/config';
import { storeFreeKeysSafely } from './free-keys';
import { meterRequestCost } from './request-cost';

/** Where the store is: the table, and the region and (locally) endpoint of its DynamoDB. */
export type StoreSettings = Pick<PlatformConfig, 'tableName' | 'region'> & { endpoints: Pick<PlatformConfig['endpoints'], 'dynamodb'> };

let settings: StoreSettings | undefined;
let baseClient: DynamoDBClient | undefined;
let documentClient: DynamoDBDocumentClient | undefined;
let transport: Record<string, unknown> | undefined;

/**
 * Points this process's store at a table (the composition does it once, before any read: the
 * cloud platform, the local runtime, a test's harness). A client already built is dropped; the
 * next `db()` builds one for the new settings.
 *
 * @example configureStore({ tableName: 'cartwheel', region: 'eu-west-1', endpoints: {} })
 */
export function configureStore(next: StoreSettings): void {
  settings = { tableName: next.tableName, region: next.region, endpoints: { dynamodb: next.endpoints.dynamodb } };
  resetDb();
}

/** Whether a composition has configured the store in this process (the cloud platform defers to one that did: the local runtime loads the cloud handler modules too). */
export function storeConfigured(): boolean {
  return settings !== undefined;
}

function storeSettings(): StoreSettings {
  if (!settings) throw new Error('The store is not configured: the composition calls configureStore() (shared/store/client.ts) before the first read');
  return settings;
}

/**
 * Local runtime only: client options that replace the transport to the emulator when it runs
 * in this process (infra/local/dynamo/in-process.ts: a request handler without a socket or
 * signing). `undefined` goes back to HTTP. The cloud never calls it. Takes effect for the next
 * client `db()` builds.
 */
export function useDynamoTransport(options: Record<string, unknown> | undefined): void {
  transport = options;
  resetDb();
}

/** Settings shared by every SDK client pointed at a local emulator endpoint. */
export function localClientOptions(endpoint: string | undefined): Record<string, unknown> {
  if (!endpoint) return {};
  return {
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // Keep-alive matters locally: a new TCP connection per call would double request latency.
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: 64 }) }),
  };
}

/**
 * Local emulators only: a SigV4 auth scheme that marks requests as signed without signing them.
 * Neither emulator checks a signature (dynalite only that the header is there; fauxqs reads the
 * region from the credential scope, which this keeps). Used by the DynamoDB in-process transport
 * (infra/local/dynamo/in-process.ts) and, through `localUnsignedAuth`, the queue clients: SigV4
 * was about 1 % of a local checkout's CPU on the SQS calls alone.
 */
export const unsignedLocalAuthSchemes = [
  {
    schemeId: 'aws.auth#sigv4',
    identityProvider: (config: { getIdentityProvider(schemeId: string): unknown }) => config.getIdentityProvider('aws.auth#sigv4'),
    signer: {
      // The auth option's signing properties: `region` and `name` (the service).
      async sign<R extends { headers: Record<string, string> }>(request: R, _identity: unknown, properties: { region?: string; name?: string } = {}): Promise<R> {
        request.headers.authorization = `AWS4-HMAC-SHA256 Credential=local/20200101/${properties.region ?? 'us-east-1'}/${properties.name ?? 'local'}/aws4_request, SignedHeaders=host, Signature=0`;
        return request;
      },
    },
  },
];

/** SDK options for a client of a local emulator at `endpoint` that skips signing; empty for the cloud (no endpoint). */
export function localUnsignedAuth(endpoint: string | undefined): Record<string, unknown> {
  return endpoint ? { httpAuthSchemes: unsignedLocalAuthSchemes } : {};
}

/** The shared DynamoDB document client (native JS values in and out, undefined values dropped). */
export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { region, endpoints } = storeSettings();
    baseClient = traced(new DynamoDBClient({ region, maxAttempts: 3, ...localClientOptions(endpoints.dynamodb), ...(endpoints.dynamodb ? transport : undefined) }));
    // The SDK's logger step filters every call's input and output for a log line even when no
    // logger is set (about 1 % of a checkout's CPU locally); the platform logs its own way.
    baseClient.middlewareStack.remove('loggerMiddleware');
    // Counts calls only inside `measureCost` (the local gateway's per-request header).
    meterRequestCost(baseClient);
    // Client-chosen keys such as `__proto__` and `constructor` survive the SDK's marshalling (./free-keys).
    storeFreeKeysSafely(baseClient.middlewareStack);
    documentClient = DynamoDBDocumentClient.from(baseClient, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return documentClient;
}

/** The low-level client under `db()` (for libraries that want one, such as Powertools). */
export function baseDb(): DynamoDBClient {
  db();
  return baseClient!;
}

/** The table name. */
export function table(): string {
  const name = storeSettings().tableName;
  if (!name) throw new Error('CARTWHEEL_TABLE is not set: this function was not granted table access');
  return name;
}

/** Drops the cached client (tests that switch configuration). */
export function resetDb(): void {
  documentClient?.destroy();
  documentClient = undefined;
  baseClient = undefined;
}
