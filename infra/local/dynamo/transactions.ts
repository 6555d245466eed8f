/**
 * TransactWriteItems and TransactGetItems for the local DynamoDB emulator (dynalite has
 * neither), with DynamoDB's all-or-nothing outcome and error shapes.
 *
 * Recovery story: the emulator holds its exclusive lock for the whole transaction and runs each
 * operation as the matching single-item call, so dynalite evaluates conditions and update
 * expressions exactly as it does everywhere else. Nothing reaches LevelDB meanwhile: the
 * operation's writes are collected and land as one batch when the exclusive section ends
 * (write-groups.ts), so a process that dies part-way leaves nothing of the transaction on
 * disk. If a condition fails, the transaction drops what it collected (`WriteGroups.rollback`),
 * and a ConditionCheck drops its own no-op write at once, so nothing of either ever lands.
 * Earlier versions read a before-image of every item to put back, and before that wrote them to
 * an undo journal; a journal one of them left is undone at start (`recover`) before anything is
 * served.
 */
import { createHash } from 'node:crypto';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { keyIdentity, keyOf, type KeySchemas } from './keys';
import {
  errorReply,
  errorTypes,
  isRecord,
  jsonReply,
  missingMember,
  validationError,
  type DynaliteInvoker,
  type Reply,
  type WireItem,
} from './wire';

/** One item a transaction may change, and what it held before (null: it did not exist). */
export interface JournalEntry {
  table: string;
  key: WireItem;
  before: WireItem | null;
}

/** The undo journal's file content. */
export interface TransactionJournal {
  version: 1;
  entries: JournalEntry[];
}

/** Where the undo journal of the emulator on `dataDir` lives (inside the data dir). */
export function transactionJournalPath(dataDir: string): string {
  return join(dataDir, 'cartwheel-txn-journal.json');
}

/** The writes of the operation under way (write-groups.ts), which a refused transaction drops. */
export interface WriteMarks {
  mark(): number;
  rollback(mark: number): void;
}

/** Settings of the transaction engine. */
export interface TransactionOptions {
  /** Where an earlier version's undo journal would be (`recover` undoes one left there). */
  journalFile: string;
  /** The operation's collected writes: each transaction runs inside one. */
  writes: WriteMarks;
  /** Called after each operation of a write transaction; tests use it to die mid-transaction. */
  onStep?: (step: number) => void;
}

type WriteKind = 'ConditionCheck' | 'Put' | 'Delete' | 'Update';

interface PlannedWrite {
  kind: WriteKind;
  table: string;
  key: WireItem;
  operation: 'PutItem' | 'UpdateItem' | 'DeleteItem';
  payload: Record<string, unknown>;
  returnOldOnFailure: boolean;
}

interface PlannedGet {
  table: string;
  payload: Record<string, unknown>;
}

interface CancellationReason {
  Code: string;
  Message?: string;
  Item?: WireItem;
}

const maxTransactItems = 100;
const writeKinds: readonly WriteKind[] = ['ConditionCheck', 'Put', 'Delete', 'Update'];
const memberNames: Record<WriteKind, string> = {
  ConditionCheck: 'conditionCheck',
  Put: 'put',
  Delete: 'delete',
  Update: 'update',
};
const expressionMembers = ['ConditionExpression', 'ExpressionAttributeNames', 'ExpressionAttributeValues'] as const;

// Errors that depend on the stored item rather than on the request: DynamoDB reports them
// as a `ValidationError` cancellation reason, not as a ValidationException of the request.
const itemValidationMessages = new Set([
  'The provided expression refers to an attribute that does not exist in the item',
  'An operand in the update expression has an incorrect data type',
  'The document path provided in the update expression is invalid for update',
  'Type mismatch for attribute to update',
  'Item size to update has exceeded the maximum allowed size',
]);

const duplicateItemMessage = 'Transaction request cannot include multiple operations on one item';
const tokenLifetimeMs = 10 * 60_000; // DynamoDB's idempotency window for ClientRequestToken

/** A short digest of a transaction request without its token: what a retry must repeat exactly. */
function requestDigest(request: object): string {
  return createHash('sha256')
    .update(JSON.stringify({ ...request, ClientRequestToken: undefined }))
    .digest('base64');
}

/** The transaction engine over dynalite; callers hold the emulator's lock around each call. */
export class Transactions {
  // ClientRequestTokens of committed transactions, oldest first (insertion order = expiry order),
  // each with a digest of its request: the window is 10 minutes, and a checkout's transaction
  // is kilobytes of JSON, so keeping the requests themselves held hundreds of MB under load.
  private readonly committedTokens = new Map<string, { fingerprint: string; expires: number }>();

  constructor(
    private readonly dynalite: DynaliteInvoker,
    private readonly schemas: KeySchemas,
    private readonly options: TransactionOptions,
  ) {}

  /** Answers a TransactWriteItems request; the caller holds the exclusive lock. */
  async write(request: unknown): Promise<Reply> {
    // The SDK sends a ClientRequestToken with every call; a retry of a committed transaction
    // (say, after a dropped connection) must succeed without applying it twice.
    const token = isRecord(request) && typeof request.ClientRequestToken === 'string' ? request.ClientRequestToken : undefined;
    const fingerprint = token === undefined ? '' : requestDigest(request as object);
    if (token !== undefined) {
      const seen = this.committedToken(token);
      if (seen !== undefined) {
        return seen === fingerprint
          ? jsonReply(200, {})
          : errorReply(errorTypes.idempotentParameterMismatch, 'Request contained a ClientRequestToken that was used with different parameters');
      }
    }

    const planned = await this.planWrites(request);
    if (!Array.isArray(planned)) return planned;

    const start = this.options.writes.mark();
    let outcome: Reply | 'committed';
    try {
      outcome = await this.apply(planned);
    } catch (error) {
      // Unexpected (dynalite itself failed): nothing of the transaction lands.
      this.options.writes.rollback(start);
      throw error;
    }
    if (outcome !== 'committed') {
      this.options.writes.rollback(start);
      return outcome;
    }
    if (token !== undefined) this.committedTokens.set(token, { fingerprint, expires: Date.now() + tokenLifetimeMs });
    return jsonReply(200, {});
  }

  /** Answers a TransactGetItems request; the caller holds the shared lock. */
  async get(request: unknown): Promise<Reply> {
    const planned = await this.planGets(request);
    if (!Array.isArray(planned)) return planned;
    const results = await Promise.all(planned.map((get) => this.dynalite.call<{ Item?: WireItem }>('GetItem', get.payload)));
    const responses: Array<{ Item?: WireItem }> = [];
    for (const result of results) {
      if (!result.ok) return result.reply;
      responses.push(result.data.Item ? { Item: result.data.Item } : {});
    }
    return jsonReply(200, { Responses: responses });
  }

  /**
   * Undoes a transaction an earlier version (which wrote an undo journal) was cut short in, if
   * its journal says there was one; returns how many items it restored. Run before the emulator
   * serves its first request.
   */
  async recover(): Promise<number> {
    let text: string;
    try {
      text = await readFile(this.options.journalFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    // A journal that does not parse (or is empty) was cut short while being written, or belongs
    // to no transaction: it was written before the first operation ran, so nothing was applied.
    const journal = parseJournal(text);
    if (journal) await this.restore(journal.entries);
    await removeJournal(this.options.journalFile);
    return journal?.entries.length ?? 0;
  }

  /** How many committed transactions' tokens are still in their window (a soak sees it level at 10 minutes' worth). */
  heldTokens(): number {
    this.dropExpiredTokens();
    return this.committedTokens.size;
  }

  /** The fingerprint of the committed transaction that used `token`, if still in its window. */
  private committedToken(token: string): string | undefined {
    this.dropExpiredTokens();
    return this.committedTokens.get(token)?.fingerprint;
  }

  private dropExpiredTokens(): void {
    const now = Date.now();
    for (const [oldest, entry] of this.committedTokens) {
      if (entry.expires > now) break;
      this.committedTokens.delete(oldest);
    }
  }

  private async planWrites(request: unknown): Promise<PlannedWrite[] | Reply> {
    const items = transactItems(request);
    if (!Array.isArray(items)) return items;
    const planned: PlannedWrite[] = [];
    const seen = new Set<string>();
    for (const [index, entry] of items.entries()) {
      const kinds = isRecord(entry) ? writeKinds.filter((kind) => entry[kind] != null) : [];
      if (kinds.length !== 1 || !isRecord(entry)) {
        return validationError('TransactItems can only contain one of Check, Put, Update or Delete');
      }
      const kind = kinds[0]!;
      const spec = entry[kind];
      const path = `transactItems.${index + 1}.member.${memberNames[kind]}`;
      if (!isRecord(spec) || typeof spec.TableName !== 'string') return missingMember(`${path}.tableName`);
      const table = spec.TableName;
      const returnMode = spec.ReturnValuesOnConditionCheckFailure;
      if (returnMode != null && returnMode !== 'ALL_OLD' && returnMode !== 'NONE') {
        return returnModeError(`${path}.returnValuesOnConditionCheckFailure`, returnMode);
      }
      const schema = await this.schemas.get(table);
      if (!schema.ok) return schema.reply;

      let key: WireItem;
      if (kind === 'Put') {
        if (!isRecord(spec.Item)) return missingMember(`${path}.item`);
        const found = keyOf(spec.Item, schema.data);
        if ('missing' in found) {
          return validationError(`One or more parameter values were invalid: Missing the key ${found.missing} in the item`);
        }
        key = found.key;
      } else {
        if (!isRecord(spec.Key)) return missingMember(`${path}.key`);
        key = spec.Key;
      }
      if (kind === 'Update' && typeof spec.UpdateExpression !== 'string') return missingMember(`${path}.updateExpression`);
      if (kind === 'ConditionCheck' && typeof spec.ConditionExpression !== 'string') {
        return missingMember(`${path}.conditionExpression`);
      }

      const identity = keyIdentity(table, key, schema.data);
      if (seen.has(identity)) return validationError(duplicateItemMessage);
      seen.add(identity);

      const expressions: Record<string, unknown> = {};
      for (const member of expressionMembers) if (spec[member] != null) expressions[member] = spec[member];
      const base = { TableName: table, ...expressions };
      planned.push({
        kind,
        table,
        key,
        returnOldOnFailure: returnMode === 'ALL_OLD',
        ...(kind === 'Put'
          ? { operation: 'PutItem', payload: { ...base, Item: spec.Item } }
          : kind === 'Update'
            ? { operation: 'UpdateItem', payload: { ...base, Key: key, UpdateExpression: spec.UpdateExpression } }
            : kind === 'Delete'
              ? { operation: 'DeleteItem', payload: { ...base, Key: key } }
              : // An update without an update expression changes nothing: only the condition runs.
                { operation: 'UpdateItem', payload: { ...base, Key: key } }),
      });
    }
    return planned;
  }

  private async planGets(request: unknown): Promise<PlannedGet[] | Reply> {
    const items = transactItems(request);
    if (!Array.isArray(items)) return items;
    const planned: PlannedGet[] = [];
    const seen = new Set<string>();
    for (const [index, entry] of items.entries()) {
      const path = `transactItems.${index + 1}.member.get`;
      const get = isRecord(entry) ? entry.Get : undefined;
      if (!isRecord(get)) return missingMember(path);
      if (typeof get.TableName !== 'string') return missingMember(`${path}.tableName`);
      if (!isRecord(get.Key)) return missingMember(`${path}.key`);
      const schema = await this.schemas.get(get.TableName);
      if (!schema.ok) return schema.reply;
      const identity = keyIdentity(get.TableName, get.Key, schema.data);
      if (seen.has(identity)) return validationError(duplicateItemMessage);
      seen.add(identity);
      const payload: Record<string, unknown> = { TableName: get.TableName, Key: get.Key, ConsistentRead: true };
      if (get.ProjectionExpression != null) payload.ProjectionExpression = get.ProjectionExpression;
      if (get.ExpressionAttributeNames != null) payload.ExpressionAttributeNames = get.ExpressionAttributeNames;
      planned.push({ table: get.TableName, payload });
    }
    return planned;
  }

  /** Runs every operation; 'committed', or the reply that cancels the transaction. */
  private async apply(planned: PlannedWrite[]): Promise<Reply | 'committed'> {
    const reasons: CancellationReason[] = [];
    let cancelled = false;
    for (const [step, write] of planned.entries()) {
      const before = this.options.writes.mark();
      // Operations after a failed one still run (and are dropped with the rest), so the
      // cancellation lists every failing condition, as DynamoDB does.
      const result = await this.dynalite.call(write.operation, write.payload);
      // A check leaves no trace: its no-op update may have written the item (or, for a
      // missing one, created a key-only item).
      if (write.kind === 'ConditionCheck') this.options.writes.rollback(before);
      if (result.ok) {
        reasons.push({ Code: 'None' });
      } else if (result.type === 'ConditionalCheckFailedException') {
        cancelled = true;
        // A failed operation changed nothing, and no other operation names its item.
        const old = write.returnOldOnFailure ? await this.currentItem(write) : null;
        reasons.push({ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', ...(old ? { Item: old } : {}) });
      } else if (result.type === 'ValidationException' && itemValidationMessages.has(result.message)) {
        cancelled = true;
        reasons.push({ Code: 'ValidationError', Message: result.message });
      } else {
        // A malformed request (bad key or expression, unknown table, item too large): DynamoDB
        // rejects the whole request with that error.
        return result.reply;
      }
      this.options.onStep?.(step);
    }
    if (!cancelled) return 'committed';
    const codes = reasons.map((reason) => reason.Code).join(', ');
    return jsonReply(400, {
      __type: errorTypes.transactionCanceled,
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`,
      CancellationReasons: reasons,
    });
  }

  /** The item `write` names, as stored now (null: none). */
  private async currentItem(write: PlannedWrite): Promise<WireItem | null> {
    const found = await this.dynalite.must<{ Item?: WireItem }>('GetItem', { TableName: write.table, Key: write.key, ConsistentRead: true });
    return found.Item ?? null;
  }

  /** Puts an earlier version's journaled before-images back (newest first); idempotent, so a crash mid-undo is fine. */
  private async restore(entries: readonly JournalEntry[]): Promise<void> {
    for (const entry of [...entries].reverse()) {
      const result = entry.before
        ? await this.dynalite.call('PutItem', { TableName: entry.table, Item: entry.before })
        : await this.dynalite.call('DeleteItem', { TableName: entry.table, Key: entry.key });
      // A table deleted since leaves nothing to restore into.
      if (!result.ok && result.type !== 'ResourceNotFoundException') {
        throw new Error(`Undo of a transaction on ${entry.table} failed: ${result.type}: ${result.message}`);
      }
    }
  }
}

/** The `TransactItems` list of a request, or the ValidationException DynamoDB answers. */
function transactItems(request: unknown): unknown[] | Reply {
  const items = isRecord(request) ? request.TransactItems : undefined;
  if (!Array.isArray(items)) return missingMember('transactItems');
  if (items.length === 0) {
    return validationError(
      "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
  }
  if (items.length > maxTransactItems) {
    return validationError(
      `1 validation error detected: Value '[...]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to ${maxTransactItems}`,
    );
  }
  return items;
}

function returnModeError(path: string, value: unknown): Reply {
  return validationError(
    `1 validation error detected: Value '${String(value)}' at '${path}' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]`,
  );
}

async function removeJournal(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function parseJournal(text: string): TransactionJournal | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // Torn write: see `recover`.
  }
  if (isRecord(parsed) && parsed.version === 1 && Array.isArray(parsed.entries)) {
    const entries = parsed.entries.filter(
      (entry): entry is JournalEntry =>
        isRecord(entry) && typeof entry.table === 'string' && isRecord(entry.key) && (entry.before === null || isRecord(entry.before)),
    );
    if (entries.length === parsed.entries.length) return { version: 1, entries };
  }
  // Complete but unreadable: refuse to start rather than silently drop the undo information.
  throw new Error('The DynamoDB emulator transaction journal is not in a known format; inspect or remove it');
}
