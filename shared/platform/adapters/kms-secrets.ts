/**
 * The cloud adapter of the secrets port (shared/platform/ports.ts): sealing with the stack's
 * KMS key. Sealed values name their adapter, `kms:<base64>` (the local adapter writes
 * `local:<base64>`, infra/local/local-secrets.ts), so a value is never opened with the wrong one.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { traced } from '../../core/tracing';
import type { SecretsPort } from '../ports';
import { onFirstUse } from './on-first-use';

// The local adapter imports `parseSealed` from here: the client package loads on first use only.
const sdk = onFirstUse(() => import('@aws-sdk/client-kms'));

/** Splits a sealed value into its adapter name and bytes. */
export function parseSealed(sealed: string): { kind: string; bytes: Buffer } {
  const colon = sealed.indexOf(':');
  return { kind: sealed.slice(0, colon), bytes: Buffer.from(sealed.slice(colon + 1), 'base64') };
}

/** Sealing with a KMS key; the purpose is the encryption context. The client (and its package) is made on first use. */
export function kmsSecrets(options: { keyId: string; region: string }): SecretsPort {
  let kms: KMSClient | undefined;
  return {
    async seal(plaintext, purpose) {
      if (!options.keyId) throw new Error('CARTWHEEL_KMS_KEY_ID is not set: this function was not granted the secrets key');
      const { KMSClient, EncryptCommand } = await sdk();
      kms ??= traced(new KMSClient({ region: options.region }));
      const result = await kms.send(
        new EncryptCommand({ KeyId: options.keyId, Plaintext: Buffer.from(plaintext, 'utf8'), EncryptionContext: { purpose } }),
      );
      return `kms:${Buffer.from(result.CiphertextBlob!).toString('base64')}`;
    },
    async open(sealed, purpose) {
      const { kind, bytes } = parseSealed(sealed);
      if (kind !== 'kms') throw new Error(`A secret sealed with "${kind}" cannot be opened by the kms adapter`);
      const { KMSClient, DecryptCommand } = await sdk();
      kms ??= traced(new KMSClient({ region: options.region }));
      const result = await kms.send(new DecryptCommand({ CiphertextBlob: bytes, EncryptionContext: { purpose } }));
      return Buffer.from(result.Plaintext!).toString('utf8');
    },
  };
}
