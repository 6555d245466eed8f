/**
 * Which gateway charges a sale (commerce.md §4.3 check 8, §4.7): chosen per account and mode
 * from `/settings/payment`, never from the environment. A mode with a Stripe connection
 * (`stripe_live`, `stripe_test`) charges through the account's own Stripe account; test mode
 * without one uses the built-in gateway; live mode without one has none (409
 * `feature_not_enabled`). Also the card rules that depend on it: `pm_…` tokens only through
 * Stripe, raw numbers through Stripe only with `allow_raw_card_data`, and amounts Stripe can
 * represent.
 */
import { openStripeConnection, type PaymentSettings } from '../../modules/accounts';
import type { PaymentGateway, Platform, StripeConnection } from '../../platform/ports';
import { stripeMinorAmount } from '../../platform/adapters/stripe-amounts';
import { invalid } from '../../rest/input';
import type { RecordScope } from '../../store/entity';

/** The gateway of a sale and what kind it is. */
export type SaleGateway =
  | { kind: 'test'; gateway: PaymentGateway }
  | { kind: 'stripe'; gateway: StripeConnection; publishableKey: string; webhookSecret: string | null };

/** The gateway of `scope`'s mode under `settings`, or undefined (live mode without Stripe). */
export async function saleGatewayOf(platform: Pick<Platform, 'gateway' | 'secrets' | 'stripe'>, scope: RecordScope, settings: Pick<PaymentSettings, 'stripe_live' | 'stripe_test'>): Promise<SaleGateway | undefined> {
  const connection = await openStripeConnection(scope.accountId, scope.mode, settings, platform);
  if (connection) return { kind: 'stripe', gateway: platform.stripe.connect(connection.secretKey), publishableKey: connection.publishableKey, webhookSecret: connection.webhookSecret };
  return scope.mode === 'test' ? { kind: 'test', gateway: platform.gateway } : undefined;
}

/** How `payment_method.data` may carry a card for this sale's gateway. */
export interface CardRules {
  gateway: SaleGateway['kind'] | 'none';
  allowRawCardData: boolean;
}

/** The card rules of a sale's gateway and settings. */
export function cardRulesOf(sale: SaleGateway | undefined, settings: Pick<PaymentSettings, 'allow_raw_card_data'>): CardRules {
  return { gateway: sale?.kind ?? 'none', allowRawCardData: settings.allow_raw_card_data };
}

/** 400 invalid_input on `total` when Stripe cannot represent the amount in its currency (§4.7), before anything is stored. */
export function assertChargeable(sale: SaleGateway | undefined, total: number, currency: string): void {
  if (sale?.kind !== 'stripe' || total === 0) return;
  if (stripeMinorAmount(total, currency) === undefined) {
    invalid('total', `Stripe cannot charge ${total} ${currency}: the amount must be whole in ${currency}'s smallest unit Stripe accepts.`, 'precision');
  }
}
