/**
 * Account bootstrap (auth.md section 10): one transaction creates the account, its settings,
 * the owner user and a live and a test secret token with every permission. Either all of it
 * exists afterwards or none of it does, so a failed run can simply be repeated.
 */
import { tokenWrites, checkPasswordRules, hashPassword, newUserEntries } from '../identity';
import { FULL_ACCESS } from '../../core/access/permissions';
import type { PlatformConfig } from '../../core/config';
import { InvalidInputError } from '../../http/errors';
import { generatePassword, newId, randomBase62 } from '../../core/ids';
import type { Platform } from '../../platform/ports';
import { insertAccount } from './account-store';
import { defaultTechnicalSettings } from './settings';

/** What the operator gives. */
export interface CreateAccountInput {
  company: string;
  email: string;
  userId?: string;
  password?: string;
  /**
   * The hash of `password` (`hashPassword`), when the caller began it earlier: the local runtime
   * hashes the seeded owner's password (scrypt, on the thread pool) while its emulators start.
   * Used only together with `password`; hashed here otherwise.
   */
  passwordHash?: Promise<string>;
}

/** What the operator gets back: the facts of bootstrap.json plus `owner.user_id`. */
export interface AccountBootstrap {
  account_id: string;
  api_url: string;
  functions_url: string;
  signin_url: string;
  apps_url: string;
  owner: { user_id: string; email: string; password: string };
  tokens: { live_secret: string; test_secret: string };
}

const USER_ID = /^[A-Za-z0-9._@-]{3,64}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Creates an account with its owner and bootstrap tokens, atomically (the signature key sealed
 * by `secrets`, dated by `clock`); the answer names the deployment's public `urls`.
 */
export async function createAccount(input: CreateAccountInput, { secrets, clock }: Pick<Platform, 'secrets' | 'clock'>, urls: PlatformConfig['publicUrls']): Promise<AccountBootstrap> {
  const company = input.company.trim();
  if (!company || company.length > 200) {
    throw new InvalidInputError('The company name must be 1 to 200 characters.', { property: 'company', reason: 'invalid' });
  }
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 254) {
    throw new InvalidInputError('The owner email must be a valid email address.', { property: 'email', reason: 'invalid' });
  }
  const userId = input.userId ?? 'owner';
  if (!USER_ID.test(userId)) {
    throw new InvalidInputError('The user id must be 3 to 64 characters of A-Z, a-z, 0-9, ".", "_", "@" or "-".', {
      property: 'user_id',
      reason: 'invalid',
    });
  }
  const password = input.password === undefined ? generatePassword() : checkPasswordRules(input.password, userId, email);

  const accountId = newId();
  const now = clock.nowMs();
  const signatureKey = randomBase62(32);
  const live = tokenWrites({ accountId, mode: 'live', kind: 'secret', permissions: FULL_ACCESS, comments: 'bootstrap' }, clock.nowMs());
  const test = tokenWrites({ accountId, mode: 'test', kind: 'secret', permissions: FULL_ACCESS, comments: 'bootstrap' }, clock.nowMs());
  await insertAccount({
    accountId,
    account: { account_id: accountId, company_name: company, created_ms: now, modified_ms: now },
    technicalSettings: { ...defaultTechnicalSettings(), signature_key_sealed: await secrets.seal(signatureKey, `signature_key:${accountId}`) },
    generalSettings: { company_name: company, support_email: email, support_website: null },
    owner: newUserEntries({
      user_id: userId,
      account_id: accountId,
      name: company,
      email,
      password_hash: await (input.password !== undefined && input.passwordHash ? input.passwordHash : hashPassword(password)),
      is_account_owner: true,
      language: 'en',
      locale: 'en-US',
      permissions: [],
      created_ms: now,
      modified_ms: now,
    }),
    tokens: [...live.entries, ...test.entries],
  });
  return {
    account_id: accountId,
    api_url: urls.api,
    functions_url: urls.functions,
    signin_url: urls.signin,
    apps_url: urls.appsTemplate.replace('{account_id}', accountId),
    owner: { user_id: userId, email, password },
    tokens: { live_secret: live.token, test_secret: test.token },
  };
}
