/**
 * `Accept` negotiation for the API's one exception to JSON (conventions.md §4): a resource that
 * also has a printable form (an order's receipt, an invoice) answers it only when the request
 * asks for that exact type first, and prefers it; every other `Accept`, including none, `*\/*`,
 * `application/*` or only types the API cannot produce, keeps JSON (never 406).
 */
import type { Action, ApiResult } from './types';

/** At most this many media ranges are read; real clients send a handful. */
const MAX_RANGES = 32;

/** RFC 9110 qvalues: 0 to 1 with up to three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** One media range of an `Accept` header: its type (lowercase, parameters dropped) and weight. */
interface MediaRange {
  type: string;
  q: number;
}

/** The media ranges of an `Accept` value in the order sent; a malformed weight counts as 0 (not acceptable). */
function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',', MAX_RANGES)) {
    const [typePart, ...params] = part.split(';');
    const type = typePart?.trim().toLowerCase() ?? '';
    if (type === '') continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((piece) => piece.trim());
      if (name?.toLowerCase() === 'q') q = value !== undefined && QVALUE.test(value) ? Number(value) : 0;
    }
    ranges.push({ type, q });
  }
  return ranges;
}

/**
 * Whether `accept` asks for `type` (an exact `type/subtype`, no wildcard) before anything else:
 * it is the first range listed, with a weight above 0 that no other range outweighs. A later
 * range of equal weight does not win over it (order breaks ties), a heavier one does.
 *
 * @example prefersMediaType('application/pdf', 'application/pdf')                      // true
 * @example prefersMediaType('application/pdf;q=0.1, application/json', 'application/pdf') // false
 * @example prefersMediaType('application/json, application/pdf', 'application/pdf')     // false
 * @example prefersMediaType('*\/*', 'application/pdf')                                   // false
 */
export function prefersMediaType(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  const [first, ...rest] = mediaRanges(accept);
  if (!first || first.type !== type.toLowerCase() || first.q <= 0) return false;
  return rest.every((range) => range.q <= first.q);
}

/** The media type of printable documents (receipts, invoices). */
export const PDF_TYPE = 'application/pdf';

/**
 * One route's action that answers JSON, or its printable form when the request prefers
 * `application/pdf` (`prefersMediaType`): the same route, so the same permission, reach and 404
 * rules apply to both. Both answers say `Vary: Accept`, so a cache keeps them apart.
 *
 * @example 'GET /api/v1/orders/{order_id}': withPrintable(getOrderAction, orderReceiptAction)
 */
export function withPrintable(json: Action, printable: Action): Action {
  const action: Action = async (context) => {
    const result = await (prefersMediaType(context.headers.accept, PDF_TYPE) ? printable(context) : json(context));
    return { ...result, headers: { ...result.headers, Vary: 'Accept' } };
  };
  // The API description lists the second type beside JSON.
  action.input = { ...json.input, printable: PDF_TYPE };
  return action;
}

/**
 * The answer carrying a printable document: `application/pdf`, shown in the browser (`inline`)
 * under `filename` when saved.
 */
export function pdfResult(pdf: Uint8Array, filename: string): ApiResult {
  const safe = filename.replace(/[^A-Za-z0-9._-]/g, '_');
  return { status: 200, raw: { body: pdf, contentType: PDF_TYPE }, headers: { 'Content-Disposition': `inline; filename="${safe}"` } };
}
