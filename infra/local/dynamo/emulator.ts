/**
 * The local DynamoDB: dynalite, persisted in LevelDB, behind a thin HTTP front that adds
 * what dynalite lacks and the platform's handlers use unchanged: TransactWriteItems,
 * TransactGetItems, UpdateTimeToLive/DescribeTimeToLive and expiry sweeps,
 * ReturnValuesOnConditionCheckFailure, and readers–writer isolation, so no read ever sees a
 * transaction half applied. Everything else is dynalite's own behaviour, untouched.
 */
import { mkdir } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import type { DynaliteStore } from 'dynalite/db';
import type { tableDefinition } from '../../../shared/store/table';
import { keyOf, KeySchemas } from './keys';
import { ReadWriteLock } from './lock';
import { cachePointReads, type PointLevel, type ReadCacheLimits, type ReadCacheStats } from './read-cache';
import { WriteGroups } from './write-groups';
import { DirectDynalite } from './direct';
import { keepExpressionParses } from './expressions';
import { closeIteratorsWhenDone, type StreamingLevel } from './streams';
import { transactionJournalPath, Transactions } from './transactions';
import { deleteExpiredItems, describeTimeToLive, TimeToLiveSettings, timeToLivePath, updateTimeToLive } from './ttl';
import {
  DynaliteInvoker,
  errorReply,
  errorTypes,
  isRecord,
  jsonReply,
  parseError,
  targetPrefix,
  validationError,
  type DynaliteListener,
  type Reply,
  type WireItem,
} from './wire';

export { transactionJournalPath, type TransactionJournal } from './transactions';
export type { Reply } from './wire';

/** A running local DynamoDB. */
export interface DynamoEmulator {
  /** Base URL for SDK clients, e.g. `http://127.0.0.1:8000`. */
  endpoint: string;
  port: number;
  /**
   * Deletes items whose TTL (epoch seconds) is <= `nowEpochSeconds`; returns how many. With
   * `maxItems`, examines at most that many items of each table, going on where the last
   * bounded sweep stopped (the runtime's timer); without, every item.
   */
  sweepExpired(nowEpochSeconds: number, options?: { maxItems?: number }): Promise<number>;
  /** Calls received so far, by operation (`GetItem`, `TransactWriteItems`, ...): what a request costs. */
  calls(): Record<string, number>;
  /**
   * Answers one DynamoDB request in this process, without a socket: the same dispatch, lock,
   * transactions, counting and stop behaviour as a request over HTTP (in-process.ts
   * turns it into an SDK request handler). `headers` are the request's (lower-case names).
   */
  invoke(headers: IncomingHttpHeaders, body: Buffer): Promise<Reply>;
  /** What the point-read cache in front of LevelDB did so far. */
  readCache(): ReadCacheStats;
  /** ClientRequestTokens of committed transactions still held (DynamoDB's 10-minute window). */
  transactionTokens(): number;
  /** Stops accepting requests, lets in-flight ones finish, and closes LevelDB. */
  stop(): Promise<void>;
}

/** Where and how the emulator runs. */
export interface DynamoEmulatorOptions {
  /** LevelDB directory (created if absent); the journal and TTL settings live in it too. */
  dataDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Limits of the point-read cache in front of LevelDB (read-cache.ts); tests make it small. */
  readCache?: Partial<ReadCacheLimits>;
  /** Testing hook: runs after each operation of a write transaction (crash tests die here). */
  onTransactionStep?: (step: number) => void;
}

// dynalite ships as CommonJS; loading it and its store module through one `require` keeps
// them the same instances, which `createDynalite` relies on.
const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as typeof import('dynalite');
const dynaliteDb = require('dynalite/db') as { create: (options: Record<string, unknown>) => DynaliteStore };
// dynalite sums every answer with buffer-crc32's plain-JS CRC-32 (its x-amz-crc32 header): Node's
// native one gives the same number at a fraction of the cost (about 1 % of a catalogue read).
const dynaliteCrc32 = createRequire(require.resolve('dynalite'))('buffer-crc32') as { unsigned: (input: string | Buffer) => number };
dynaliteCrc32.unsigned = (input) => crc32(input);

/** What the emulator reads of a request, whether it came over HTTP or from this process. */
interface WireRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

const maxRequestBytes = 16 * 1024 * 1024; // dynalite's (and DynamoDB's) request size limit
const returnOnFailureMember = '"ReturnValuesOnConditionCheckFailure"';

/**
 * Starts the local DynamoDB on `dataDir`, first undoing any transaction a crash cut short.
 * @example const dynamo = await startDynamoEmulator({ dataDir: '.data/dynamodb' });
 */
export async function startDynamoEmulator(options: DynamoEmulatorOptions): Promise<DynamoEmulator> {
  const { dataDir, host = '127.0.0.1', port = 0 } = options;
  await mkdir(dataDir, { recursive: true });
  const { server, store, cacheStats, writeGroups } = createDynalite(dataDir, options.readCache);
  try {
    await store.db.open();
  } catch (error) {
    throw new Error(`Cannot open the DynamoDB emulator data in ${dataDir} (is another emulator using it?)`, { cause: error });
  }
  try {
    const emulator = await LocalDynamo.create(server, store, dataDir, writeGroups, options.onTransactionStep);
    await listen(server, port, host);
    return { ...emulator.handle(host, (server.address() as AddressInfo).port), readCache: cacheStats };
  } catch (error) {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
    else await new Promise((resolve) => store.db.close(resolve));
    throw error;
  }
}

/**
 * Creates `tableName` from the table definition if it does not exist (on-demand billing, GSIs
 * projecting all attributes), waits until it is ACTIVE, and enables TTL on its TTL attribute.
 * Idempotent; also fails loudly if an existing table lacks a key or index the definition has.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, definition: typeof tableDefinition): Promise<void> {
  const existing = await describeTable(client, tableName);
  if (existing) {
    checkTableShape(existing, tableName, definition);
  } else {
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName, definition)));
    } catch (error) {
      // Another process created it meanwhile: fine, wait for it like our own.
      if (!(error instanceof Error && error.name === 'ResourceInUseException')) throw error;
    }
  }
  await waitUntilActive(client, tableName);
  await ensureTimeToLive(client, tableName, definition.ttlAttribute);
}

/** The emulator's state behind one HTTP server. */
class LocalDynamo {
  /** Every exclusive section's writes land in LevelDB as one batch (write-groups.ts). */
  private readonly lock: ReadWriteLock;
  private inFlight = 0;
  private whenDrained: Array<() => void> = [];
  private stopping = false;
  private stopped: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    private readonly dynalite: DynaliteInvoker,
    private readonly schemas: KeySchemas,
    private readonly transactions: Transactions,
    private readonly timeToLive: TimeToLiveSettings,
    writeGroups: WriteGroups,
  ) {
    this.lock = new ReadWriteLock((work) => writeGroups.run(work));
  }

  /** Takes over dynalite's request listener and undoes any transaction cut short by a crash. */
  static async create(server: Server, store: DynaliteStore, dataDir: string, writeGroups: WriteGroups, onStep?: (step: number) => void): Promise<LocalDynamo> {
    const listeners = server.listeners('request') as DynaliteListener[];
    const listener = listeners[0];
    if (listeners.length !== 1 || !listener) throw new Error('dynalite did not install exactly one request listener');
    server.removeAllListeners('request');
    const invoker = new DynaliteInvoker(listener, new DirectDynalite(store));
    const schemas = new KeySchemas(invoker);
    // Each exclusive section lands as one batch (writeGroups), so transactions write no undo journal.
    const transactions = new Transactions(invoker, schemas, { journalFile: transactionJournalPath(dataDir), writes: writeGroups, onStep });
    const timeToLive = await TimeToLiveSettings.load(timeToLivePath(dataDir));
    await transactions.recover();
    const emulator = new LocalDynamo(server, invoker, schemas, transactions, timeToLive, writeGroups);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => emulator.onRequest(request, response));
    return emulator;
  }

  /** The public face of this emulator. */
  handle(host: string, port: number): Omit<DynamoEmulator, 'readCache'> {
    return {
      endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      port,
      sweepExpired: (now, options) => this.sweepExpired(now, options?.maxItems),
      calls: () => Object.fromEntries(this.callCounts),
      transactionTokens: () => this.transactions.heldTokens(),
      invoke: (headers, body) => this.invoke(headers, body),
      stop: () => (this.stopped ??= this.shutdown()),
    };
  }

  /** One request from this process (no socket): refused while stopping, drained by `stop` like HTTP ones. */
  private async invoke(headers: IncomingHttpHeaders, body: Buffer): Promise<Reply> {
    if (this.stopping) return errorReply(errorTypes.unavailable, 'The DynamoDB emulator is stopping', 503);
    if (body.length > maxRequestBytes) return { status: 413, headers: {}, body: '' };
    this.begin();
    try {
      return await this.dispatch('POST', '/', headers, body);
    } catch (error) {
      return errorReply(errorTypes.internal, error instanceof Error ? error.message : String(error), 500);
    } finally {
      this.end();
    }
  }

  private onRequest(request: IncomingMessage, response: ServerResponse): void {
    if (this.stopping) {
      request.resume();
      void send(response, errorReply(errorTypes.unavailable, 'The DynamoDB emulator is stopping', 503), true);
      return;
    }
    this.begin();
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxRequestBytes) chunks.push(chunk);
    });
    // A client that goes away mid-body: 'close' without 'end' settles the request.
    request.on('error', () => {});
    request.on('close', () => {
      if (!ended) this.end();
    });
    request.on('end', () => {
      ended = true;
      if (size > maxRequestBytes) {
        void send(response, { status: 413, headers: {}, body: '' }, this.stopping).finally(() => this.end());
        return;
      }
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      this.dispatch(request.method ?? 'POST', request.url ?? '/', request.headers, body)
        .catch((error: unknown) => errorReply(errorTypes.internal, error instanceof Error ? error.message : String(error), 500))
        .then((reply) => send(response, reply, this.stopping))
        .finally(() => this.end());
    });
  }

  private readonly callCounts = new Map<string, number>();
  /** Where the bounded TTL sweeps go on, by table. */
  private readonly sweepCursors = new Map<string, WireItem>();

  private dispatch(method: string, url: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Reply> {
    const request = { method, url, headers };
    const target = headers['x-amz-target'];
    const operation = typeof target === 'string' && target.startsWith(targetPrefix) ? target.slice(targetPrefix.length) : '';
    this.callCounts.set(operation, (this.callCounts.get(operation) ?? 0) + 1);
    switch (operation) {
      case 'TransactWriteItems':
        return withRequest(body, (input) => this.lock.exclusive(() => this.transactions.write(input)));
      case 'TransactGetItems':
        return withRequest(body, (input) => this.lock.shared(() => this.transactions.get(input)));
      case 'UpdateTimeToLive':
        return withRequest(body, (input) => this.lock.exclusive(() => updateTimeToLive(this.timeToLive, this.dynalite, input)));
      case 'DescribeTimeToLive':
        return withRequest(body, (input) => this.lock.shared(() => describeTimeToLive(this.timeToLive, this.dynalite, input)));
      case 'PutItem':
      case 'UpdateItem':
      case 'DeleteItem':
        return this.lock.exclusive(() => this.writeItem(operation, request, body));
      case 'BatchWriteItem':
        return this.lock.exclusive(() => this.forward(request, body));
      case 'CreateTable':
      case 'UpdateTable':
      case 'DeleteTable':
        return this.lock.exclusive(() => this.changeTable(operation, request, body));
      default:
        // Reads, and everything dynalite answers by itself (including its own errors).
        return this.lock.shared(() => this.forward(request, body));
    }
  }

  private forward(request: WireRequest, body: Buffer): Promise<Reply> {
    return this.dynalite.forward(request.method, request.url, request.headers, body);
  }

  /** PutItem/UpdateItem/DeleteItem, adding the `Item` dynalite leaves out of a failed condition. */
  private async writeItem(operation: string, request: WireRequest, body: Buffer): Promise<Reply> {
    // Cheap byte search first: almost no write asks for the item back, and those skip parsing.
    if (!body.includes(returnOnFailureMember)) return this.forward(request, body);
    let input: unknown;
    try {
      input = JSON.parse(body.toString('utf8'));
    } catch {
      return this.forward(request, body); // dynalite answers the SerializationException
    }
    const mode = isRecord(input) ? input.ReturnValuesOnConditionCheckFailure : undefined;
    if (mode != null && mode !== 'ALL_OLD' && mode !== 'NONE') {
      return validationError(
        `1 validation error detected: Value '${String(mode)}' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]`,
      );
    }
    const reply = await this.forward(request, body);
    if (mode !== 'ALL_OLD' || reply.status === 200 || !isRecord(input)) return reply;
    const failure = parseError(reply);
    if (failure.type !== 'ConditionalCheckFailedException') return reply;
    // Still under the exclusive lock: this is the item the condition was evaluated against.
    const item = await this.currentItem(operation, input);
    return item ? jsonReply(reply.status, { ...failure.body, Item: item }, reply.headers['x-amzn-RequestId']) : reply;
  }

  private async currentItem(operation: string, input: Record<string, unknown>): Promise<WireItem | undefined> {
    if (typeof input.TableName !== 'string') return undefined;
    let key: WireItem | undefined;
    if (operation === 'PutItem') {
      const schema = await this.schemas.get(input.TableName);
      const found = schema.ok && isRecord(input.Item) ? keyOf(input.Item, schema.data) : undefined;
      key = found && 'key' in found ? found.key : undefined;
    } else if (isRecord(input.Key)) {
      key = input.Key;
    }
    if (!key) return undefined;
    const current = await this.dynalite.call<{ Item?: WireItem }>('GetItem', { TableName: input.TableName, Key: key, ConsistentRead: true });
    return current.ok ? current.data.Item : undefined;
  }

  /** Table lifecycle calls: dynalite's answer, plus forgetting what we cached about the table. */
  private async changeTable(operation: string, request: WireRequest, body: Buffer): Promise<Reply> {
    const reply = await this.forward(request, body);
    if (reply.status !== 200) return reply;
    const input: unknown = JSON.parse(body.toString('utf8'));
    const table = isRecord(input) && typeof input.TableName === 'string' ? input.TableName : undefined;
    if (table === undefined) return reply;
    this.schemas.forget(table);
    // A deleted table takes its TTL setting with it, as in DynamoDB.
    if (operation === 'DeleteTable' && this.timeToLive.attributeOf(table) !== undefined) await this.timeToLive.set(table, undefined);
    await this.settle(table, operation === 'DeleteTable' ? 'gone' : 'ACTIVE');
    return reply;
  }

  /**
   * Waits (still under the lock) until dynalite's zero-delay timer has finished the table
   * change, so the table is usable, or its name free, as soon as the caller gets the reply.
   * The reply itself still says CREATING/DELETING, as DynamoDB's does.
   */
  private async settle(table: string, goal: 'ACTIVE' | 'gone'): Promise<void> {
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const described = await this.dynalite.call<{ Table?: { TableStatus?: string } }>('DescribeTable', { TableName: table });
      if (goal === 'gone' ? !described.ok : described.ok && described.data.Table?.TableStatus === 'ACTIVE') return;
      await sleep(1);
    }
  }

  private async sweepExpired(now: number, maxItems?: number): Promise<number> {
    if (this.stopping) throw new Error('The DynamoDB emulator is stopped');
    this.begin();
    try {
      const budget = maxItems === undefined ? undefined : { maxItems, cursors: this.sweepCursors };
      return await deleteExpiredItems({ settings: this.timeToLive, dynalite: this.dynalite, schemas: this.schemas, lock: this.lock }, now, budget);
    } finally {
      this.end();
    }
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    // dynalite's close stops the listener, then waits for LevelDB writes and closes it.
    const closed = new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.whenDrained.push(resolve));
    // Idle keep-alive sockets would otherwise hold the server open until they time out.
    this.server.closeAllConnections();
    await closed;
  }

  private begin(): void {
    this.inFlight++;
  }

  private end(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.whenDrained.length > 0) {
      const waiting = this.whenDrained;
      this.whenDrained = [];
      for (const resolve of waiting) resolve();
    }
  }
}

/**
 * Builds dynalite's server and borrows its private store for that one synchronous call.
 * With the store, start-up can check LevelDB really opened (a locked or broken data dir
 * would otherwise crash the process on the first request) and close it if start-up fails;
 * and its read streams are replaced with ones that close their LevelDB iterators.
 */
function createDynalite(dataDir: string, cacheLimits?: Partial<ReadCacheLimits>): { server: Server; store: DynaliteStore; cacheStats: () => ReadCacheStats; writeGroups: WriteGroups } {
  const writeGroups = new WriteGroups();
  // dynalite's expression parses are kept per expression (see expressions.ts).
  keepExpressionParses();
  const create = dynaliteDb.create;
  let store: DynaliteStore | undefined;
  let cacheStats: (() => ReadCacheStats) | undefined;
  dynaliteDb.create = (options) => {
    store = create(options);
    // dynalite never closes the LevelDB iterators behind its Query/Scan streams (see streams.ts).
    closeIteratorsWhenDone(store.db as unknown as StreamingLevel);
    // Point reads of hot items come from a bounded cache; writes still land in LevelDB as before.
    cacheStats = cachePointReads(store.db as unknown as PointLevel, cacheLimits);
    // Outermost: an operation's writes are collected and land (through the cache) as one batch.
    writeGroups.attach(store.db as unknown as PointLevel);
    return store;
  };
  try {
    // Zero delays: tables and indexes are ACTIVE as soon as their creation returns.
    const server = dynalite({ path: dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    if (!cacheStats || !store) throw new Error('dynalite did not build its store while creating the server');
    return { server, store, cacheStats, writeGroups };
  } finally {
    dynaliteDb.create = create;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function withRequest(body: Buffer, handle: (input: Record<string, unknown>) => Promise<Reply>): Promise<Reply> {
  let input: unknown;
  try {
    input = JSON.parse(body.toString('utf8'));
  } catch {
    return jsonReply(400, { __type: errorTypes.serialization });
  }
  if (!isRecord(input)) return jsonReply(400, { __type: errorTypes.serialization });
  return handle(input);
}

/** Writes `reply`; settles once it is handed to the OS, so shutdown never cuts it off. */
function send(response: ServerResponse, reply: Reply, closing: boolean): Promise<void> {
  if (response.headersSent || response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    response.once('finish', resolve);
    response.once('close', resolve);
    response.writeHead(reply.status, closing ? { ...reply.headers, Connection: 'close' } : reply.headers);
    response.end(reply.body);
  });
}

async function describeTable(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

function createTableInput(tableName: string, definition: typeof tableDefinition): CreateTableCommandInput {
  const keySchema = (partitionKey: string, sortKey: string) => [
    { AttributeName: partitionKey, KeyType: 'HASH' as const },
    { AttributeName: sortKey, KeyType: 'RANGE' as const },
  ];
  const attributes = [definition.partitionKey, definition.sortKey, ...definition.indexes.flatMap((index) => [index.partitionKey, index.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: keySchema(definition.partitionKey, definition.sortKey),
    GlobalSecondaryIndexes: definition.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: keySchema(index.partitionKey, index.sortKey),
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}

function checkTableShape(table: TableDescription, tableName: string, definition: typeof tableDefinition): void {
  const keys = (schema: TableDescription['KeySchema']) => (schema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`).join(',');
  const problems: string[] = [];
  if (keys(table.KeySchema) !== `${definition.partitionKey}:HASH,${definition.sortKey}:RANGE`) problems.push('key schema differs');
  for (const index of definition.indexes) {
    const found = table.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === index.name);
    if (!found) problems.push(`index ${index.name} is missing`);
    else if (keys(found.KeySchema) !== `${index.partitionKey}:HASH,${index.sortKey}:RANGE`) problems.push(`index ${index.name} has other keys`);
  }
  if (problems.length > 0) {
    // dynalite cannot add indexes to a table, so a stale local table must be recreated.
    throw new Error(`Table ${tableName} does not match its definition (${problems.join('; ')}); delete it to have it recreated`);
  }
}

async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  // Locally the first check passes; against AWS creation takes seconds to minutes.
  const deadline = Date.now() + 10 * 60_000;
  for (let delay = 25; ; delay = Math.min(delay * 2, 5_000)) {
    const table = await describeTable(client, tableName);
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return;
    if (Date.now() > deadline) throw new Error(`Table ${tableName} did not become ACTIVE in time`);
    await sleep(delay);
  }
}

async function ensureTimeToLive(client: DynamoDBClient, tableName: string, attribute: string): Promise<void> {
  const described = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const { TimeToLiveStatus: status, AttributeName: current } = described.TimeToLiveDescription ?? {};
  if (status === 'ENABLED' || status === 'ENABLING') {
    if (current === attribute) return;
    throw new Error(`Table ${tableName} has TTL on ${String(current)}, but its definition says ${attribute}`);
  }
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { Enabled: true, AttributeName: attribute } }));
}
