import { createHash, randomBytes } from 'node:crypto';

/** Characters of generated commerce ids: 0-9 and A-Z without I, L, O and U (conventions.md section 7). */
export const ID_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Cryptographically secure bytes are drawn 4 KiB at a time and handed out once each (one generator call per ~200 ids, not one per id). */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** `count` fresh secure random bytes (never handed out twice). */
function secureBytes(count: number): Buffer {
  if (poolOffset + count > pool.length) {
    pool = randomBytes(Math.max(POOL_BYTES, count));
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

/**
 * A random string of `length` characters from `alphabet`, unbiased (rejection sampling over
 * crypto random bytes). Example: `randomString(12, ID_ALPHABET)` → `7KQ2ZP4M8TWX`.
 */
export function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const bytes = secureBytes(Math.ceil((length - out.length) * 1.3) + 4);
    for (const byte of bytes) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new 12-character platform-wide id for a resource (also account ids and error references). */
export function newId(): string {
  return randomString(12, ID_ALPHABET);
}

/** `length` base62 characters from a cryptographically secure generator (token bodies). */
export function randomBase62(length: number): string {
  return randomString(length, BASE62);
}

/** A random 20-character password in dashed groups, e.g. `pX8r-Tq2m-Lw9z-Hc4vN`. */
export function generatePassword(): string {
  const body = randomBase62(17);
  return `${body.slice(0, 4)}-${body.slice(4, 8)}-${body.slice(8, 12)}-${body.slice(12)}`;
}

/**
 * A 12-character id derived from `seed` (the same seed always gives the same id): for records
 * that a repeated run must find taken instead of making twice.
 *
 * @example derivedId(`license_request:${orderId}:${itemId}`)
 */
export function derivedId(seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  // 32 characters in the alphabet: one byte's low five bits pick one without bias.
  return Array.from(digest.subarray(0, 12), (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('');
}
