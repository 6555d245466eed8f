/**
 * Cursor lists (conventions.md §12): order by `date_created` or `date_modified` (the store's
 * date listings, store/date-listing.ts) with the id as tie-breaker, `after_item` / `before_item`, `date_start` / `date_end`
 * on the ordering field, `desc`, `limit`, and optional filters. Each page is one Query from
 * the cursor item's position, plus one tiny Query to learn whether the other direction has
 * items; nothing walks the items before the cursor.
 */
import { InvalidInputError } from '../http/errors';
import { booleanParameter } from '../http/request';
import { datePosition, readDateListing } from '../store/date-listing';
import { edgeFor, parseDateInput } from './dates';
import { limitParameter, pageUrlBuilder } from './offset-list';
import type { ResourceDeclaration } from './declarations';
import type { RenderContext } from './render-context';
import { renderElements } from './render';

/** What a cursor list request asks for. */
export interface CursorQuery {
  limit: number;
  descending: boolean;
  dateType: 'date_created' | 'date_modified';
  after?: string;
  before?: string;
  dateStart?: number;
  dateEnd?: number;
}

/** Parses and validates the cursor list parameters. */
export function cursorQuery(query: Record<string, string>, context: Pick<RenderContext, 'zone' | 'now'>): CursorQuery {
  const dateType = query.date_type || 'date_created';
  if (dateType !== 'date_created' && dateType !== 'date_modified') {
    throw new InvalidInputError('The parameter date_type must be date_created or date_modified.', { parameter: 'date_type', reason: 'invalid' });
  }
  const after = query.after_item || undefined;
  const before = query.before_item || undefined;
  if (after && before) {
    throw new InvalidInputError('Send after_item or before_item, not both.', { parameter: 'before_item', reason: 'conflict' });
  }
  const date = (name: 'date_start' | 'date_end') =>
    query[name] ? parseDateInput(query[name]!, { edge: edgeFor(name), zone: context.zone, now: context.now, name, kind: 'parameter' }) : undefined;
  const dateStart = date('date_start');
  const dateEnd = date('date_end');
  return {
    limit: limitParameter(query),
    descending: booleanParameter(query, 'desc') ?? false,
    dateType,
    ...(after ? { after } : {}),
    ...(before ? { before } : {}),
    ...(dateStart !== undefined ? { dateStart } : {}),
    ...(dateEnd !== undefined ? { dateEnd } : {}),
  };
}

/** Where a collection's items are listed, and how to read an item's id and the item itself. */
export interface CursorSource {
  partition: string;
  idOf(item: Record<string, unknown>): string;
  /** Reads one item by id within the collection through its store (undefined when absent), so the store knows its position. */
  find(id: string): Promise<Record<string, unknown> | undefined>;
  /** Optional DynamoDB filter over items (e.g. a search), applied after the key condition. */
  filter?: { expression: string; values: Record<string, unknown>; names?: Record<string, string> };
}

/** One page of a cursor list: the items in display order and the neighbours' existence. */
export async function readCursorPage(source: CursorSource, request: CursorQuery) {
  const order = request.dateType;
  let cursorItem: Record<string, unknown> | undefined;
  const cursorId = request.after ?? request.before;
  if (cursorId) {
    cursorItem = await source.find(cursorId);
    if (!cursorItem) {
      const parameter = request.after ? 'after_item' : 'before_item';
      throw new InvalidInputError(`The parameter ${parameter} names no item of this list.`, { parameter, reason: 'not_found' });
    }
  }
  const low = request.dateStart !== undefined ? new Date(request.dateStart).toISOString() : '';
  const high = request.dateEnd !== undefined ? `${new Date(request.dateEnd).toISOString()}#~` : '~';

  /**
   * Up to `limit` items strictly beyond `edge` (a sort key) in one direction, within the date
   * range. The edge narrows the key condition instead of serving as ExclusiveStartKey, so an
   * edge outside the range (a cursor item since modified, or from another day) just reads
   * from the range's own end.
   */
  const read = async (ascending: boolean, edge: string | undefined, limit: number) => {
    let from = low;
    let to = high;
    if (edge !== undefined) {
      if (ascending && edge > from) from = edge;
      if (!ascending && edge < to) to = edge;
    }
    if (from > to) return [];
    const items = await readDateListing({
      partition: source.partition,
      order,
      from,
      to,
      ascending,
      max: limit + 1,
      ...(source.filter ? { filter: source.filter } : {}),
    });
    // BETWEEN is inclusive: the edge item itself is not "beyond" it.
    return items.filter((item) => datePosition(item, order) !== edge).slice(0, limit);
  };
  const sortKey = (item: Record<string, unknown> | undefined) => (item ? datePosition(item, order) : undefined);

  // Reading forward follows the display order; `before_item` reads backwards from the cursor.
  const forward = request.before ? request.descending : !request.descending;
  const fetched = await read(forward === true, sortKey(cursorItem), request.limit + 1);
  const more = fetched.length > request.limit;
  let items = fetched.slice(0, request.limit);
  if (request.before) items = items.reverse();

  // Whether items exist before the first shown (or after the last shown) one, filters included.
  const ascendingDisplay = !request.descending;
  const beyond = async (item: Record<string, unknown> | undefined, towardsEnd: boolean) =>
    (await read(towardsEnd ? ascendingDisplay : !ascendingDisplay, sortKey(item), 1)).length > 0;
  const first = items[0];
  const last = items[items.length - 1];
  let hasPrevious: boolean;
  let hasNext: boolean;
  if (request.before) {
    hasPrevious = more;
    hasNext = items.length ? await beyond(last, true) : false;
  } else {
    hasNext = more;
    hasPrevious = cursorItem && items.length ? await beyond(first, false) : false;
  }
  return {
    items,
    previousBefore: hasPrevious && first ? source.idOf(first) : null,
    nextAfter: hasNext && last ? source.idOf(last) : null,
  };
}

/** The cursor list envelope, with page URLs repeating the query with only the cursor replaced. */
export function cursorList<T>(
  data: T[],
  page: { previousBefore: string | null; nextAfter: string | null },
  collectionUrl: string,
  query: Record<string, string>,
) {
  const withoutCursor = Object.fromEntries(Object.entries(query).filter(([name]) => name !== 'after_item' && name !== 'before_item'));
  const queryString = new URLSearchParams(query).toString();
  return {
    object: 'list',
    next_page_url: page.nextAfter === null ? null : pageUrlBuilder(collectionUrl, withoutCursor, 'after_item')(page.nextAfter),
    next_page_after_item: page.nextAfter,
    previous_page_url: page.previousBefore === null ? null : pageUrlBuilder(collectionUrl, withoutCursor, 'before_item')(page.previousBefore),
    previous_page_before_item: page.previousBefore,
    current_page_url: queryString ? `${collectionUrl}?${queryString}` : collectionUrl,
    data,
  };
}

/**
 * A cursor list answered: the page of `source` that `request` asks for, its items rendered as
 * `declaration`'s elements, in the list envelope of `collection` (a path below the API root)
 * whose page URLs repeat the request's query.
 */
export async function renderCursorList(source: CursorSource, request: CursorQuery, declaration: ResourceDeclaration, render: RenderContext, collection: string) {
  const page = await readCursorPage(source, request);
  const data = await renderElements(declaration, page.items, render);
  return cursorList(data, page, render.url(collection), render.query);
}
