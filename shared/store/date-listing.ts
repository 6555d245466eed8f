/**
 * Date listings: the records of a collection in date_created order (gsi1) or date_modified
 * order (gsi2), sorted by `<time ISO>#<id>` within the collection partition (`byDate` in
 * entity.ts), as the cursor lists read them (shared/rest/cursor-list.ts). Records come without
 * storage attributes; a record's position in a listing is the sort key the store found it under.
 */
import { table } from './client';
import { queryItems } from './query';
import { positionIn, recordsOf } from './storage';
import { tableDefinition, type IndexName } from './table';

/** The order of a date listing. */
export type DateOrder = 'date_created' | 'date_modified';

const INDEX: Record<DateOrder, IndexName> = { date_created: 'gsi1', date_modified: 'gsi2' };

/** One read of a date listing. */
export interface DateListingRead {
  partition: string;
  order: DateOrder;
  /** Lowest and highest sort key read (inclusive). */
  from: string;
  to: string;
  ascending: boolean;
  /** Records read at most. */
  max: number;
  /** A DynamoDB filter over the records (a search), applied after the key condition. */
  filter?: { expression: string; values: Record<string, unknown>; names?: Record<string, string> };
}

/** Up to `max` records of a listing with sort keys between `from` and `to`, in the order asked. */
export async function readDateListing(read: DateListingRead): Promise<Record<string, unknown>[]> {
  const index = tableDefinition.indexes.find((candidate) => candidate.name === INDEX[read.order])!;
  const items = await queryItems(
    {
      TableName: table(),
      IndexName: index.name,
      KeyConditionExpression: '#ipk = :pk AND #isk BETWEEN :low AND :high',
      ExpressionAttributeNames: { '#ipk': index.partitionKey, '#isk': index.sortKey, ...read.filter?.names },
      ExpressionAttributeValues: { ':pk': read.partition, ':low': read.from, ':high': read.to, ...read.filter?.values },
      ...(read.filter ? { FilterExpression: read.filter.expression } : {}),
      ScanIndexForward: read.ascending,
      Limit: read.filter ? 200 : read.max,
    },
    read.max,
  );
  return recordsOf(items);
}

/** Where a record the store read sits in a date listing (its sort key there), or undefined. */
export function datePosition(record: object, order: DateOrder): string | undefined {
  return positionIn(record, INDEX[order]);
}
