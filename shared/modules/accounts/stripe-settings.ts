/**
 * The Stripe connections of `/settings/payment` (commerce.md §4.7, §13.2): a sent connection is
 * merged over the saved one (an omitted secret is kept), its secret key checked once with
 * Stripe (`GET /v1/balance`: refused → 400 invalid_input on `stripe_<mode>.secret_key`, nothing
 * saved), and both secrets sealed; answers show them only as a hint, prefix and last four.
 */
import { ApiError } from '../../http/errors';
import { invalid, sends } from '../../rest/input';
import type { Platform } from '../../platform/ports';
import { stripeSecretPurpose, type PaymentValues, type StoredStripeConnection } from './settings';
import type { SettingsInputs } from './settings-schemas';

/** 502 bank_network_error: Stripe could not be reached to check a key (nothing saved). */
export class StripeUnreachableError extends ApiError {
  override name = 'StripeUnreachableError';
  constructor() {
    super(502, 'bank_network_error', 'Stripe could not be reached to check the secret key. Try again later.', null);
  }
}

/** The two connection fields. */
const MODES = [['stripe_live', 'live'], ['stripe_test', 'test']] as const;

/** A secret read back: its prefix up to the last `_`, `…`, and its last four characters (`sk_live_…4242`). */
export function secretHint(secret: string): string {
  const prefix = secret.slice(0, secret.lastIndexOf('_') + 1);
  return `${prefix}…${secret.slice(-4)}`;
}

/** The values after the body's Stripe connections are applied (the other fields applied already). */
export async function applyStripeChanges(accountId: string, current: PaymentValues, next: PaymentValues, body: SettingsInputs['payment'], ports: Pick<Platform, 'secrets' | 'stripe'>): Promise<PaymentValues> {
  const out = { ...next };
  for (const [field, mode] of MODES) {
    if (!sends(body, field)) continue;
    const sent = body[field];
    if (sent === null || sent === undefined) {
      out[field] = null;
      continue;
    }
    const before = current[field];
    const publishableKey = sent.publishable_key ?? before?.publishable_key;
    if (!publishableKey) invalid(`${field}.publishable_key`, `The property ${field}.publishable_key is required.`, 'required');
    if (!sent.secret_key && !before) invalid(`${field}.secret_key`, `The property ${field}.secret_key is required.`, 'required');
    const purpose = stripeSecretPurpose(accountId, mode);
    let secret: Pick<StoredStripeConnection, 'secret_key_sealed' | 'secret_key_hint'>;
    if (sent.secret_key) {
      let accepted: boolean;
      try {
        accepted = await ports.stripe.connect(sent.secret_key).checkKey();
      } catch {
        throw new StripeUnreachableError();
      }
      if (!accepted) invalid(`${field}.secret_key`, 'Stripe did not accept this secret key.', 'invalid');
      secret = { secret_key_sealed: await ports.secrets.seal(sent.secret_key, purpose), secret_key_hint: secretHint(sent.secret_key) };
    } else {
      secret = { secret_key_sealed: before!.secret_key_sealed, secret_key_hint: before!.secret_key_hint };
    }
    const webhook = sent.webhook_secret === undefined
      ? { webhook_secret_sealed: before?.webhook_secret_sealed ?? null, webhook_secret_hint: before?.webhook_secret_hint ?? null }
      : sent.webhook_secret === null
        ? { webhook_secret_sealed: null, webhook_secret_hint: null }
        : { webhook_secret_sealed: await ports.secrets.seal(sent.webhook_secret, purpose), webhook_secret_hint: secretHint(sent.webhook_secret) };
    out[field] = { publishable_key: publishableKey, ...secret, ...webhook };
  }
  return out;
}

/** A stored connection as answers show it: the publishable key, and the secrets as hints. */
export function stripeConnectionJson(connection: StoredStripeConnection | null): Record<string, unknown> | null {
  if (!connection) return null;
  return { publishable_key: connection.publishable_key, secret_key: connection.secret_key_hint, webhook_secret: connection.webhook_secret_hint };
}

/** The opened secrets of an account's connection in `mode`, or undefined when that mode has none. */
export async function openStripeConnection(accountId: string, mode: 'live' | 'test', settings: Pick<PaymentValues, 'stripe_live' | 'stripe_test'>, ports: Pick<Platform, 'secrets'>): Promise<{ publishableKey: string; secretKey: string; webhookSecret: string | null } | undefined> {
  const connection = mode === 'live' ? settings.stripe_live : settings.stripe_test;
  if (!connection) return undefined;
  const purpose = stripeSecretPurpose(accountId, mode);
  const [secretKey, webhookSecret] = await Promise.all([
    ports.secrets.open(connection.secret_key_sealed, purpose),
    connection.webhook_secret_sealed ? ports.secrets.open(connection.webhook_secret_sealed, purpose) : Promise.resolve(null),
  ]);
  return { publishableKey: connection.publishable_key, secretKey, webhookSecret };
}
