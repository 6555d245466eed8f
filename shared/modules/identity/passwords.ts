/**
 * Password rules and hashing (auth.md section 9.3): scrypt N=2^15, r=8, p=1, 16-byte salt,
 * 32-byte output, written `scrypt$15$8$1$<salt>$<hash>`, compared in constant time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { InvalidInputError } from '../../http/errors';

const LOG_N = 15;
const R = 8;
const P = 1;
/** The KDF needs 128·N·r bytes (32 MiB) plus working room; Node's 32 MiB default is too small. */
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, 32, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** Hashes a password for storage. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, LOG_N, R, P);
  return `scrypt$${LOG_N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Whether a password matches a stored hash (constant-time comparison). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, logN, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Checks the password rules: 10–128 characters after NFC normalisation, not blank, not the
 * user id or email. Violations are 400 invalid_input on `password`.
 */
export function checkPasswordRules(password: unknown, userId: string, email: string): string {
  const fail = (message: string, reason: string) => {
    throw new InvalidInputError(message, { property: 'password', reason });
  };
  if (typeof password !== 'string') return fail('The password must be a string.', 'invalid');
  const normalized = password.normalize('NFC');
  const length = [...normalized].length;
  if (length < 10) fail('The password must be at least 10 characters long.', 'too_short');
  if (length > 128) fail('The password must be at most 128 characters long.', 'too_long');
  if (normalized.trim() === '') fail('The password must not be blank.', 'invalid');
  const lower = normalized.toLowerCase();
  if (lower === userId.toLowerCase() || lower === email.toLowerCase()) {
    fail('The password must differ from the user id and the email address.', 'invalid');
  }
  return normalized;
}
