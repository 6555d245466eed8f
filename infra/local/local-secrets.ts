/**
 * The local adapter of the secrets port: AES-256-GCM with a key file in the data directory
 * (KMS cannot be emulated on one machine). Sealed values read `local:<base64>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SecretsPort } from '../../shared/platform/ports';
import { parseSealed } from '../../shared/platform/adapters/kms-secrets';

/** Creates the local key file (32 random bytes, mode 0600) unless it exists. */
export function ensureLocalKey(keyFile: string): void {
  if (existsSync(keyFile)) return;
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  chmodSync(keyFile, 0o600);
}

/** Sealing with the local key file (created if missing); the purpose is bound as AAD. */
export function localSecrets(keyFile: string): SecretsPort {
  ensureLocalKey(keyFile);
  const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`The local key in ${keyFile} is not 32 bytes`);
  return {
    seal(plaintext, purpose) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(purpose));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Promise.resolve(`local:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`);
    },
    open(sealed, purpose) {
      const { kind, bytes } = parseSealed(sealed);
      if (kind !== 'local') return Promise.reject(new Error(`A secret sealed with "${kind}" cannot be opened by the local adapter`));
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Promise.resolve(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'));
    },
  };
}
