/**
 * The sales aggregates' items as DynamoDB leaves them after the entries' `ADD`s, without a
 * database, for the report's arithmetic tests and the bench; and the hour items the code
 * before the day items wrote (`hour#…`, `<quarter><kind><C><S><metric>`) for the same sales,
 * derived from the day entries slot by slot, so tests and the bench can store legacy data.
 */
import type { SalesQuarter } from '../../../shared/modules/reports/sales-store';
import { addDayItem, addHourItem, hourKey, QuarterSums } from '../../../shared/modules/reports/sales-store';
import type { TransactEntry } from '../../../shared/store/transact';

const HOUR_MS = 3_600_000;
type Item = Record<string, unknown>;

/** The attribute → increment pairs of an `ADD` entry. */
function addsOf(entry: TransactEntry): Array<[string, number]> {
  const update = entry.item.Update!;
  return Object.entries(update.ExpressionAttributeNames!).map(([placeholder, name]) => [name, update.ExpressionAttributeValues![`:v${placeholder.slice(2)}`] as number]);
}

/** Adds `adds` to the item of `key` in `items` (creating it), as `ADD` does. */
function addInto(items: Map<string, Item>, key: Item, adds: Array<[string, number]>, extra: Item = {}): void {
  const id = `${key.pk}|${key.sk}`;
  const item = items.get(id) ?? { ...key, ...extra };
  for (const [name, value] of adds) item[name] = ((item[name] as number | undefined) ?? 0) + value;
  items.set(id, item);
}

/** The day items a list of entries makes. */
export function dayItemsOf(entries: readonly TransactEntry[]): Item[] {
  const items = new Map<string, Item>();
  for (const entry of entries) addInto(items, entry.item.Update!.Key as Item, addsOf(entry));
  return [...items.values()];
}

/** The hour items the code before the day items wrote for the same entries. */
export function legacyHourItemsOf(entries: readonly TransactEntry[]): Item[] {
  const items = new Map<string, Item>();
  for (const entry of entries) {
    const key = entry.item.Update!.Key as { pk: string; sk: string };
    const [, date, pair] = key.sk.split('#');
    const dayMs = Date.parse(`${date}T00:00:00Z`);
    for (const [name, value] of addsOf(entry)) {
      const slot = Number(name.slice(0, 2));
      const hourMs = dayMs + Math.floor(slot / 4) * HOUR_MS;
      const legacyKey = { pk: key.pk.replace(/#sales-days$/, '#sales-hours'), sk: hourKey(hourMs) };
      addInto(items, legacyKey, [[`${slot % 4}${name[2]}${pair}${name[3]}`, value]], { hour_ms: hourMs });
    }
  }
  return [...items.values()];
}

/** The quarters the reader makes of stored items (day or hour ones). */
export function quartersOf(items: readonly Item[]): SalesQuarter[] {
  const sums = new QuarterSums();
  for (const item of items) (String(item.sk).startsWith('day#') ? addDayItem : addHourItem)(sums, item);
  return sums.sorted();
}

