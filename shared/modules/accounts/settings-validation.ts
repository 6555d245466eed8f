/**
 * Settings changes (commerce.md section 13, conventions.md section 15) over parsed bodies (the
 * group schemas of `settings-schemas.ts`, which have checked each value on its own). Each
 * `apply…Changes` takes the current values of a group and a parsed body, and answers the
 * values as they will be after the change, or throws 400 invalid_input naming the first
 * property that breaks a rule joining several fields.
 *
 * - A sent property is changed; an omitted one is left alone.
 * - Rules that join several fields (currencies and their rates) are checked on the merged
 *   values, so a change that is valid on its own but breaks the whole is refused.
 *
 * Everything here is pure: no reads, no writes.
 */
import { invalid, sends } from '../../rest/input';
import type { SettingsInputs } from './settings-schemas';
import type { GeneralValues, PaymentValues, TaxValues, TechnicalValues } from './settings';

export { MAX_LIST_ENTRIES, MAX_NAME_LENGTH, MAX_TAX_RULES, MAX_URL_LENGTH } from './settings-schemas';

/** A copy of the current values with the sent properties of a parsed body; other body properties (write-only flags) are not values. */
function applyFields<T extends object>(current: T, body: object): T {
  const next: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [name, value] of Object.entries(body)) {
    if (Object.hasOwn(current, name)) next[name] = value;
  }
  return next as T;
}

/** The technical values after a change, and whether the signature key is to be rotated. */
export interface TechnicalChanges {
  values: TechnicalValues;
  rotateSignatureKey: boolean;
}

/** `/settings/technical` after a change. `rotate_signature_key` is write-only: `true` rotates, `false` does nothing. */
export function applyTechnicalChanges(current: TechnicalValues, body: SettingsInputs['technical']): TechnicalChanges {
  return { values: applyFields(current, body), rotateSignatureKey: body.rotate_signature_key === true };
}

/** What `/settings/general` reads and writes: its own values plus the two shared technical lists. */
export type GeneralView = GeneralValues & Pick<TechnicalValues, 'cors_allowed_origins' | 'oauth_redirect_uris'>;

/** `/settings/general` after a change (including the shared CORS and redirect lists). */
export function applyGeneralChanges(current: GeneralView, body: SettingsInputs['general']): GeneralView {
  return applyFields(current, body);
}

/**
 * `/settings/payment` after a change, with the rules that join fields checked on the result:
 * the default currency is one of `currencies`; every other listed currency has a rate, and
 * only listed currencies have one (the default's own rate, if given, is 1); the settlement
 * currency is the default or a currency with a rate. A broken join is reported on the field
 * the request sent (the default or settlement currency when sent, else `currencies`). When
 * `currencies` is sent without `exchange_rates`, the rates of currencies no longer listed go.
 */
export function applyPaymentChanges(current: PaymentValues, body: SettingsInputs['payment']): PaymentValues {
  // The Stripe connections are sealed and checked with Stripe by the caller (stripe-settings.ts).
  const { stripe_live: _live, stripe_test: _test, ...plain } = body;
  const next = applyFields(current, plain);
  const listed = new Set(next.currencies);
  if (sends(body, 'currencies') && !sends(body, 'exchange_rates')) {
    // Removing a currency removes its rate with it; sent rates are checked as they are.
    next.exchange_rates = Object.fromEntries(Object.entries(next.exchange_rates).filter(([code]) => listed.has(code)));
  }
  const blame = (field: 'default_payment_currency' | 'settlement_currency') =>
    sends(body, field) || !sends(body, 'currencies') ? field : 'currencies';
  if (!listed.has(next.default_payment_currency)) {
    const at = blame('default_payment_currency');
    invalid(at, `The default payment currency ${next.default_payment_currency} must be one of currencies.`, 'not_allowed');
  }
  for (const [code, rate] of Object.entries(next.exchange_rates)) {
    const at = `exchange_rates.${code}`;
    if (!listed.has(code)) invalid(at, `There is a rate for ${code}, which is not one of currencies.`, 'not_allowed');
    if (code === next.default_payment_currency && rate !== 1) {
      invalid(at, `The rate of the default payment currency ${code} is 1.`, 'invalid');
    }
  }
  for (const code of next.currencies) {
    if (code !== next.default_payment_currency && next.exchange_rates[code] === undefined) {
      invalid(`exchange_rates.${code}`, `The currency ${code} needs an exchange rate.`, 'required');
    }
  }
  if (!listed.has(next.settlement_currency)) {
    const at = blame('settlement_currency');
    invalid(at, `The settlement currency ${next.settlement_currency} must be the default or a currency with a rate.`, 'not_allowed');
  }
  return next;
}

/** `/settings/tax` after a change. */
export function applyTaxChanges(current: TaxValues, body: SettingsInputs['tax']): TaxValues {
  return applyFields(current, body);
}
