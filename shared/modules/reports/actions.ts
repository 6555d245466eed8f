/**
 * `GET /reports/sales` (commerce.md §12) as an action of the API pipeline: parse and check the
 * parameters, read the day aggregates of the range (one item per UTC day and currency pair sold,
 * plus the hour items written before those), bucket them.
 */
import { InvalidInputError } from '../../http/errors';
import type { ApiContext, ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { parseDateInput } from '../../rest/dates';
import { formatMoney } from '../../rest/formatted';
import type { RenderContext } from '../../rest/render-context';
import { readPaymentSettingsCached } from '../accounts';
import { readSalesQuarters } from './sales-store';
import { bucketsOf, fillBuckets, GROUP_LIMITS, summaryOf, type GroupBy, type SalesFigures } from './sales-report';

const MONEY_FIELDS = ['subtotal', 'discount', 'shipping', 'tax', 'total', 'refunded', 'net', 'average_order_total'] as const;

/** The figures as JSON, with `formatted` twins of the money fields when asked. */
function figuresJson(figures: SalesFigures, currency: string, render: RenderContext): Record<string, unknown> {
  const json: Record<string, unknown> = { ...figures };
  if (render.formatted) json.formatted = Object.fromEntries(MONEY_FIELDS.map((field) => [field, formatMoney(figures[field], currency, render.locale)]));
  return json;
}

/** A date parameter (default `fallback`), at the first (`date_start`) or last moment of its period. */
function dateParameter(context: ApiContext, render: RenderContext, name: 'date_start' | 'date_end', fallback: string): number {
  const raw = context.query[name];
  const value = raw === undefined || raw === '' ? fallback : raw;
  return parseDateInput(value, { edge: name === 'date_start' ? 'first' : 'last', zone: render.zone, now: render.now, name, kind: 'parameter' });
}

/** `GET /reports/sales`: `date_start` (-29), `date_end` (today), `currency`, `group_by` (day|month), `timezone`, `formatted`. */
export async function salesReportAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  const groupBy = (context.query.group_by || 'day') as GroupBy;
  if (!(groupBy in GROUP_LIMITS)) throw new InvalidInputError('The parameter group_by must be day or month.', { parameter: 'group_by', reason: 'invalid' });
  const startMs = dateParameter(context, render, 'date_start', '-29');
  const endMs = dateParameter(context, render, 'date_end', 'today');
  if (endMs < startMs) throw new InvalidInputError('The parameter date_end must not be before date_start.', { parameter: 'date_end', reason: 'out_of_range' });
  const payment = await readPaymentSettingsCached(scope.accountId);
  const currency = (context.query.currency || payment.settlement_currency).toUpperCase();
  if (!payment.currencies.includes(currency) && currency !== payment.settlement_currency) {
    throw new InvalidInputError('The parameter currency must be an enabled currency or the settlement currency.', { parameter: 'currency', reason: 'not_allowed' });
  }
  const ranges = bucketsOf(startMs, endMs, render.zone, groupBy);
  if (!ranges) throw new InvalidInputError(`A report has at most ${GROUP_LIMITS[groupBy]} ${groupBy} buckets.`, { parameter: 'group_by', reason: 'out_of_range' });
  const { quarters } = await readSalesQuarters(scope, ranges);
  const buckets = fillBuckets(ranges, quarters, currency, payment);
  const query = new URLSearchParams(Object.entries(context.query)).toString();
  return {
    status: 200,
    body: {
      object: 'report',
      type: 'sales',
      url: `${render.url('reports/sales')}${query ? `?${query}` : ''}`,
      test: scope.mode === 'test',
      currency,
      timezone: render.zone,
      group_by: groupBy,
      date_start: render.date(startMs),
      date_end: render.date(endMs),
      summary: figuresJson(summaryOf(buckets, currency), currency, render),
      data: buckets.map((bucket) => ({ date_start: render.date(bucket.startMs), date_end: render.date(bucket.endMs), ...figuresJson(bucket.figures, currency, render) })),
    },
  };
}

