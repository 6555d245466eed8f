/**
 * Sealing of secrets at rest (signature keys, function environment variables, credentials
 * of license services). A port with two adapters: the KMS key in the cloud, a local key
 * file on one machine (AWS KMS cannot be emulated here). Sealed values name their adapter,
 * `kms:<base64>` or `local:<base64>`, so a value is never opened with the wrong one.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { config } from '../config';

let kms: KMSClient | undefined;
let kmsRegion: string | undefined;

/** The KMS client for the configured region (rebuilt when the configuration changes region). */
function kmsClient(): KMSClient {
  const region = config().region;
  if (!kms || kmsRegion !== region) {
    kms = new KMSClient({ region });
    kmsRegion = region;
  }
  return kms;
}
let localKey: Buffer | undefined;

/** Creates the local key file (32 random bytes, mode 0600) unless it exists. */
export function ensureLocalKey(keyFile: string): void {
  if (existsSync(keyFile)) return;
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  chmodSync(keyFile, 0o600);
}

function readLocalKey(keyFile: string): Buffer {
  localKey ??= Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
  if (localKey.length !== 32) throw new Error(`The local key in ${keyFile} is not 32 bytes`);
  return localKey;
}

/** Encrypts a secret for storage; `purpose` binds the ciphertext to its use. */
export async function sealSecret(plaintext: string, purpose: string): Promise<string> {
  const secrets = config().secrets;
  if (secrets.kind === 'local') {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', readLocalKey(secrets.keyFile), iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `local:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }
  if (!secrets.keyId) throw new Error('CARTWHEEL_KMS_KEY_ID is not set: this function was not granted the secrets key');
  const result = await kmsClient().send(
    new EncryptCommand({
      KeyId: secrets.keyId,
      Plaintext: Buffer.from(plaintext, 'utf8'),
      EncryptionContext: { purpose },
    }),
  );
  return `kms:${Buffer.from(result.CiphertextBlob!).toString('base64')}`;
}

/** Decrypts a value sealed by `sealSecret` with the same `purpose`. */
export async function openSecret(sealed: string, purpose: string): Promise<string> {
  const [kind, data] = [sealed.slice(0, sealed.indexOf(':')), sealed.slice(sealed.indexOf(':') + 1)];
  const bytes = Buffer.from(data, 'base64');
  const secrets = config().secrets;
  if (kind === 'local' && secrets.kind === 'local') {
    const decipher = createDecipheriv('aes-256-gcm', readLocalKey(secrets.keyFile), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }
  if (kind === 'kms' && secrets.kind === 'kms') {
    const result = await kmsClient().send(new DecryptCommand({ CiphertextBlob: bytes, EncryptionContext: { purpose } }));
    return Buffer.from(result.Plaintext!).toString('utf8');
  }
  throw new Error(`A secret sealed with "${kind}" cannot be opened by the ${secrets.kind} adapter`);
}
