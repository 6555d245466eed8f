/**
 * Password rules and hashing (auth.md section 9.3): scrypt N=2^15, r=8, p=3, 16-byte salt,
 * 32-byte output, written `scrypt$15$8$3$<salt>$<hash>`, compared in constant time. Hashes of
 * other parameters (earlier versions wrote p=1) still verify with their own, and `needsRehash`
 * tells a successful login to rewrite them with the current ones.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { InvalidInputError } from '../../http/errors';
// The common-password list: the 10,000 most frequent entries of the `passwords` dictionary of
// @zxcvbn-ts/language-common 4.1.3 (MIT, github.com/zxcvbn-ts/zxcvbn; compiled from breach
// corpora), plus every later entry of 10 or more characters, NFC-normalised and lower-cased.
import commonPasswordList from './common-passwords.json' with { type: 'json' };

/** The current parameters (auth.md 9.3). */
export const PASSWORD_HASH = Object.freeze({ logN: 15, r: 8, p: 3 });
/** The KDF needs 128·N·r bytes (32 MiB) plus working room; Node's 32 MiB default is too small. */
const MAX_MEMORY = 64 * 1024 * 1024;
/** The shortest password a user may set (NIST SP 800-63B for a single factor). */
export const MIN_PASSWORD_LENGTH = 15;
const MAX_PASSWORD_LENGTH = 128;

const commonPasswords: ReadonlySet<string> = new Set(commonPasswordList as string[]);

/** How many entries the common-password list holds (tests and benches). */
export const COMMON_PASSWORD_COUNT = commonPasswords.size;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, 32, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** Hashes a password for storage with the current parameters. */
export async function hashPassword(password: string): Promise<string> {
  const { logN, r, p } = PASSWORD_HASH;
  const salt = randomBytes(16);
  const hash = await derive(password, salt, logN, r, p);
  return `scrypt$${logN}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Whether a password matches a stored hash, checked with the hash's own parameters (constant-time comparison). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, logN, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a stored hash was made with other than the current parameters (rewrite it at the next successful login). */
export function needsRehash(stored: string): boolean {
  const { logN, r, p } = PASSWORD_HASH;
  return !stored.startsWith(`scrypt$${logN}$${r}$${p}$`);
}

let decoyHash: Promise<string> | undefined;

/**
 * Spends the time of one password check at the current parameters on a name that cannot sign
 * in, so answer times do not tell unknown login names from wrong passwords (auth.md 5.3).
 */
export async function decoyPasswordCheck(password: string): Promise<void> {
  decoyHash ??= hashPassword('decoy password never matched');
  await verifyPassword(password, await decoyHash);
}

/** Whether `password` is on the built-in list of common and breached passwords (case-insensitive). */
export function isCommonPassword(password: string): boolean {
  return commonPasswords.has(password.normalize('NFC').toLowerCase());
}

/**
 * Checks the password rules of users (auth.md 9.3): 15–128 characters after NFC normalisation,
 * not blank, not the user id or email, not on the common-password list. Violations are 400
 * invalid_input on `password`. Answers the normalised password.
 */
export function checkPasswordRules(password: unknown, userId: string, email: string): string {
  const fail = (message: string, reason: string) => {
    throw new InvalidInputError(message, { property: 'password', reason });
  };
  if (typeof password !== 'string') return fail('The password must be a string.', 'invalid');
  const normalized = password.normalize('NFC');
  const length = [...normalized].length;
  if (normalized.trim() === '') fail('The password must not be blank.', 'invalid');
  if (length < MIN_PASSWORD_LENGTH) fail(`The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`, 'too_short');
  if (length > MAX_PASSWORD_LENGTH) fail(`The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`, 'too_long');
  const lower = normalized.toLowerCase();
  if (lower === userId.toLowerCase() || lower === email.toLowerCase()) {
    fail('The password must differ from the user id and the email address.', 'invalid');
  }
  if (isCommonPassword(normalized)) fail('The password is too common; choose another.', 'invalid');
  return normalized;
}
