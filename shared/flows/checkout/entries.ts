/**
 * Transaction entries the checkout needs from other modules, named. Modules whose stores do
 * not yet answer named entries hand back raw DynamoDB entries; `named` wraps either form, so
 * the checkout never decodes a cancellation by position.
 */
import type { TransactEntry, TransactItem } from '../../store/transact';

/** A named entry from either a named entry or a raw one (undefined stays undefined). */
export function named(name: string, entry: TransactEntry | TransactItem | undefined): TransactEntry | undefined {
  if (!entry) return undefined;
  return 'item' in entry && 'name' in entry ? (entry as TransactEntry) : { name, item: entry as TransactItem };
}

/** The non-empty entries of a list. */
export function present(...entries: Array<TransactEntry | undefined>): TransactEntry[] {
  return entries.filter((entry): entry is TransactEntry => entry !== undefined);
}
