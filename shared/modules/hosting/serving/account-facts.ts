/**
 * Reads the public facts of an account for `settings/account.js` (hosting.md §7.1) from the
 * account's settings: general (company and support), payment (currencies, saved cards) and the
 * accepted payment methods. Undefined for an account that does not exist.
 */
import { readGeneralSettings, readPaymentSettingsCached, readTechnicalSettingsCached } from '../../accounts';
import { acceptedPaymentMethods } from '../../payments';
import type { AccountFacts } from './types';

/** The account's public facts, or undefined for an unknown account. */
export async function readAccountFacts(accountId: string): Promise<AccountFacts | undefined> {
  const [technical, general, payment] = await Promise.all([readTechnicalSettingsCached(accountId), readGeneralSettings(accountId), readPaymentSettingsCached(accountId)]);
  // Every account has technical settings from its creation on.
  if (!technical) return undefined;
  return {
    company_name: general.company_name,
    support_email: general.support_email,
    support_website: general.support_website,
    currencies: [...payment.currencies],
    allow_save_cards: payment.allow_save_cards,
    payment_method_types: acceptedPaymentMethods(payment).map((method) => method.payment_method_type),
    stripe_publishable_keys: { live: payment.stripe_live?.publishable_key ?? null, test: payment.stripe_test?.publishable_key ?? null },
  };
}
