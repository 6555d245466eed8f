/**
 * Table key schemas for the local DynamoDB emulator: which attributes form an item's key,
 * so a transaction can find the item a `Put` writes and spot two operations on one item.
 */
import type { CallResult, DynaliteInvoker, WireItem } from './wire';

interface DescribeTableOutput {
  Table?: { KeySchema?: Array<{ AttributeName: string; KeyType: string }> };
}

/** Key attribute names per table (partition key first), read from dynalite and cached. */
export class KeySchemas {
  private readonly cache = new Map<string, string[]>();

  constructor(private readonly dynalite: DynaliteInvoker) {}

  /** The key attribute names of `table`, or dynalite's error (e.g. ResourceNotFoundException). */
  async get(table: string): Promise<CallResult<string[]>> {
    const cached = this.cache.get(table);
    if (cached) return { ok: true, data: cached };
    const described = await this.dynalite.call<DescribeTableOutput>('DescribeTable', { TableName: table });
    if (!described.ok) return described;
    const schema = described.data.Table?.KeySchema ?? [];
    const attributes = [...schema].sort((a, b) => (a.KeyType === 'HASH' ? -1 : b.KeyType === 'HASH' ? 1 : 0)).map((key) => key.AttributeName);
    this.cache.set(table, attributes);
    return { ok: true, data: attributes };
  }

  /** Drops what is known about `table` (after CreateTable, UpdateTable or DeleteTable). */
  forget(table: string): void {
    this.cache.delete(table);
  }
}

/** The key of `item` under `attributes`, or the first key attribute the item lacks. */
export function keyOf(item: WireItem, attributes: readonly string[]): { key: WireItem } | { missing: string } {
  const key: WireItem = {};
  for (const name of attributes) {
    const value = item[name];
    if (value === undefined) return { missing: name };
    key[name] = value;
  }
  return { key };
}

/** A string that is equal for equal keys of one table (for duplicate detection). */
export function keyIdentity(table: string, key: WireItem, attributes: readonly string[]): string {
  return `${table}\u0000${attributes.map((name) => JSON.stringify(key[name] ?? null)).join('\u0000')}`;
}
