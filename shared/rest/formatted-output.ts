/**
 * Adds the `formatted` twins of `formatted=true` (conventions.md §14) to a rendered object,
 * driven by the declared shape: money in its currency, timestamps as medium date and short
 * time in the zone in effect, fractions as percentages, country codes as names. A `null`
 * property has a `null` twin.
 */
import type { FormattedShape } from './declarations';
import { formatCountry, formatDateTime, formatMoney, formatPercent } from './formatted';
import type { RenderContext } from './render-context';

/** Adds `formatted` to `json` (and to its declared nested objects and array elements). */
export function addFormatted(json: Record<string, unknown>, shape: FormattedShape | undefined, context: RenderContext): void {
  if (!shape) return;
  const twins: Record<string, string | null> = {};
  for (const [property, currencyProperty] of Object.entries(shape.money ?? {})) {
    if (!(property in json)) continue;
    const amount = json[property];
    const currency = json[currencyProperty];
    twins[property] = typeof amount === 'number' && typeof currency === 'string' ? formatMoney(amount, currency, context.locale) : null;
  }
  for (const property of shape.dates ?? []) {
    if (!(property in json)) continue;
    const value = json[property];
    twins[property] = typeof value === 'string' ? formatDateTime(Date.parse(value), context.zone, context.locale) : null;
  }
  for (const property of shape.percents ?? []) {
    if (!(property in json)) continue;
    const value = json[property];
    twins[property] = typeof value === 'number' ? formatPercent(value, context.locale) : null;
  }
  for (const property of shape.countries ?? []) {
    if (!(property in json)) continue;
    const value = json[property];
    twins[property] = typeof value === 'string' ? formatCountry(value, context.locale) : null;
  }
  if (Object.keys(twins).length) json.formatted = twins;
  for (const [property, nestedShape] of Object.entries(shape.nested ?? {})) {
    const value = json[property];
    const elements = Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : [];
    for (const element of elements) {
      if (element && typeof element === 'object') addFormatted(element as Record<string, unknown>, nestedShape, context);
    }
  }
}
