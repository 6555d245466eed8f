/** Account settings records (commerce.md section 13); the settings API comes with its own issue. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../store/client';
import { settingsKey } from '../store/keys';

/** `/settings/technical` as stored. */
export interface TechnicalSettings {
  timezone: string;
  locale: string;
  cors_allowed_origins: string[];
  oauth_redirect_uris: string[];
  allow_public_limited_test_tokens: boolean;
  /** Sealed with the secrets port (purpose `signature_key`). */
  signature_key_sealed: string;
  invoice_payment_url: string | null;
}

/** Defaults of a new account's technical settings (the signature key is added by the caller). */
export function defaultTechnicalSettings(): Omit<TechnicalSettings, 'signature_key_sealed'> {
  return {
    timezone: 'UTC',
    locale: 'en-US',
    cors_allowed_origins: [],
    oauth_redirect_uris: [],
    allow_public_limited_test_tokens: false,
    invoice_payment_url: null,
  };
}

/** Reads an account's technical settings (undefined for an unknown account). */
export async function readTechnicalSettings(accountId: string): Promise<TechnicalSettings | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: settingsKey(accountId, 'technical') }));
  return result.Item as TechnicalSettings | undefined;
}
