/**
 * Time to live for the local DynamoDB emulator. dynalite knows neither UpdateTimeToLive nor
 * expiry, so the emulator keeps each table's TTL attribute in a small JSON file beside the
 * LevelDB files and deletes expired items when asked (`sweepExpired`), the way DynamoDB's
 * background process does: lazily, and never an item whose expiry was pushed back meanwhile.
 */
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { keyOf, type KeySchemas } from './keys';
import type { ReadWriteLock } from './lock';
import { isRecord, jsonReply, missingMember, validationError, type DynaliteInvoker, type Reply, type WireItem } from './wire';

/** Where the TTL settings of the emulator on `dataDir` live. */
export function timeToLivePath(dataDir: string): string {
  return join(dataDir, 'cartwheel-ttl.json');
}

/** Per-table TTL attribute names, persisted so they survive restarts. */
export class TimeToLiveSettings {
  private constructor(
    private readonly file: string,
    private readonly attributes: Map<string, string>,
  ) {}

  /** Reads the settings file (absent: no table has TTL enabled). */
  static async load(file: string): Promise<TimeToLiveSettings> {
    const attributes = new Map<string, string>();
    try {
      const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
      const tables = isRecord(parsed) && isRecord(parsed.tables) ? parsed.tables : {};
      for (const [table, attribute] of Object.entries(tables)) {
        if (typeof attribute === 'string') attributes.set(table, attribute);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return new TimeToLiveSettings(file, attributes);
  }

  /** The TTL attribute of `table`, if TTL is enabled on it. */
  attributeOf(table: string): string | undefined {
    return this.attributes.get(table);
  }

  /** Every table with TTL enabled and its attribute. */
  enabled(): Array<[table: string, attribute: string]> {
    return [...this.attributes.entries()];
  }

  /** Enables (`attribute`) or disables (undefined) TTL on `table`, and persists. */
  async set(table: string, attribute: string | undefined): Promise<void> {
    if (attribute === undefined) this.attributes.delete(table);
    else this.attributes.set(table, attribute);
    await this.save();
  }

  private async save(): Promise<void> {
    // Write-then-rename, so a crash leaves either the old or the new settings, never half.
    const temporary = `${this.file}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(JSON.stringify({ tables: Object.fromEntries(this.attributes) }));
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
  }
}

/** Answers UpdateTimeToLive as DynamoDB does (the caller holds the exclusive lock). */
export async function updateTimeToLive(settings: TimeToLiveSettings, dynalite: DynaliteInvoker, request: unknown): Promise<Reply> {
  if (!isRecord(request) || typeof request.TableName !== 'string') return missingMember('tableName');
  const specification = request.TimeToLiveSpecification;
  if (!isRecord(specification)) return missingMember('timeToLiveSpecification');
  if (typeof specification.Enabled !== 'boolean') return missingMember('timeToLiveSpecification.enabled');
  if (typeof specification.AttributeName !== 'string') return missingMember('timeToLiveSpecification.attributeName');
  const table = request.TableName;
  const { Enabled: enabled, AttributeName: attribute } = specification;
  if (attribute.length === 0 || attribute.length > 255) {
    return validationError(
      `1 validation error detected: Value '${attribute}' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length between 1 and 255`,
    );
  }

  const described = await dynalite.call('DescribeTable', { TableName: table });
  if (!described.ok) return described.reply;
  const current = settings.attributeOf(table);
  if (enabled && current !== undefined) {
    return validationError(
      current === attribute
        ? 'TimeToLive is already enabled'
        : `TimeToLive is active on a different AttributeName: current AttributeName is ${current}`,
    );
  }
  if (!enabled && current === undefined) return validationError('TimeToLive is already disabled');
  await settings.set(table, enabled ? attribute : undefined);
  return jsonReply(200, { TimeToLiveSpecification: { Enabled: enabled, AttributeName: attribute } });
}

/** Answers DescribeTimeToLive with the stored setting (dynalite always says DISABLED). */
export async function describeTimeToLive(settings: TimeToLiveSettings, dynalite: DynaliteInvoker, request: unknown): Promise<Reply> {
  // dynalite validates the request and checks the table exists; only its answer is wrong.
  const described = await dynalite.call('DescribeTimeToLive', request);
  if (!described.ok) return described.reply;
  const attribute = isRecord(request) && typeof request.TableName === 'string' ? settings.attributeOf(request.TableName) : undefined;
  return jsonReply(200, {
    TimeToLiveDescription:
      attribute === undefined ? { TimeToLiveStatus: 'DISABLED' } : { TimeToLiveStatus: 'ENABLED', AttributeName: attribute },
  });
}

interface ScanOutput {
  Items?: WireItem[];
  LastEvaluatedKey?: WireItem;
}

/** Everything `deleteExpiredItems` works with. */
export interface SweepContext {
  settings: TimeToLiveSettings;
  dynalite: DynaliteInvoker;
  schemas: KeySchemas;
  lock: ReadWriteLock;
}

/**
 * A bounded sweep: at most `maxItems` items examined per call, going on where the previous call
 * of the same budget stopped (`cursors`, by table) and starting over after the last item. The
 * runtime's timer sweeps this way, so a table of any size costs the same every tick (a full scan
 * every few seconds grew with the data until it took the whole process).
 */
export interface SweepBudget {
  maxItems: number;
  cursors: Map<string, WireItem>;
}

/**
 * Deletes items whose TTL attribute is a number <= `now` (epoch seconds), in every table with
 * TTL enabled; returns how many it deleted. Without `budget`, the whole of every table; with
 * one, the next `budget.maxItems` items of each. Takes the lock per page and per delete, not
 * for the whole sweep, so requests keep flowing while it runs.
 */
export async function deleteExpiredItems(context: SweepContext, now: number, budget?: SweepBudget): Promise<number> {
  const { settings, dynalite, schemas, lock } = context;
  const threshold = { ':now': { N: String(now) } };
  let deleted = 0;
  for (const [table, attribute] of settings.enabled()) {
    const schema = await schemas.get(table);
    if (!schema.ok) continue; // Table gone since TTL was enabled: nothing to sweep.
    const names: Record<string, string> = { '#ttl': attribute };
    schema.data.forEach((name, index) => (names[`#k${index}`] = name));
    const projection = schema.data.map((_, index) => `#k${index}`).join(', ');
    let startKey: WireItem | undefined = budget?.cursors.get(table);
    let left = budget ? budget.maxItems : Infinity;
    do {
      const page = await lock.shared(() =>
        dynalite.call<ScanOutput & { ScannedCount?: number }>('Scan', {
          TableName: table,
          // A comparison with a number is false for non-number values, as DynamoDB's TTL requires.
          FilterExpression: '#ttl <= :now',
          ProjectionExpression: projection,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: threshold,
          // Limit bounds the items examined, before the filter.
          ...(budget ? { Limit: Math.min(left, 1000) } : {}),
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      if (!page.ok) break;
      for (const item of page.data.Items ?? []) {
        const found = keyOf(item, schema.data);
        if ('missing' in found) continue;
        // Re-checked under the lock: an item whose expiry moved since the scan stays.
        const result = await lock.exclusive(() =>
          dynalite.call('DeleteItem', {
            TableName: table,
            Key: found.key,
            ConditionExpression: '#ttl <= :now',
            ExpressionAttributeNames: { '#ttl': attribute },
            ExpressionAttributeValues: threshold,
          }),
        );
        if (result.ok) deleted++;
      }
      startKey = page.data.LastEvaluatedKey;
      left -= page.data.ScannedCount ?? 0;
    } while (startKey && left > 0);
    if (budget) {
      if (startKey) budget.cursors.set(table, startKey);
      else budget.cursors.delete(table); // the end: the next call starts over
    }
  }
  return deleted;
}
