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

/** The counters the code before the day items always wrote, zeros included (the day entries leave zeros out). */
const LEGACY_LETTERS: Record<string, string> = { o: 'nqsdhtT', x: 'sdhtT', r: 'nr', y: 'r' };

/** The hour items the code before the day items wrote for the same entries (zeros included, as it wrote them). */
export function legacyHourItemsOf(entries: readonly TransactEntry[]): Item[] {
  const items = new Map<string, Item>();
  for (const entry of entries) {
    const key = entry.item.Update!.Key as { pk: string; sk: string };
    const [, date, pair] = key.sk.split('#');
    const dayMs = Date.parse(`${date}T00:00:00Z`);
    const slot = Number(Object.values(entry.item.Update!.ExpressionAttributeNames!)[0]!.slice(0, 2));
    const hourMs = dayMs + Math.floor(slot / 4) * HOUR_MS;
    const adds = new Map(addsOf(entry).filter(([name]) => /^\d\d/.test(name)).map(([name, value]) => [name.slice(2), value]));
    const kinds = adds.has('on') ? (pair!.slice(0, 3) === pair!.slice(3) ? 'o' : 'ox') : pair!.slice(0, 3) === pair!.slice(3) ? 'r' : 'ry';
    const legacy: Array<[string, number]> = [...kinds].flatMap((kind) => [...LEGACY_LETTERS[kind]!].map((letter): [string, number] => [`${slot % 4}${kind}${pair}${letter}`, adds.get(`${kind}${letter}`) ?? 0]));
    addInto(items, { pk: key.pk.replace(/#sales-days$/, '#sales-hours'), sk: hourKey(hourMs) }, legacy, { hour_ms: hourMs });
  }
  return [...items.values()];
}

/** The quarters the reader makes of stored items (day or hour ones). */
export function quartersOf(items: readonly Item[]): SalesQuarter[] {
  const sums = new QuarterSums();
  for (const item of items) (String(item.sk).startsWith('day#') ? addDayItem : addHourItem)(sums, item);
  return sums.sorted();
}

