/**
 * A per-process cache of the settings that most requests read (zone, locale, CORS list,
 * currencies, tax rules for pricing carts, the shop's name and addresses for emails). Entries
 * are trusted for one second; a change made in this process is seen at once (the settings
 * actions call `forgetSettings`), other processes see it within a second.
 */
import { readGeneralSettings, readPaymentSettings, readTaxSettings, readTechnicalSettings, type GeneralSettings, type PaymentSettings, type TaxSettings, type TechnicalSettings } from './settings';

const FRESH_MS = 1000;
const MAX_ENTRIES = 10_000;

/** A one-second cache in front of a per-account reader. */
function cachedReader<T>(read: (accountId: string) => Promise<T>) {
  const cache = new Map<string, { value: T; at: number }>();
  return {
    async get(accountId: string): Promise<T> {
      const hit = cache.get(accountId);
      if (hit && performance.now() - hit.at <= FRESH_MS) return hit.value;
      const value = await read(accountId);
      cache.set(accountId, { value, at: performance.now() });
      if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
      return value;
    },
    forget(accountId: string): void {
      cache.delete(accountId);
    },
  };
}

const technical = cachedReader<TechnicalSettings | undefined>(readTechnicalSettings);
const payment = cachedReader<PaymentSettings>(readPaymentSettings);
const tax = cachedReader<TaxSettings>(readTaxSettings);
const general = cachedReader<GeneralSettings>(readGeneralSettings);

/** The technical settings of an account, at most one second old. */
export function readTechnicalSettingsCached(accountId: string): Promise<TechnicalSettings | undefined> {
  return technical.get(accountId);
}

/** The payment settings of an account (defaults applied), at most one second old. */
export function readPaymentSettingsCached(accountId: string): Promise<PaymentSettings> {
  return payment.get(accountId);
}

/** The tax settings of an account (defaults applied), at most one second old. */
export function readTaxSettingsCached(accountId: string): Promise<TaxSettings> {
  return tax.get(accountId);
}

/** The general settings of an account (company name, support and sender addresses), at most one second old. */
export function readGeneralSettingsCached(accountId: string): Promise<GeneralSettings> {
  return general.get(accountId);
}

/** Forgets an account's cached settings (after a change). */
export function forgetSettings(accountId: string): void {
  technical.forget(accountId);
  payment.forget(accountId);
  tax.forget(accountId);
  general.forget(accountId);
}
