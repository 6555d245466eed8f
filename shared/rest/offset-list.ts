/** The offset list envelope and its parameters (conventions.md section 12). */
import { InvalidInputError } from '../http/errors';

/** Parsed `limit` and `offset`. */
export interface OffsetPage {
  limit: number;
  offset: number;
}

/** Largest page. */
export const MAX_LIMIT = 100;

/** The first page (default order, default limit) of a whole sub-collection read in its default order, and its size, for `expand`. */
export function firstPageOf<T>(records: readonly T[]): { records: T[]; totalItems: number } {
  return { records: records.slice(0, MAX_LIMIT), totalItems: records.length };
}

/** Reads `limit` (1–100, default 100, larger values reduced) and `offset` (>= 0, default 0). */
export function offsetPage(query: Record<string, string>): OffsetPage {
  return { limit: limitParameter(query), offset: nonNegativeInteger(query, 'offset', 0) };
}

/** Reads `limit`: 1–100, default 100; values above 100 become 100; zero, negative or non-integers fail. */
export function limitParameter(query: Record<string, string>): number {
  const raw = query.limit;
  if (raw === undefined || raw === '') return MAX_LIMIT;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new InvalidInputError('The parameter limit must be an integer from 1 to 100.', {
      parameter: 'limit',
      reason: 'invalid',
    });
  }
  return Math.min(Number(raw), MAX_LIMIT);
}

function nonNegativeInteger(query: Record<string, string>, name: string, fallback: number): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new InvalidInputError(`The parameter ${name} must be a non-negative integer.`, {
      parameter: name,
      reason: 'invalid',
    });
  }
  return Number(raw);
}

/**
 * The offset envelope. `pageUrl(offset)` builds an absolute URL that repeats every original
 * query parameter with only `offset` replaced.
 */
export function offsetList<T>(data: T[], page: OffsetPage, totalItems: number, pageUrl: PageUrlBuilder) {
  const { limit, offset } = page;
  const nextOffset = offset + limit < totalItems ? offset + limit : null;
  const previousOffset = offset > 0 ? Math.max(0, offset - limit) : null;
  return {
    object: 'list',
    total_items: totalItems,
    total_pages: Math.ceil(totalItems / limit),
    current_page: Math.floor(offset / limit) + 1,
    next_page_url: nextOffset === null ? null : pageUrl(nextOffset),
    next_page_offset: nextOffset,
    previous_page_url: previousOffset === null ? null : pageUrl(previousOffset),
    previous_page_offset: previousOffset,
    current_page_url: pageUrl.current,
    data,
  };
}

/** Page URLs of a list: `(value)` replaces the paging parameter; `current` is the request's own URL. */
export type PageUrlBuilder = ((value: number | string) => string) & { current: string };

/** A page URL builder: the collection URL with the original query and `name` set to the value. */
export function pageUrlBuilder(collectionUrl: string, query: Record<string, string>, name: string): PageUrlBuilder {
  const build = (value: number | string): string => {
    const params = new URLSearchParams(query);
    params.set(name, String(value));
    return `${collectionUrl}?${params.toString()}`;
  };
  const own = new URLSearchParams(query).toString();
  return Object.assign(build, { current: own ? `${collectionUrl}?${own}` : collectionUrl });
}

/** Reads `sort_by` (default `date_created`); a value not in `allowed` is 400 invalid_input. */
export function sortByParameter<S extends string>(query: Record<string, string>, allowed: readonly S[]): S {
  const sortBy = query.sort_by || 'date_created';
  if (!(allowed as readonly string[]).includes(sortBy)) {
    throw new InvalidInputError(`The parameter sort_by must be one of ${allowed.join(', ')}.`, { parameter: 'sort_by', reason: 'invalid' });
  }
  return sortBy as S;
}
